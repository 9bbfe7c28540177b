"""Incoming frames without a task wake-up per frame.

websockets' asyncio connection queues each data frame in an assembler, from which the
connection's handler task reads it (a future set, a task woken, a coroutine resumed, for every
frame). :class:`DirectConnection` keeps websockets for everything else (the handshake, parsing
and limits, UTF-8 checks' close codes, ping/pong, the closing handshake) but hands each complete
data message straight to a callback from ``data_received``, in order.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.frames import CloseCode, Frame, Opcode
from websockets.protocol import Event

#: Fragments of one message at most (as websockets' own assembler allows).
MAX_FRAGMENTS = 1024


class DirectConnection(ServerConnection):
    """A server connection whose complete data messages go to :meth:`deliver_to`'s callback
    (text as ``str``, binary as ``bytes``), from ``data_received``, in the order they came."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deliver: Callable[[str | bytes], None] | None = None
        self._early: list[str | bytes] = []  # messages before the handler asked for them
        self._parts: list[bytes] = []  # a fragmented message so far
        self._binary = False
        self._failed = False

    def deliver_to(self, callback: Callable[[str | bytes], None]) -> None:
        """From now on, call ``callback`` with each message (first those already received)."""
        self._deliver = callback
        early, self._early = self._early, []
        for message in early:
            callback(message)

    def process_event(self, event: Event) -> None:
        if not isinstance(event, Frame):  # the handshake's request
            super().process_event(event)
            return
        opcode = event.opcode
        if opcode is Opcode.TEXT or opcode is Opcode.BINARY:
            if event.fin:
                self._message(bytes(event.data), opcode is Opcode.BINARY)
            else:
                self._parts = [bytes(event.data)]
                self._binary = opcode is Opcode.BINARY
        elif opcode is Opcode.CONT:  # websockets checked the sequence and the total size
            self._parts.append(bytes(event.data))
            if event.fin:
                parts, self._parts = self._parts, []
                self._message(b"".join(parts), self._binary)
            elif len(self._parts) > MAX_FRAGMENTS:
                self._fail(CloseCode.MESSAGE_TOO_BIG, "too many fragments")
        else:
            super().process_event(event)  # ping, pong, close: websockets' own handling

    def _message(self, data: bytes, binary: bool) -> None:
        if self._failed:
            return
        message: str | bytes = data
        if not binary:
            try:
                message = data.decode()
            except UnicodeDecodeError as exc:
                self._fail(CloseCode.INVALID_DATA, f"{exc.reason} at position {exc.start}")
                return
        if self._deliver is None:
            self._early.append(message)
        else:
            self._deliver(message)

    def _fail(self, code: CloseCode, reason: str) -> None:
        """Close as websockets' own reader does for the same fault; nothing more is delivered."""
        self._failed = True
        self._parts = []

        async def fail() -> None:
            async with self.send_context():
                self.protocol.fail(code, reason)

        task = asyncio.ensure_future(fail())
        task.add_done_callback(_ignore_result)


def _ignore_result(task: asyncio.Future[None]) -> None:
    if not task.cancelled():
        task.exception()  # a closed connection raises ConnectionClosed here: expected
