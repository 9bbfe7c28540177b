"""Bots that search think in a worker process, so a 100 ms decision never stalls the server's
event loop (a thread would hold the GIL). Fast levels run inline in the room's actor.

The worker keeps one bot per ``(level, game, seed)``, as the actor does for inline bots, so a
bot's memory lasts across its decisions.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from server.bots.base import Bot, make_bot
from server.rules.base import Action

#: Levels whose decisions go to the worker process.
SLOW_LEVELS = frozenset({"strong"})

_worker_bots: dict[tuple[str, str, int], Bot] = {}


def _choose(level: str, game: str, seed: int, view: dict[str, Any]) -> Action:
    """Runs in the worker process."""
    import server.bots  # noqa: F401 - registers every level

    key = (level, game, seed)
    bot = _worker_bots.get(key)
    if bot is None:
        bot = _worker_bots[key] = make_bot(level, game, seed=seed)
    return bot.choose(view)


class BotPool:
    """A lazily started pool of worker processes for slow bots."""

    def __init__(self, workers: int = 1) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None

    async def choose(self, level: str, game: str, seed: int, view: dict[str, Any]) -> Action:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn")
            )
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, _choose, level, game, seed, view)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
