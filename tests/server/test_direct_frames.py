"""The server reads the usual client frame itself (server/net/receive.py) and leaves the rest to
websockets: whatever way the bytes are cut into TCP writes, with fragmented messages and
control frames between them, every message is read once, in order, and answered in order."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from websockets.frames import Frame, Opcode

from server.fuzz.raw import RawSocket
from server.net.receive import DirectConnection
from server.net.server import CardroomServer


def frame(opcode: Opcode, data: bytes, fin: bool = True) -> bytes:
    return Frame(opcode, data, fin).serialize(mask=True, extensions=[])


def ping(ref: str, pad: int = 0) -> bytes:
    return (json.dumps({"type": "ping", "id": ref}, ensure_ascii=False) + " " * pad).encode()


def stream() -> bytes:
    hello = json.dumps({"type": "hello", "id": "h", "protocol": 1}).encode()
    p2 = ping("p2")
    return b"".join(
        [
            frame(Opcode.TEXT, hello),
            frame(Opcode.TEXT, ping("p1")),
            frame(Opcode.TEXT, p2[:5], fin=False),  # a fragmented message ...
            frame(Opcode.PING, b"keepalive"),  # ... with a control frame between its parts
            frame(Opcode.CONT, p2[5:12], fin=False),
            frame(Opcode.CONT, p2[12:]),
            frame(Opcode.TEXT, ping("p3", pad=300)),  # a 16-bit length
            frame(Opcode.TEXT, ping("p4é")),  # UTF-8 beyond ASCII
            frame(Opcode.TEXT, ping("p5", pad=4100)),  # over max_message: a typed refusal
            frame(Opcode.TEXT, ping("p6")),
        ]
    )


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
async def test_messages_cut_anywhere_are_read_once_in_order(
    server: CardroomServer, seed: int
) -> None:
    raw = RawSocket(server.url)
    await raw.open()
    data = stream()
    rng = random.Random(seed)
    pos = 0
    while pos < len(data):  # each piece its own TCP write, cut anywhere (headers included)
        n = rng.choice([1, 2, 3, 7, 40, 200]) if seed else len(data)
        await raw.send_bytes(data[pos : pos + n])
        await asyncio.sleep(0.001)
        pos += n
    assert await raw.wait(lambda: len(raw.got.texts) >= 7, 10)
    got = [json.loads(t) for t in raw.got.texts]
    assert [(g["type"], g.get("ref")) for g in got] == [
        ("welcome", "h"),
        ("pong", "p1"),
        ("pong", "p2"),
        ("pong", "p3"),
        ("pong", "p4é"),
        ("error", None),  # too large: refused before it is read
        ("pong", "p6"),
    ]
    assert got[5]["code"] == "too_large"
    assert not raw.closed
    (conn,) = server.connections.values()
    assert isinstance(conn.ws, DirectConnection) and conn.ws.reads_frames  # this path was taken
    await raw.close()


async def test_a_frame_over_the_size_limit_still_closes_with_1009(server: CardroomServer) -> None:
    raw = RawSocket(server.url)
    await raw.open()
    big = frame(Opcode.TEXT, ping("x", pad=server.config.max_frame + 10))
    await raw.send_bytes(frame(Opcode.TEXT, ping("a")) + big + frame(Opcode.TEXT, ping("b")))
    assert await raw.wait(lambda: raw.closed, 10)
    assert raw.got.close_code == 1009
    # nothing after the close: "b" is never answered
    assert "b" not in [json.loads(t).get("ref") for t in raw.got.texts]
    await raw.close()
