"""The load tester's own frame reader and writer agree with websockets' server protocol, with and
without permessage-deflate, whatever the sizes and however the bytes are split."""

from __future__ import annotations

import random

import pytest
from websockets.client import ClientProtocol
from websockets.extensions.permessage_deflate import (
    enable_client_permessage_deflate,
    enable_server_permessage_deflate,
)
from websockets.frames import Frame, Opcode
from websockets.server import ServerProtocol
from websockets.uri import parse_uri

from server.tools.bench.wsclient import Frames


def pair(deflate: bool) -> tuple[ServerProtocol, Frames]:
    client = ClientProtocol(
        parse_uri("ws://127.0.0.1/"),
        extensions=enable_client_permessage_deflate(None) if deflate else None,
    )
    server = ServerProtocol(extensions=enable_server_permessage_deflate(None) if deflate else None)
    client.send_request(client.connect())
    server.receive_data(b"".join(client.data_to_send()))
    server.send_response(server.accept(server.events_received()[0]))  # type: ignore[arg-type]
    client.receive_data(b"".join(server.data_to_send()))
    client.events_received()
    assert bool(client.extensions) is deflate
    return server, Frames(client.extensions)


def opcodes(server: ServerProtocol) -> list[Opcode]:
    """The opcodes of what the server received since last asked (after the handshake: frames)."""
    events = server.events_received()
    frames = [e for e in events if isinstance(e, Frame)]
    assert frames == events, events
    return [f.opcode for f in frames]


TEXTS = [
    b"go",
    b"x" * 125,
    b"y" * 126,
    b'{"type":"state","v":"' + b"z" * 70000 + b'"}',
    "é€".encode(),
]


@pytest.mark.parametrize("deflate", [False, True])
def test_server_frames_are_read_whatever_the_split(deflate: bool) -> None:
    server, frames = pair(deflate)
    for text in TEXTS:
        server.send_text(text)
    wire = b"".join(server.data_to_send())
    rng = random.Random(1)
    got: list[bytes] = []
    pos = 0
    while pos < len(wire):
        step = rng.randint(1, 300)
        got += frames.feed(wire[pos : pos + step])
        pos += step
    assert got == TEXTS


@pytest.mark.parametrize("deflate", [False, True])
def test_our_frames_are_read_by_the_server(deflate: bool) -> None:
    server, frames = pair(deflate)
    for text in TEXTS:
        server.receive_data(frames.text(text))
    received = [e for e in server.events_received() if isinstance(e, Frame)]
    assert [e.data for e in received] == TEXTS
    assert all(e.opcode is Opcode.TEXT for e in received)


def test_pings_are_answered_and_a_close_is_returned() -> None:
    server, frames = pair(False)
    server.send_ping(b"hi")
    assert frames.feed(b"".join(server.data_to_send())) == []
    server.receive_data(frames.reply)
    assert opcodes(server) == [Opcode.PONG]
    frames.reply = b""
    server.send_close(1000)
    frames.feed(b"".join(server.data_to_send()))
    assert frames.closed
    server.receive_data(frames.reply)
    assert opcodes(server) == [Opcode.CLOSE]
