"""A WebSocket client with its hands free: the ``websockets`` sans-I/O protocol over a plain
asyncio stream, so the fuzzer decides exactly which bytes go out in which TCP write.

It can pipeline many frames in one write, send binary frames, invalid UTF-8 and malformed
frame headers, stop reading (a slow reader, with a small receive buffer), half-close its side,
or vanish without a close frame. Everything the server sends is collected with the close code.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from websockets.client import ClientProtocol
from websockets.frames import Close, Frame, Opcode
from websockets.protocol import State
from websockets.uri import parse_uri

LOOPBACK = ("127.0.0.1", "::1", "localhost")


def check_loopback(url: str) -> None:
    """Refuse any target but this machine: the fuzzer and the soak send hostile traffic."""
    host = urlsplit(url).hostname
    if host not in LOOPBACK:
        raise SystemExit(f"refusing to send hostile traffic to {host!r}: loopback only")


@dataclass
class Received:
    """What one connection got back."""

    texts: list[str] = field(default_factory=list)
    binary: int = 0
    close_code: int | None = None  # the server's close code (1006: no close frame)
    close_reason: str = ""
    eof: bool = False


class RawSocket:
    """One WebSocket connection driven frame by frame (see the module docstring)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.proto = ClientProtocol(parse_uri(url), max_size=None)
        self.got = Received()
        self.arrived = asyncio.Event()
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._pump: asyncio.Task[None] | None = None
        self.reading = True  # False: a slow reader that leaves its receive buffer full

    async def open(self, *, rcvbuf: int | None = None, timeout: float = 10.0) -> None:
        """Connect and complete the opening handshake, then read in the background."""
        parts = urlsplit(self.url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        if rcvbuf is not None:  # before connecting, so the TCP window stays small
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.setblocking(False)
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(timeout):
            await loop.sock_connect(sock, (host, port))
            self._reader, self._writer = await asyncio.open_connection(sock=sock)
            self.proto.send_request(self.proto.connect())
            await self._flush()
            while self.proto.state.name == "CONNECTING":
                data = await self._reader.read(65536)
                if not data:
                    raise ConnectionError("closed during the handshake")
                self.proto.receive_data(data)
            if self.proto.handshake_exc is not None:
                raise self.proto.handshake_exc
        self._collect()
        self._pump = asyncio.create_task(self._run(), name="raw-socket-reader")

    @property
    def closed(self) -> bool:
        return self.got.close_code is not None or self.got.eof

    # ------------------------------------------------------------------ sending

    async def send(self, frames: list[str | bytes], *, one_write: bool = True) -> None:
        """Send text (``str``) and binary (``bytes``) frames, all in one TCP write by default."""
        chunks: list[bytes] = []
        for frame in frames:
            if self.proto.state is not State.OPEN:
                break  # the server is closing: what was not sent stays unanswered
            if isinstance(frame, str):
                self.proto.send_text(frame.encode())
            else:
                self.proto.send_binary(frame)
            chunks.extend(self.proto.data_to_send())
            if not one_write:
                await self._write(b"".join(chunks))
                chunks = []
        if chunks:
            await self._write(b"".join(chunks))

    async def send_bad_text(self, payload: bytes) -> None:
        """A text frame whose payload is not UTF-8 (the server must close with 1007)."""
        if self.proto.state is not State.OPEN:
            return
        self.proto.send_text(payload)
        await self._flush()

    async def send_bytes(self, data: bytes) -> None:
        """Bytes that are not a well-formed frame (a bad header or a frame cut short)."""
        await self._write(data)

    async def half_close(self) -> None:
        """Shut our sending side (TCP FIN) and keep reading."""
        assert self._writer is not None
        with contextlib.suppress(OSError):
            self._writer.write_eof()

    async def close(self, *, abrupt: bool = False, timeout: float = 3.0) -> None:
        """A clean close handshake, or (``abrupt``) drop the TCP connection without one."""
        if self._writer is None:
            return
        if not abrupt and not self.closed:
            with contextlib.suppress(Exception):
                self.proto.send_close(1000)
                await self._flush()
                self.reading = True
                await self.wait(lambda: self.closed, timeout)
        self._writer.close()
        with contextlib.suppress(Exception):
            await self._writer.wait_closed()
        if self._pump is not None:
            self._pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pump

    # ------------------------------------------------------------------ receiving

    async def wait(self, done: object, timeout: float) -> bool:
        """Wait until ``done()`` is true, the connection closed, or ``timeout``; return done()."""
        assert callable(done)
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not done():
            if self.closed:
                return bool(done())
            left = end - loop.time()
            if left <= 0:
                return False
            self.arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.arrived.wait(), left)
        return True

    async def _run(self) -> None:
        assert self._reader is not None
        try:
            while not self.closed:
                if not self.reading:
                    await asyncio.sleep(0.05)
                    continue
                data = await self._reader.read(65536)
                if not data:
                    self.proto.receive_eof()
                    self.got.eof = True
                else:
                    self.proto.receive_data(data)
                self._collect()
                await self._flush()  # pongs and the closing handshake's reply
        except (OSError, asyncio.IncompleteReadError):
            self.got.eof = True
        finally:
            if self.got.close_code is None and self.got.eof:
                self.got.close_code = self.proto.close_code or 1006
            self.arrived.set()

    def _collect(self) -> None:
        for event in self.proto.events_received():
            if not isinstance(event, Frame):
                continue
            if event.opcode is Opcode.TEXT:
                self.got.texts.append(bytes(event.data).decode("utf-8", "replace"))
            elif event.opcode is Opcode.BINARY:
                self.got.binary += 1
            elif event.opcode is Opcode.CLOSE:
                self.got.close_code = Close.parse(event.data).code if event.data else 1005
                self.got.close_reason = Close.parse(event.data).reason if event.data else ""
        if self.proto.state.name == "CLOSED" and self.got.close_code is None:
            self.got.close_code = self.proto.close_code or 1006
        self.arrived.set()

    async def _flush(self) -> None:
        data = b"".join(self.proto.data_to_send())
        if data:
            await self._write(data)

    async def _write(self, data: bytes) -> None:
        assert self._writer is not None
        if self._writer.is_closing():
            return
        try:
            self._writer.write(data)
            await self._writer.drain()
        except (ConnectionError, OSError):
            self.got.eof = True
