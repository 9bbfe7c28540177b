"""Whether the room store can be reached: for ``/healthz``, and for rooms waiting to retry.

Any store call that meets :class:`~server.store.base.StoreUnavailable` marks the store down at
once (:meth:`StoreHealth.down`); while it is down a background task asks the store every
``interval`` seconds and marks it up again as soon as it answers. Nothing needs restarting.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from server.store.base import RoomStore

log = logging.getLogger(__name__)


class StoreHealth:
    """The store's health as one flag, watched in the background."""

    def __init__(self, store: RoomStore, interval: float = 0.5) -> None:
        self.store = store
        self.interval = interval
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
        """Ask the store now; ``True`` if it answered."""
        if await self.store.available():
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
