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
from collections.abc import Callable
from typing import cast

from websockets.client import ClientProtocol
from websockets.exceptions import InvalidHandshake
from websockets.extensions.permessage_deflate import enable_client_permessage_deflate
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import parse_uri


class WsClient(asyncio.Protocol):
    """One connection; ``on_text(data, now)`` gets each text frame's UTF-8 bytes."""

    def __init__(self, url: str, compression: str | None, on_text: Callable[[bytes], None]) -> None:
        extensions = enable_client_permessage_deflate(None) if compression == "deflate" else None
        self.uri = parse_uri(url)
        self.protocol = ClientProtocol(self.uri, extensions=extensions, max_size=2**20)
        self.on_text = on_text
        loop = asyncio.get_running_loop()
        self.opened: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        self.transport: asyncio.Transport | None = None

    @classmethod
    async def connect(
        cls, url: str, compression: str | None, on_text: Callable[[bytes], None], timeout: float
    ) -> WsClient:
        """Open a connection to a ``ws://127.0.0.1:PORT/...`` URL and complete the handshake."""
        client = cls(url, compression, on_text)
        await client.start(timeout)
        return client

    async def start(self, timeout: float) -> None:
        """Connect and complete the handshake (frames may reach ``on_text`` before this ends)."""
        uri = self.uri
        async with asyncio.timeout(timeout):
            await asyncio.get_running_loop().create_connection(lambda: self, uri.host, uri.port)
            await self.opened

    @property
    def open(self) -> bool:
        return self.protocol.state is State.OPEN

    @property
    def compressed(self) -> bool:
        """Whether permessage-deflate was negotiated."""
        return bool(self.protocol.extensions)

    def send_text(self, text: str) -> None:
        if self.protocol.state is State.OPEN:
            self.protocol.send_text(text.encode())
            self._flush()

    async def close(self, timeout: float = 5.0) -> None:
        if self.protocol.state is State.OPEN:
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
        protocol = self.protocol
        protocol.receive_data(data)
        for event in protocol.events_received():
            if isinstance(event, Frame):
                if event.opcode is Opcode.TEXT:
                    self.on_text(bytes(event.data))
            elif isinstance(event, Response) and not self.opened.done():
                if protocol.state is State.OPEN:
                    self.opened.set_result(None)
                else:
                    error = protocol.handshake_exc or InvalidHandshake("handshake refused")
                    self.opened.set_exception(error)
        self._flush()
        if protocol.close_expected() and self.transport is not None:
            self.transport.close()

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
