"""``stop()`` leaves no socket behind: a WebSocket whose peer never answers the closing
handshake (a client that reconnected while the rooms were being saved and then stopped
reading, say) is cut when the stop's time is up, not left open for websockets' own close
timeout after the server is gone."""

from __future__ import annotations

import asyncio
import base64
import os
import time

import pytest

from server.net.server import CardroomServer, ServerConfig

pytestmark = pytest.mark.slow

_UPGRADE = (
    "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


async def _silent_websocket(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A WebSocket opened on ``port`` whose client then neither reads nor answers anything."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(_UPGRADE.format(key=key).encode())
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    assert head.startswith(b"HTTP/1.1 101")
    return reader, writer


async def _until_eof(reader: asyncio.StreamReader) -> None:
    try:
        while await reader.read(4096):
            pass
    except ConnectionResetError:
        pass  # cut: as closed as a socket gets


async def test_a_peer_that_never_answers_the_close_loses_its_socket_when_stop_returns() -> None:
    server = CardroomServer(ServerConfig(port=0))
    await server.start()
    reader, writer = await _silent_websocket(server.port)
    began = time.monotonic()
    await server.stop(timeout=1.0)
    took = time.monotonic() - began
    try:
        # the server's end is closed by now: the client reads its end of the stream at once
        # (before the fix it stayed open until websockets' close_timeout, 10 s after the close)
        await asyncio.wait_for(_until_eof(reader), 0.5)
    finally:
        writer.close()
    assert took < 3.0  # the stop's own bound, and a second to cut what was left
