"""Incoming frames without a task wake-up per frame.

websockets' asyncio connection queues each data frame in an assembler, from which the
connection's handler task reads it (a future set, a task woken, a coroutine resumed, for every
frame). :class:`DirectConnection` keeps websockets for everything else (the handshake, size
limits, UTF-8 checks' close codes, ping/pong, fragments, the closing handshake) but hands each
complete data message straight to a callback from ``data_received``, in order.

Once the connection is open with no extension, the usual frame (one whole, masked, unfragmented
text or binary frame of at most ``max_size`` bytes) is also read here rather than by websockets'
generator-based parser: every other frame is handed to websockets whole, at a frame boundary,
and anything unusual (a longer or unmasked frame, reserved bits) hands it the rest of the
stream for good, so its checks and close codes apply unchanged.

websockets has no public way to do this (its asyncio API hands messages to a task by design), so
this module reads members that are not its public API: the Sans-I/O protocol's size limits,
``current_size``, ``reader.buffer`` and its parser generator (walked through ``gi_yieldfrom``
to ``at_eof``), and the asyncio connection's ``data_received``, ``process_event`` and
``send_context``. :data:`CHECKED_WEBSOCKETS` lists the releases this was checked against (15.x
lacks ``max_message_size``: its first frame crashed ``data_received``); pyproject.toml pins that
range and ``tests/net/test_receive_version.py`` fails on any other release. On an unchecked
release every frame is left to websockets (slower, still correct) and a warning says so.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Callable
from typing import Any, cast

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.frames import CloseCode, Frame, Opcode
from websockets.protocol import Event, State
from websockets.version import version as websockets_version

try:
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover  # websockets built without its C extension
    from websockets.utils import apply_mask

#: The headers an open connection's request keeps: none (one empty mapping shared by all).
_NO_HEADERS = Headers()

#: Fragments of one message at most (as websockets' own assembler allows).
MAX_FRAGMENTS = 1024

#: websockets releases whose internals (module docstring) this module was checked against, by
#: tests/net/test_direct_frames.py, test_framing.py, test_frame_order.py, test_compression.py
#: and test_bad_input.py run on each. A new release: run them on it, then add it here.
CHECKED_WEBSOCKETS = ("16.0", "16.1", "16.1.1", "17.0", "17.0.1", "17.1", "17.2", "17.3", "17.4")
#: Whether the usual frames may be read here: only on a checked release.
DIRECT = websockets_version in CHECKED_WEBSOCKETS
if not DIRECT:  # pragma: no cover  # the pin in pyproject.toml keeps other releases out
    logging.getLogger(__name__).warning(
        "websockets %s is not a release server/net/receive.py was checked against (%s): "
        "websockets reads every frame",
        websockets_version,
        ", ".join(CHECKED_WEBSOCKETS),
    )


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
        self._direct = False  # frames are read here (see the module docstring)
        # the start of a frame not yet complete, and its whole length once its header is in:
        # later pieces are appended in place until it is, so a frame that comes a byte at a
        # time costs time in proportion to its length, not to the square of it
        self._held = bytearray()
        self._need = 0
        self.held_copied = 0  # bytes copied into (or moved within) ``_held``, in all
        # a message came since the keepalive's last sweep: the peer is alive, no ping needed
        self.heard = False
        # websockets only appends to, removes from and iterates its drain waiters, nearly
        # always none: an empty list costs 56 bytes where an empty deque holds a 64-slot
        # block (760 bytes a connection, measured with tracemalloc)
        self.drain_waiters = cast("collections.deque[asyncio.Future[None]]", [])

    def deliver_to(self, callback: Callable[[str | bytes], None]) -> None:
        """From now on, call ``callback`` with each message (first those already received)."""
        self._deliver = callback
        self.response = None  # sent and never read again: its headers need not live on
        if self.request is not None:  # read by then (admission, the path): ~1.4 KB of headers
            # in place: websockets' parser generator holds the same request as long as the
            # connection lives
            self.request.headers = _NO_HEADERS
        # data frames go to the callback (process_event), never to websockets' assembler:
        # its frame queue's empty deque (another 760 bytes) is replaced by an empty tuple
        self.recv_messages.frames.queue = cast("collections.deque[Frame]", ())
        early, self._early = self._early, []
        for message in early:
            callback(message)
        self._direct = DIRECT and not self.protocol.extensions and _at_frame_boundary(self.protocol)

    def release(self) -> None:
        """Once closed: drop the references that make the connection a cycle (the server's
        callback, which holds the server's connection, which holds this; the parser
        generator, whose frame holds the protocol), so that reference counting frees it the
        moment the server lets go, with no collection of the whole heap (hundreds of
        milliseconds at thousands of connections)."""
        if self.protocol.state is not State.CLOSED:
            return
        self._deliver = None
        self._early = []
        self._parts = []
        # after the close, receive_eof returns before stepping it (idempotent) and no data
        # comes: a closed generator's frame is gone
        self.protocol.parser.close()

    @property
    def reads_frames(self) -> bool:
        """Whether the usual frames are read here (else websockets reads them all)."""
        return self._direct

    def data_received(self, data: bytes) -> None:
        if not self._direct:
            super().data_received(data)
            return
        protocol = self.protocol
        held = self._held
        chunk: bytes | bytearray = data  # whole frames are read from ``data`` itself
        if held:
            held += data
            self.held_copied += len(data)
            if len(held) < self._need and protocol.state is State.OPEN:
                return  # the frame is not complete yet
            chunk = held
        limit = protocol.max_message_size
        if protocol.max_fragment_size is not None:
            limit = min(limit or protocol.max_fragment_size, protocol.max_fragment_size)
        pos, end, need = 0, len(chunk), 0
        while pos < end:
            if protocol.state is not State.OPEN or end - pos < 2:
                break
            first, second = chunk[pos], chunk[pos + 1]
            size = second & 0x7F
            head = 6  # two bytes, then the mask
            if size == 126:
                if end - pos < 4:
                    break
                size = int.from_bytes(chunk[pos + 2 : pos + 4], "big")
                head = 8
            if not second & 0x80 or size == 127 or first & 0x70 or (limit and size > limit):
                self._direct = False  # unusual: websockets reads the rest (and refuses it)
                self._hand_over(chunk, pos)
                return
            stop = pos + head + size
            if stop > end:
                need = stop - pos
                break
            if (first == 0x81 or first == 0x82) and protocol.current_size is None:
                payload = apply_mask(chunk[pos + head : stop], chunk[pos + head - 4 : pos + head])
                self._message(payload, first == 0x82)
            else:  # a control frame or a fragment: websockets' own handling, one whole frame
                super().data_received(bytes(chunk[pos:stop]))
            pos = stop
        if pos < end:
            self._keep(chunk, pos, need)
        elif chunk is held:
            held.clear()

    def _keep(self, chunk: bytes | bytearray, pos: int, need: int) -> None:
        """Hold ``chunk[pos:]``, the start of a frame ``need`` bytes long (0: its header is not
        all in yet): copied in once, or moved once to the front of what is held."""
        if self.protocol.state is not State.OPEN:
            self._hand_over(chunk, pos)
            return
        held = self._held
        if chunk is not held:
            held += memoryview(chunk)[pos:]
            self.held_copied += len(chunk) - pos
        elif pos:
            del held[:pos]
            self.held_copied += len(chunk)  # (what is left of it)
        self._need = need

    def _hand_over(self, chunk: bytes | bytearray, pos: int) -> None:
        """Give websockets' parser the stream from ``chunk[pos:]`` on."""
        rest = bytes(chunk[pos:])
        self._held.clear()
        super().data_received(rest)

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
        self.heard = True
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

    def fail(self, code: CloseCode, reason: str) -> None:
        """Send a close frame and drop the connection without waiting for the peer's (as
        websockets' own keepalive does when a pong is overdue); nothing more is delivered."""
        self._fail(code, reason)

    def _fail(self, code: CloseCode, reason: str) -> None:
        """Close as websockets' own reader does for the same fault; nothing more is delivered."""
        self._failed = True
        self._parts = []

        async def fail() -> None:
            async with self.send_context():
                self.protocol.fail(code, reason)

        task = asyncio.ensure_future(fail())
        task.add_done_callback(_ignore_result)


def _at_frame_boundary(protocol: Any) -> bool:
    """Whether websockets' parser waits for the start of a frame (not in the middle of one)."""
    if protocol.state is not State.OPEN or protocol.reader.buffer:
        return False
    waiting = protocol.parser
    while getattr(waiting, "gi_yieldfrom", None) is not None:
        waiting = waiting.gi_yieldfrom
    return getattr(waiting, "__name__", "") == "at_eof"


def _ignore_result(task: asyncio.Future[None]) -> None:
    if not task.cancelled():
        task.exception()  # a closed connection raises ConnectionClosed here: expected
