"""WebSockets opened by hand over loopback, so that a test sees every frame the server sends
and decides exactly when its own frames reach the server's socket."""

from __future__ import annotations

import asyncio
import base64
import json
import os
from typing import Any

from websockets.asyncio.client import ClientConnection, connect


async def open_raw(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A WebSocket to ``/ws`` on ``port``, its handshake done."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
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
    return reader, writer


def frame(opcode: int, data: bytes) -> bytes:
    """A masked client frame (payloads under 126 bytes)."""
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
    return bytes([0x80 | opcode, 0x80 | len(data)]) + mask + masked


def text(payload: str) -> bytes:
    return frame(0x1, payload.encode())


async def read_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """The next frame from the server (unmasked): its opcode and payload."""
    first, second = await reader.readexactly(2)
    size = second & 0x7F
    if size == 126:
        size = int.from_bytes(await reader.readexactly(2), "big")
    elif size == 127:
        size = int.from_bytes(await reader.readexactly(8), "big")
    return first & 0x0F, await reader.readexactly(size)


async def greeted(url: str, source: str = "127.0.0.1") -> ClientConnection:
    """A websockets client connection to ``url`` from loopback address ``source``, its hello
    answered."""
    ws = await connect(url, local_addr=(source, 0))
    await ws.send(json.dumps({"type": "hello", "id": 0, "protocol": 1}))
    await ws.recv()
    return ws


async def answer(ws: ClientConnection, msg: dict[str, Any]) -> dict[str, Any]:
    """Send ``msg`` and return the server's frame that answers it (its ``ref``)."""
    await ws.send(json.dumps(msg))
    while True:
        got: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 5))
        if got.get("ref") == msg["id"]:
            return got
