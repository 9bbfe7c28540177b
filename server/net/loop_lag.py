"""How late the server's event loop runs what is due: one timer chained to itself.

Every ``interval`` seconds a callback is due; how much later than due it ran
(``perf_counter``) is observed in ``cardroom_loop_lag_seconds``. A frame that arrives while
the loop is busy waits about as long before it is read, and the server's own
``cardroom_action_to_view_seconds`` (from reading an action to queueing its views) cannot see
that wait: the two together tell the server's share of a client's latency from the
client's. One timer handle, no task: at the default
100 a second, 3.5 µs of CPU each (the loop turn included). uvloop's timers run on a clock of
whole milliseconds, so a lag under about 1 ms is the clock's, not the loop's.
"""

from __future__ import annotations

import asyncio
import time

from server.metrics import Histogram


class LoopLag:
    """Observe the loop's lateness into ``histogram`` every ``interval`` seconds (0: never)."""

    def __init__(self, interval: float, histogram: Histogram) -> None:
        self.interval = interval
        self.histogram = histogram
        self._handle: asyncio.TimerHandle | None = None
        self._due = 0.0

    def start(self) -> None:
        if self.interval > 0 and self._handle is None:
            self._schedule()

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _schedule(self) -> None:
        self._due = time.perf_counter() + self.interval
        self._handle = asyncio.get_running_loop().call_later(self.interval, self._tick)

    def _tick(self) -> None:
        self.histogram.observe(max(0.0, time.perf_counter() - self._due))
        self._schedule()
