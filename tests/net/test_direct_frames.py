"""The server reads the usual client frame itself (server/net/receive.py) and leaves the rest to
websockets: whatever way the bytes are cut into TCP writes, with fragmented messages and
control frames between them, every message is read once, in order, and answered in order.

The tests from :func:`parser` on hand the bytes to the connection's ``data_received``
themselves (as its transport does, one call per TCP read), so the cuts are exactly the ones
asked for; the connection itself is real, its handshake done over loopback."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import connect
from websockets.asyncio.server import serve
from websockets.frames import Frame, Opcode
from websockets.protocol import State

from server.net.receive import DirectConnection
from server.net.server import CardroomServer
from server.tools.fuzz.raw import RawSocket


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


@pytest.mark.slow
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
    (conn,) = server.connected.sockets.values()
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


@dataclass
class Fed:
    """A server-side :class:`DirectConnection` fed by the test, and the messages it read."""

    ws: DirectConnection
    got: list[str | bytes] = field(default_factory=list)

    def feed(self, data: bytes, cuts: list[int]) -> None:
        """``data`` cut at each of ``cuts``, one ``data_received`` call per piece."""
        bounds = [0, *sorted(set(cuts) - {0, len(data)}), len(data)]
        for start, stop in itertools.pairwise(bounds):
            self.ws.data_received(data[start:stop])

    async def close_code(self) -> int | None:
        """The code of the close frame the connection sent (``None``: none, it is open)."""
        for _ in range(10):  # a fault found while reading closes from a task: let it run
            if self.ws.protocol.close_sent is not None:
                return int(self.ws.protocol.close_sent.code)
            await asyncio.sleep(0)
        return None


@contextlib.asynccontextmanager
async def parser(max_size: int = 65536) -> AsyncIterator[Fed]:
    """A real connection (no extension: the frames are read by receive.py) whose reads the test
    makes itself; ``max_size`` as the server's ``max_frame`` (65,536 by default)."""
    opened: asyncio.Future[Fed] = asyncio.get_running_loop().create_future()

    async def handler(ws: DirectConnection) -> None:
        fed = Fed(ws)
        ws.deliver_to(fed.got.append)
        opened.set_result(fed)
        await ws.wait_closed()

    async with serve(
        handler,  # type: ignore[arg-type]  # serve() types the handler for a ServerConnection
        "127.0.0.1",
        0,
        max_size=max_size,
        ping_interval=None,
        create_connection=DirectConnection,
    ) as srv:
        port = srv.sockets[0].getsockname()[1]
        async with connect(f"ws://127.0.0.1:{port}", compression=None, ping_interval=None):
            fed = await asyncio.wait_for(opened, 5)
            assert fed.ws.reads_frames
            yield fed


