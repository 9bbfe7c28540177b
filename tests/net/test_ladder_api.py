"""``/api/ladder``'s answer (server/net/api.py) on real ratings: bounded to its best identities
with the anchors always among them, cached per game for seconds (a crowd costs one read of the
store per interval), a bad game refused and never cached."""

from __future__ import annotations

import orjson

from server.net.api import LADDER_ROWS, LadderCache
from server.store.ratings import MemoryRatings, Place, RatedGame


async def rated(store: MemoryRatings, key: str, *ranked: str) -> None:
    places = tuple(Place(p, p, rank, seat) for seat, (rank, p) in enumerate(enumerate(ranked, 1)))
    await store.record(RatedGame(key, "shithead", places, "ROOMA", 0, 0.0, ladder=True))


async def test_the_answer_is_bounded_and_holds_the_anchors() -> None:
    store = MemoryRatings()
    for i in range(LADDER_ROWS + 20):  # more bots than the page lists
        await rated(store, f"g{i}", f"{i:020x}", f"{i + 1000:020x}")
    status, body = await LadderCache().get(store, "game=shithead")
    page = orjson.loads(body)
    assert status == 200 and page["players"] == 2 * (LADDER_ROWS + 20)
    assert len(page["ladder"]) == LADDER_ROWS + 3  # the best, then the anchors not among them
    assert sorted(r["anchor"] for r in page["ladder"] if r["anchor"]) == [
        "basic",
        "expert",
        "strong",
    ]
    shown = [r["rating"] for r in page["ladder"]]
    assert shown == sorted(shown, reverse=True)
    assert len(page["games"]) <= 20


async def test_a_crowd_reads_the_store_once_an_interval() -> None:
    store = MemoryRatings()
    await rated(store, "a", "0" * 20, "bot:basic")
    cache = LadderCache(ttl=60.0)
    first = await cache.get(store, "game=shithead")
    await rated(store, "b", "1" * 20, "bot:basic")  # within the interval: not seen yet
    for _ in range(50):
        assert await cache.get(store, "game=shithead") == first
    assert cache.reads == 1
    await cache.get(store, "game=sheepshead")  # each game its own
    assert cache.reads == 2
    fresh = LadderCache(ttl=0.0)  # past the interval: read again, the new game shown
    page = orjson.loads((await fresh.get(store, "game=shithead"))[1])
    assert len(page["games"]) == 2 and fresh.reads == 1


async def test_a_bad_game_is_refused_and_not_cached() -> None:
    cache = LadderCache()
    for query in ("game=poker", "game=", "game=ladder:shithead"):
        status, body = await cache.get(MemoryRatings(), query)
        assert status == 400 and orjson.loads(body)["error"] == "bad_game"
    assert cache.reads == 0
