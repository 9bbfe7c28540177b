"""A lean WebSocket client for the load tester: websockets' own sans-I/O ``ClientProtocol`` under
an asyncio ``Protocol``, with a callback per text frame.

The load generator must not be the bottleneck: with one CPU it receives every frame of a
hundred clients (six per action), so each frame is handed to its callback right in
``data_received``, with no task, queue or future per frame as in websockets' asyncio client.
The protocol itself (handshake, permessage-deflate as websockets' default client offers it,
masking, pings, closing) is websockets'.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import zlib
from collections.abc import Callable, Sequence
from typing import cast

from websockets.client import ClientProtocol
from websockets.exceptions import InvalidHandshake
from websockets.extensions.base import Extension
from websockets.extensions.permessage_deflate import (
    PerMessageDeflate,
    enable_client_permessage_deflate,
)
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import WebSocketURI, parse_uri


class WsClient(asyncio.Protocol):
    """One connection; ``on_text(data, now)`` gets each text frame's UTF-8 bytes."""

    def __init__(
        self,
        url: str,
        compression: str | None,
        on_text: Callable[[bytes], None],
        local_addr: tuple[str, int] | None = None,
    ) -> None:
        self.local_addr = local_addr  # the source address to bind (None: the system's choice)
        extensions = enable_client_permessage_deflate(None) if compression == "deflate" else None
        self.url = url
        self.uri = parse_uri(url)
        self.protocol = ClientProtocol(self.uri, extensions=extensions, max_size=2**20)
        self.on_text = on_text
        loop = asyncio.get_running_loop()
        self.opened: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        self.transport: asyncio.Transport | None = None
        self._frames: Frames | None = None  # the frame reader and writer once open
        self._pending = b""

    @classmethod
    async def connect(
        cls,
        url: str,
        compression: str | None,
        on_text: Callable[[bytes], None],
        timeout: float,
        local_addr: tuple[str, int] | None = None,
    ) -> WsClient:
        """Open a connection to a ``ws://127.0.0.1:PORT/...`` URL and complete the handshake."""
        client = cls(url, compression, on_text, local_addr)
        await client.start(timeout)
        return client

    async def start(self, timeout: float) -> None:
        """Connect and complete the handshake (frames may reach ``on_text`` before this ends)."""
        uri = self.uri
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(timeout):
            if self.local_addr is None:
                await loop.create_connection(lambda: self, uri.host, uri.port)
            else:
                await loop.create_connection(lambda: self, sock=await _bound(uri, self.local_addr))
            await self.opened

    @property
    def open(self) -> bool:
        return self.protocol.state is State.OPEN

    @property
    def compressed(self) -> bool:
        """Whether permessage-deflate was negotiated."""
        return bool(self.protocol.extensions)

    def send_text(self, text: str) -> None:
        if self.protocol.state is not State.OPEN or self.transport is None:
            return
        if self._frames is None:
            self.protocol.send_text(text.encode())
            self._flush()
        else:
            self.transport.write(self._frames.text(text.encode()))

    async def close(self, timeout: float = 5.0) -> None:
        if self.protocol.state is State.OPEN:
            if self._frames is not None and self.transport is not None:
                self.transport.write(self._frames.close())
                self.transport.close()
            else:
                self.protocol.send_close()
                self._flush()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.closed), timeout)
        if self.transport is not None:
            self.transport.close()

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass
        self.protocol.send_request(self.protocol.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        frames = self._frames
        if frames is not None:  # open: frames read here, not through websockets' reader
            for text in frames.feed(data):
                self.on_text(text)
            if frames.reply and self.transport is not None:
                self.transport.write(frames.reply)
                frames.reply = b""
            if frames.closed and self.transport is not None:
                self.transport.close()
            return
        protocol = self.protocol
        protocol.receive_data(data)
        for event in protocol.events_received():
            if isinstance(event, Frame):
                if event.opcode is Opcode.TEXT:
                    self.on_text(bytes(event.data))
            elif isinstance(event, Response) and not self.opened.done():
                if protocol.state is State.OPEN:
                    self.opened.set_result(None)
                    self._frames = Frames(protocol.extensions)
                    # bytes of a next frame already buffered by websockets' reader move over
                    buffered = getattr(getattr(protocol, "reader", None), "buffer", b"")
                    self._pending = bytes(buffered)
                else:
                    error = protocol.handshake_exc or InvalidHandshake("handshake refused")
                    self.opened.set_exception(error)
        self._flush()
        if protocol.close_expected() and self.transport is not None:
            self.transport.close()
        if self._pending:
            pending, self._pending = self._pending, b""
            self.data_received(pending)

    def connection_lost(self, exc: Exception | None) -> None:
        self.protocol.receive_eof()
        if not self.opened.done():
            self.opened.set_exception(ConnectionError("closed during the handshake"))
        if not self.closed.done():
            self.closed.set_result(None)

    def _flush(self) -> None:
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        for data in self.protocol.data_to_send():
            if data:
                transport.write(data)
            elif transport.can_write_eof():
                transport.write_eof()


async def _bound(uri: WebSocketURI, local_addr: tuple[str, int]) -> socket.socket:
    """A socket bound to ``local_addr`` and connected to the URI's host (an IP address):
    the port is chosen at connect time (``IP_BIND_ADDRESS_NO_PORT``), so one source address
    is not limited to one connection per ephemeral port across all servers."""
    family = socket.AF_INET6 if ":" in local_addr[0] else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setblocking(False)
        no_port = getattr(socket, "IP_BIND_ADDRESS_NO_PORT", 24)
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_IP, no_port, 1)
        sock.bind(local_addr)
        await asyncio.get_running_loop().sock_connect(sock, (uri.host, uri.port))
    except BaseException:
        sock.close()
        raise
    return sock


