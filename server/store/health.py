"""Whether the room store can be reached: for ``/healthz``, and for rooms waiting to retry.

Any store call that meets :class:`~server.store.base.StoreUnavailable` marks the store down at
once (:meth:`StoreHealth.down`); while it is down a background task asks the store every
``interval`` seconds and marks it up again as soon as it answers. Nothing needs restarting.

:meth:`StoreHealth.check` (``/healthz``) answers within ``probe`` seconds whatever the store
does: a store that accepts connections but does not answer (a Redis stopped, or stalled on a
full disk) is called down when its ping is late, and while it is down the flag is answered at
once (the watcher asks the store meanwhile), so a load balancer's probe never hangs on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from server.store.base import RoomStore

log = logging.getLogger(__name__)


class StoreHealth:
    """The store's health as one flag, watched in the background."""

    def __init__(self, store: RoomStore, interval: float = 0.5, probe: float = 0.5) -> None:
        self.store = store
        self.interval = interval
        self.probe = probe
        self._up = asyncio.Event()
        self._up.set()
        self._task: asyncio.Task[None] | None = None

    @property
    def ok(self) -> bool:
        return self._up.is_set()

    def down(self) -> None:
        """A call just failed: report degraded and start watching for the store's return."""
        if self._up.is_set():
            log.warning("the room store is unavailable; refusing what cannot be saved")
            self._up.clear()
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._watch(), name="store-health")

    async def wait_up(self) -> None:
        """Return once the store answers again (at once if it does now)."""
        await self._up.wait()

    async def check(self) -> bool:
        """Ask the store now (if it is not known to be down); ``True`` if it answered within
        ``probe`` seconds."""
        if not self._up.is_set():
            self.down()  # (the watcher is running: this only makes sure of it)
            return False
        try:
            answered = await asyncio.wait_for(self.store.available(), self.probe)
        except TimeoutError:
            answered = False
        if answered:
            if not self._up.is_set():
                log.warning("the room store is back")
            self._up.set()
            return True
        self.down()
        return False

    async def _watch(self) -> None:
        while not self._up.is_set():
            await asyncio.sleep(self.interval)
            if await self.store.available():
                log.warning("the room store is back")
                self._up.set()

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
