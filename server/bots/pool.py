"""Bots that search think in a worker process, so a 100 ms decision never stalls the server's
event loop (a thread would hold the GIL). Fast levels run inline in the room's actor.

The worker keeps one bot per ``(level, game, seed)``, as the actor does for inline bots, so a
bot's memory lasts across its decisions.

No bot stalls a room: each search stops at its own deadline with its best move so far, and if
the worker's answer still has not come (a busy or just-started worker, a queue of decisions from
other rooms) when :meth:`BotPool.choose`'s watchdog fires, the ``basic`` bot answers inline.

Hints (:meth:`BotPool.advise`) ask the ``strong`` bot the same way, under the same watchdog, but
from a fresh bot each time: a hint is seeded by its caller (room, seat, state version) so the
same question always gets the same answer, and it leaves nothing behind in the worker.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from server.bots.base import EXPERT_SECONDS, SAFETY_SECONDS, Bot, make_bot
from server.rules.base import Action

log = logging.getLogger(__name__)

#: Levels whose decisions go to the worker process.
SLOW_LEVELS = frozenset({"strong", "expert"})
#: The longest a slow level's own deadline lets it think (seconds).
THINK_SECONDS = {"strong": SAFETY_SECONDS, "expert": EXPERT_SECONDS}
#: Extra time the watchdog allows beyond that for the queue and the process round trip.
GRACE_SECONDS = 1.0
#: The level that answers when the watchdog fires (fast, inline).
FALLBACK_LEVEL = "basic"
#: The level whose choice a hint suggests.
HINT_LEVEL = "strong"

_worker_bots: dict[tuple[str, str, int], Bot] = {}


def _choose(level: str, game: str, seed: int, view: dict[str, Any]) -> Action:
    """Runs in the worker process."""
    import server.bots  # noqa: F401 - registers every level

    key = (level, game, seed)
    bot = _worker_bots.get(key)
    if bot is None:
        bot = _worker_bots[key] = make_bot(level, game, seed=seed)
    return bot.choose(view)


def _advise(game: str, seed: int, view: dict[str, Any]) -> Action:
    """Runs in the worker process: a fresh ``strong`` bot's choice (it remembers nothing)."""
    import server.bots  # noqa: F401 - registers every level

    return make_bot(HINT_LEVEL, game, seed=seed).choose(view)


def _warm() -> None:
    """Runs in a new worker: import the bots before the first decision needs them."""
    import server.bots  # noqa: F401


class BotPool:
    """A lazily started pool of worker processes for slow bots."""

    def __init__(
        self,
        workers: int = 1,
        grace: float = GRACE_SECONDS,
        think: Mapping[str, float] = THINK_SECONDS,
    ) -> None:
        self.workers = workers
        self.grace = grace
        self.think = think
        self._pool: ProcessPoolExecutor | None = None

    def timeout(self, level: str) -> float:
        """How long :meth:`choose` waits for the worker before the fallback answers."""
        return self.think.get(level, SAFETY_SECONDS) + self.grace

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=_warm
            )
        return self._pool

    async def choose(self, level: str, game: str, seed: int, view: dict[str, Any]) -> Action:
        """The decision of the ``level`` bot seeded ``seed`` for ``view``, or, if the worker has
        not answered within :meth:`timeout`, the ``basic`` bot's."""
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._executor(), _choose, level, game, seed, view)
        try:
            return await asyncio.wait_for(future, self.timeout(level))
        except TimeoutError:
            log.warning("%s %s bot overran %.1f s: basic answers", level, game, self.timeout(level))
            return make_bot(FALLBACK_LEVEL, game, seed=seed).choose(view)

    async def advise(self, game: str, seed: int, view: dict[str, Any]) -> tuple[Action, str]:
        """A hint for the seat whose ``view`` this is: the ``strong`` bot's choice (a fresh bot
        seeded ``seed``) and ``"strong"``, or, past the same watchdog as :meth:`choose`, the
        ``basic`` bot's choice and ``"basic"``."""
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._executor(), _advise, game, seed, view)
        try:
            return await asyncio.wait_for(future, self.timeout(HINT_LEVEL)), HINT_LEVEL
        except TimeoutError:
            log.warning("%s hint overran %.1f s: basic answers", game, self.timeout(HINT_LEVEL))
            return make_bot(FALLBACK_LEVEL, game, seed=seed).choose(view), FALLBACK_LEVEL

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
