"""The bots' ladder's ratings, in memory and in Redis (one, and a Cluster): a ladder game moves
the ladder pool only, never the people's; the ladder lists its identities by shown rating with
its last games, both bounded; a player's page holds both pools."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.store.ratings import (
    MAX_LADDER_GAMES,
    MemoryRatings,
    Place,
    RatedGame,
    Rating,
    Ratings,
    pool,
)
from server.store.redis_ratings import RedisRatings
from server.tools.bench.redis_cluster import RedisCluster
from server.tools.bench.redis_server import RedisServer


@pytest.fixture(params=["memory", pytest.param("redis_server", id="redis"), "redis_cluster"])
async def ratings(request: pytest.FixtureRequest) -> AsyncIterator[Ratings]:
    if request.param == "memory":
        store: Ratings = MemoryRatings()
    else:
        server: RedisServer | RedisCluster = request.getfixturevalue(request.param)
        store = RedisRatings(server.url)
    yield store
    await store.close()


def ladder_game(key: str, *ranked: str, ladder: bool = True, at: float = 0.0) -> RatedGame:
    """A Shithead game whose identities ``ranked`` went out in that order."""
    places = tuple(
        Place(p, p.upper(), rank, seat) for seat, (rank, p) in enumerate(enumerate(ranked, start=1))
    )
    return RatedGame(key, "shithead", places, "ROOM" + key[-1], 3, at, ladder=ladder)


async def test_a_ladder_game_moves_the_ladder_pool_only(ratings: Ratings) -> None:
    await ratings.record(ladder_game("g1", "robo", "bot:basic"))
    assert await ratings.rating("shithead", "robo") == Rating()  # the people's: untouched
    moved = await ratings.rating(pool("shithead", True), "robo")
    assert moved.games == 1 and moved.mu > Rating().mu
    page = await ratings.page("robo")
    assert set(page.ratings) == {"ladder:shithead"}
    assert page.recent[0]["game"] == page.history[0]["game"] == "ladder:shithead"
    # and a people's game is on no ladder
    await ratings.record(ladder_game("p1", "ann", "bob", ladder=False))
    table = await ratings.ladder("shithead", 10)
    assert {r.player for r in table.rows} == {"robo", "bot:basic"}
    assert (await ratings.ladder("sheepshead", 10)).rows == []


async def test_the_ladder_lists_by_shown_rating_with_its_last_games(ratings: Ratings) -> None:
    for i in range(3):
        await ratings.record(ladder_game(f"a{i}", "ace", "mid", "bot:strong", at=100.0 + i))
    table = await ratings.ladder("shithead", 10)
    assert [r.player for r in table.rows] == ["ace", "mid", "bot:strong"]
    assert table.rows[0].name == "ACE" and table.rows[0].rating.games == 3
    shown = [r.rating.shown for r in table.rows]
    assert shown == sorted(shown, reverse=True)
    assert table.players == 3
    newest = table.games[0]
    assert newest["at"] == 102 and newest["room"] == "ROOM2" and newest["index"] == 3
    assert [(s["player"], s["place"]) for s in newest["seats"]] == [
        ("ace", 1),
        ("mid", 2),
        ("bot:strong", 3),
    ]
    assert newest["seats"][0]["rating"] == table.rows[0].rating.shown
    assert [r.player for r in (await ratings.ladder("shithead", 2)).rows] == ["ace", "mid"]


async def test_the_ladder_keeps_a_bounded_number_of_games(ratings: Ratings) -> None:
    for i in range(MAX_LADDER_GAMES + 5):
        await ratings.record(ladder_game(f"n{i}", "one", "two", at=float(i)))
    table = await ratings.ladder("shithead", 10)
    assert len(table.games) == MAX_LADDER_GAMES
    assert table.games[0]["at"] == MAX_LADDER_GAMES + 4  # newest first


async def test_a_ladder_game_recorded_again_counts_once(ratings: Ratings) -> None:
    await ratings.record(ladder_game("same", "one", "two"))
    await ratings.record(ladder_game("same", "one", "two"))
    table = await ratings.ladder("shithead", 10)
    assert len(table.games) == 1 and table.rows[0].rating.games == 1
