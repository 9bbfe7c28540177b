"""Replayed games for the history API, kept so each is replayed once: a client asking for
the same game again costs no CPU again.

A game's steps (:func:`~server.store.history.iter_steps`) cost pure-Python CPU, proportional
to the game's length (bounded by SH-6.6 and a Sheepshead hand's 32 cards): about 0.1 ms a
step. :class:`ReplayCache` replays one game at a time on the event loop, handing the loop back
every :data:`STEPS_A_TURN` steps (a few milliseconds: a worker thread would fight the loop for
the GIL instead), shares one replay among the requests that ask for the same game meanwhile,
and keeps the serialised steps in an LRU bounded by bytes. A game is known by a digest of its
stored item, so a room code used again later, or a game stored again, never gets another
game's steps.

>>> import asyncio
>>> from server.rules.shithead import Shithead
>>> from server.store.history import history_item
>>> game = Shithead.new(2, seed=3)
>>> while not game.is_over():
...     seat = game.to_act()[0]
...     _ = game.apply(seat, game.legal_actions(seat)[0])
>>> cache = ReplayCache(max_bytes=1 << 20)
>>> item = history_item(0, game, ["Ann", "Bob"])
>>> first = asyncio.run(cache.steps(item))
>>> asyncio.run(cache.steps(item)) is first, cache.hits, cache.misses
(True, 1, 1)
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from typing import Any

import orjson

from server.store.history import iter_steps


def item_key(item: dict[str, Any]) -> bytes:
    """A digest of a stored game: equal items, equal keys."""
    return hashlib.blake2b(orjson.dumps(item, option=orjson.OPT_SORT_KEYS), digest_size=16).digest()


#: Steps replayed between two yields to the event loop (2 to 3 ms of CPU).
STEPS_A_TURN = 16


async def _replay(item: dict[str, Any]) -> bytes:
    """One game with its ``steps``, as JSON, replayed in slices between the loop's turns."""
    steps = []
    for n, step in enumerate(iter_steps(item), 1):
        steps.append(step)
        if n % STEPS_A_TURN == 0:
            await asyncio.sleep(0)
    return orjson.dumps({**item, "steps": steps})


class ReplayCache:
    """Serialised replays, least recently used dropped first beyond ``max_bytes``."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.size = 0  # bytes held
        self.hits = 0
        self.misses = 0
        self._kept: OrderedDict[bytes, bytes] = OrderedDict()
        self._running: dict[bytes, asyncio.Future[bytes]] = {}
        self._one_at_a_time = asyncio.Lock()  # replays in turn: one game's steps held at once

    def __len__(self) -> int:
        return len(self._kept)

    def cached(self, item: dict[str, Any]) -> bool:
        """Whether ``item``'s steps cost nothing more: kept, or being replayed now."""
        key = item_key(item)
        return key in self._kept or key in self._running

    async def steps(self, item: dict[str, Any]) -> bytes:
        """``item`` with its ``steps``, as JSON: from the cache, or replayed (once).

        Raises:
            KeyError, ValueError, IllegalAction: the stored item does not replay.
        """
        key = item_key(item)
        kept = self._kept.get(key)
        if kept is not None:
            self._kept.move_to_end(key)
            self.hits += 1
            return kept
        running = self._running.get(key)
        if running is not None:  # another request is replaying it: share its answer
            self.hits += 1
            return await asyncio.shield(running)
        self.misses += 1
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._running[key] = future
        try:
            async with self._one_at_a_time:
                body = await _replay(item)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: nobody else may be waiting
            raise
        finally:
            del self._running[key]
        future.set_result(body)
        self._keep(key, body)
        return body

    def _keep(self, key: bytes, body: bytes) -> None:
        if len(body) > self.max_bytes:
            return  # larger than the whole cache: served, not kept
        self._kept[key] = body
        self.size += len(body)
        while self.size > self.max_bytes:
            _, dropped = self._kept.popitem(last=False)
            self.size -= len(dropped)