class Frames:
    """RFC 6455 frames after the handshake, read and written here: the server's frames are
    unmasked text (compressed if permessage-deflate was negotiated), pings and a close; ours
    are masked, and compressed like a browser's when deflate was negotiated."""

    def __init__(self, extensions: Sequence[Extension]) -> None:
        self.buffer = b""
        self.reply = b""  # pongs and the close reply to write
        self.closed = False
        deflate = next((e for e in extensions if isinstance(e, PerMessageDeflate)), None)
        self.inflate = self.deflate = None
        if deflate is not None:
            self.inflate = zlib.decompressobj(wbits=-deflate.remote_max_window_bits)
            self.deflate = zlib.compressobj(wbits=-deflate.local_max_window_bits, memLevel=5)
            self.inflate_fresh = deflate.remote_no_context_takeover
            self.remote_bits = deflate.remote_max_window_bits

    def feed(self, data: bytes) -> list[bytes]:
        """The text frames' payloads completed by ``data``."""
        buf = self.buffer + data if self.buffer else data
        out: list[bytes] = []
        pos, end = 0, len(buf)
        while end - pos >= 2:
            first, second = buf[pos], buf[pos + 1]
            size, head = second & 0x7F, 2
            if size == 126:
                if end - pos < 4:
                    break
                size, head = int.from_bytes(buf[pos + 2 : pos + 4], "big"), 4
            elif size == 127:
                if end - pos < 10:
                    break
                size, head = int.from_bytes(buf[pos + 2 : pos + 10], "big"), 10
            if end - pos < head + size:
                break
            payload = buf[pos + head : pos + head + size]
            pos += head + size
            opcode = first & 0x0F
            if opcode == 1:
                if first & 0x40 and self.inflate is not None:  # RSV1: compressed
                    if self.inflate_fresh:
                        self.inflate = zlib.decompressobj(wbits=-self.remote_bits)
                    payload = self.inflate.decompress(payload + b"\x00\x00\xff\xff")
                out.append(payload)
            elif opcode == 9:
                self.reply += _frame(0xA, payload)  # pong
            elif opcode == 8:
                self.reply += _frame(0x8, payload[:2])
                self.closed = True
        self.buffer = buf[pos:]
        return out

    def text(self, data: bytes) -> bytes:
        if self.deflate is None:
            return _frame(0x1, data)
        packed = self.deflate.compress(data) + self.deflate.flush(zlib.Z_SYNC_FLUSH)
        return _frame(0x1, packed[:-4], rsv1=True)

    def close(self) -> bytes:
        return _frame(0x8, (1000).to_bytes(2, "big"))


def _frame(opcode: int, payload: bytes, rsv1: bool = False) -> bytes:
    """One final masked client frame."""
    size = len(payload)
    first = 0x80 | (0x40 if rsv1 else 0) | opcode
    if size < 126:
        head = bytes((first, 0x80 | size))
    elif size < 65536:
        head = bytes((first, 0x80 | 126)) + size.to_bytes(2, "big")
    else:
        head = bytes((first, 0x80 | 127)) + size.to_bytes(8, "big")
    mask = os.urandom(4)
    if not size:
        return head + mask
    key = (mask * (size // 4 + 1))[:size]
    masked = int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")
    return head + mask + masked.to_bytes(size, "big")
