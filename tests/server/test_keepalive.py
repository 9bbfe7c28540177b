"""Keepalive from one sweep (server/net/keepalive.py): every connection is pinged, one that
answers stays open however long it is idle, one that never answers its ping is closed with
1011, as websockets' own per-connection keepalive did."""

from __future__ import annotations

import asyncio
import base64
import os

from websockets.asyncio.client import connect

from server.net.server import CardroomServer, ServerConfig
from tests.support.http import http_get


async def _read_all(reader: asyncio.StreamReader) -> bytes:
    data = b""
    try:
        while chunk := await reader.read(4096):
            data += chunk
    except ConnectionResetError:
        pass
    return data


async def test_a_silent_peer_is_closed_and_an_answering_one_stays() -> None:
    config = ServerConfig(port=0, ping_interval=0.1, ping_timeout=0.2, hello_timeout=30.0)
    # a websockets client answers every ping by itself
    async with CardroomServer(config) as server, connect(server.url) as answering:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            (
                f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        head = await reader.readuntil(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101")
        # it reads and never answers: pinged, then closed with 1011 (0x03F3)
        data = await asyncio.wait_for(_read_all(reader), 5)
        writer.close()
        assert data.startswith(b"\x89\x04")  # an unmasked ping with its 4 bytes
        assert b"\x88" in data and b"\x03\xf3keepalive ping timeout" in data
        assert server.keepalive.closed == 1
        await answering.send('{"type": "hello", "id": 1, "protocol": 1}')
        welcome = await asyncio.wait_for(answering.recv(), 5)
        assert '"welcome"' in str(welcome)  # still open after many sweeps
        # its pongs answered every sweep's ping: only the silent peer was ever closed
        assert server.keepalive.closed == 1
        _, metrics = await asyncio.to_thread(http_get, server.port, "/metrics")
        assert "cardroom_keepalive_closed 1.0" in metrics.splitlines()
