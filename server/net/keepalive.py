"""Keepalive pings for every connection from one task.

websockets' own keepalive runs a task per connection (its coroutine, the sleep's future and
timer handle: about 1.5 KB of every idle connection, measured with tracemalloc).
:class:`Keepalive` does the same work for all of them in one sweep every
``interval`` seconds: a connection with no ping waiting is pinged; one whose ping has waited
``timeout`` seconds or more for its pong is closed with 1011 at once, as websockets' keepalive
closes it. The pings waiting are websockets' own (``pending_pings``, where its ``ping()`` puts
them and a pong takes them away), so nothing per connection lives here between sweeps.

A connection that sent a message since the last sweep (``DirectConnection.heard``) is alive and
is not pinged: at 10,000 players who all act within the interval, the sweep's 500 pings a
second (each a frame out, a pong in, a future) were work that told nothing. A connection that
goes quiet is pinged at the next sweep, so a dead peer is still closed within two intervals and
the timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable

from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode
from websockets.protocol import State

from server.net.receive import DirectConnection

log = logging.getLogger(__name__)

#: Connections pinged between two turns of the event loop: a sweep of tens of thousands of
#: connections leaves room for frames to be handled meanwhile.
PER_TURN = 256


class Keepalive:
    """Ping every open connection of ``connections()`` every ``interval`` seconds; close
    those whose pong has not come ``timeout`` seconds after their ping.

    A sweep walks ``connections()`` across several turns of the loop, so it must not be a
    live view of what changes meanwhile: a generator over a snapshot, say."""

    def __init__(
        self,
        interval: float,
        timeout: float,
        connections: Callable[[], Iterable[DirectConnection]],
    ) -> None:
        self.interval = interval
        self.timeout = timeout
        self.connections = connections
        self.closed = 0  # connections closed for a missing pong, in all
        self.pinged = 0  # pings sent, in all
        self.spared = 0  # pings not sent: the connection had sent a message since the last sweep

    async def run(self) -> None:
        """Sweep every ``interval`` seconds, until cancelled."""
        while True:
            await asyncio.sleep(self.interval)
            await self.sweep()

    async def sweep(self) -> None:
        """One pass over every connection: ping it, or close it if its pong is overdue."""
        now = asyncio.get_running_loop().time()  # the clock websockets stamps its pings with
        # drawn as the sweep goes, PER_TURN between two turns: a list of all of them first was
        # one loop turn of 4-6 ms at 10,000 connections, delaying every frame waiting behind it
        for n, ws in enumerate(self.connections(), 1):
            if ws.protocol.state is not State.OPEN:
                continue
            waiting = ws.pending_pings
            if waiting:
                sent = min(stamp for _, stamp in waiting.values())
                if now - sent >= self.timeout:
                    self.closed += 1
                    log.info("connection %s: no pong in %.0f s; closing it", ws.id, self.timeout)
                    ws.fail(CloseCode.INTERNAL_ERROR, "keepalive ping timeout")
            elif ws.heard:  # it spoke since the last sweep: alive without a ping
                ws.heard = False
                self.spared += 1
            else:
                self.pinged += 1
                with contextlib.suppress(ConnectionClosed):
                    await ws.ping()  # its pong is awaited in pending_pings, not here
            if n % PER_TURN == 0:
                await asyncio.sleep(0)