def frames_of(messages: list[str | bytes], pieces: int = 1, ping_between: bool = False) -> bytes:
    """Each message as one masked frame, or as ``pieces`` fragments (a ping between the first
    two if asked)."""
    out = []
    for message in messages:
        data = message.encode() if isinstance(message, str) else message
        opcode = Opcode.TEXT if isinstance(message, str) else Opcode.BINARY
        step = max(1, -(-len(data) // pieces))
        parts = [data[i : i + step] for i in range(0, len(data), step)] or [b""]
        for i, part in enumerate(parts):
            out.append(frame(opcode if i == 0 else Opcode.CONT, part, fin=i == len(parts) - 1))
            if i == 0 and ping_between and len(parts) > 1:
                out.append(frame(Opcode.PING, b"between"))
    return b"".join(out)


async def test_a_frame_of_64_kib_a_byte_at_a_time_is_read_once_in_linear_time() -> None:
    async with parser() as fed:
        text = "é" + "x" * 65532  # 65,534 bytes: a 16-bit length (at most 65,535 read here)
        data = frames_of([text, "after"])
        fed.feed(data, list(range(len(data))))  # one byte per read
        assert fed.got == [text, "after"]
        assert fed.ws.reads_frames  # read here throughout, not handed to websockets
        # each byte of an incomplete frame is copied into the held buffer once and moved at
        # most once (re-joining the held start with each new byte copied ~2 GiB here)
        assert fed.ws.held_copied <= 2 * len(data)


#: Messages whose frames are cut below: empty, 7-bit, 16-bit and boundary lengths, binary.
CUT_MESSAGES: list[str | bytes] = ["", "a", "é" * 62 + "!", "y" * 126, b"\x00\xff" * 20, "z" * 300]


def cut_stream() -> tuple[bytes, list[str | bytes]]:
    """Whole frames, then a fragmented message with a ping between its parts, then a frame."""
    data = frames_of(CUT_MESSAGES)
    data += frames_of(["fragmented " * 5], pieces=3, ping_between=True) + frames_of(["end"])
    return data, [*CUT_MESSAGES, "fragmented " * 5, "end"]


async def test_frames_cut_at_every_byte_read_as_the_whole_stream() -> None:
    data, expected = cut_stream()
    async with parser() as fed:
        fed.feed(data, [])  # the unsplit stream
        assert fed.got == expected
        # one cut at every position: inside each header (and its 16-bit length), inside each
        # mask, inside each payload, and at each frame's end (so a piece then holds the rest,
        # several frames at once); then every position cut at once
        for cut in range(1, len(data)):
            fed.got.clear()
            fed.feed(data, [cut])
            assert fed.got == expected, cut
        fed.got.clear()
        fed.feed(data, list(range(len(data))))
        assert fed.got == expected
        assert fed.ws.reads_frames and fed.ws.protocol.state is State.OPEN


@st.composite
def streams(draw: st.DrawFn) -> tuple[bytes, list[str | bytes], int | None]:
    """Frames of 0 to 1,000 bytes (some fragmented), perhaps ending in a bad frame, with the
    messages read before it and the close code the bad frame brings."""
    sizes = st.sampled_from([0, 1, 2, 124, 125, 126, 127, 300, 1000])
    data, messages = b"", list[str | bytes]()
    for _ in range(draw(st.integers(1, 6))):
        size = draw(sizes)
        kinds: list[str | bytes] = [b"\x81" * size, "é" * (size // 2) + "x"]
        message = draw(st.sampled_from(kinds))
        data += frames_of([message], draw(st.integers(1, 3)), draw(st.booleans()))
        messages.append(message)
    bad = draw(st.sampled_from(["", "too large", "unmasked", "reserved bit", "bad UTF-8"]))
    if bad == "too large":  # over max_size (2,000 in this test): 1009, as websockets does
        data += frame(Opcode.TEXT, b"x" * 2001)
    elif bad == "unmasked":
        data += Frame(Opcode.TEXT, b"plain").serialize(mask=False, extensions=[])
    elif bad == "reserved bit":
        rsv = bytearray(frame(Opcode.TEXT, b"rsv"))
        rsv[0] |= 0x40  # RSV1, with no extension to define it
        data += rsv
    elif bad == "bad UTF-8":
        data += frame(Opcode.TEXT, b"\xff\xfe")
    code = {"": None, "too large": 1009, "bad UTF-8": 1007}.get(bad, 1002)
    if bad:
        data += frames_of(["never read"])
    return data, messages, code


@pytest.mark.slow
@settings(max_examples=60)
@given(stream=streams(), data=st.data())
async def test_any_cuts_read_as_the_whole_stream(
    stream: tuple[bytes, list[str | bytes], int | None], data: st.DataObject
) -> None:
    raw, expected, code = stream
    cuts = data.draw(st.lists(st.integers(1, len(raw) - 1), max_size=12))
    results = []
    for pieces in ([], cuts):  # the unsplit stream, then the cut one
        async with parser(max_size=2000) as fed:
            fed.feed(raw, pieces)
            results.append((fed.got, await fed.close_code()))
    assert results[0] == (expected, code)
    assert results[1] == results[0]
