"""Ratings, in memory and in Redis: an update is the openskill library's own, applied once per
game however often (or by however many processes) it is recorded; leavers wait; bounds."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from openskill.models import PlackettLuce

from server.store.ratings import (
    MAX_HISTORY,
    MAX_RECENT,
    MemoryRatings,
    Place,
    RatedGame,
    Rating,
    Ratings,
    ranks_by_order,
    ranks_by_score,
)
from server.store.redis_ratings import RedisRatings
from server.tools.bench.redis_cluster import RedisCluster
from server.tools.bench.redis_server import RedisServer


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", pytest.param("redis_server", id="redis"), "redis_cluster"])
def where(request: pytest.FixtureRequest) -> str | None:
    """``None``: in memory; else a real Redis's URL."""
    if request.param == "memory":
        return None
    server: RedisServer | RedisCluster = request.getfixturevalue(request.param)
    return server.url


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def ratings(where: str | None, clock: Clock) -> AsyncIterator[Ratings]:
    store: Ratings = MemoryRatings(clock) if where is None else RedisRatings(where, clock=clock)
    yield store
    await store.close()


def game(key: str, *ranked: str, left: tuple[str, ...] = (), kind: str = "shithead") -> RatedGame:
    """A game whose players ``ranked`` finished in that order (ties: none)."""
    places = tuple(
        Place(p, p.title(), rank, seat, left=p in left)
        for seat, (rank, p) in enumerate(enumerate(ranked, start=1))
    )
    return RatedGame(key, "shithead" if kind == "shithead" else "sheepshead", places, "ROOM", 0)


async def test_a_known_result_moves_ratings_as_the_library_says(ratings: Ratings) -> None:
    model = PlackettLuce()
    # a first game from the prior, then a second from where the first left them
    await ratings.record(game("g1", "ann", "bob", "cy"))
    first = model.rate([[model.rating()] for _ in range(3)], ranks=[1, 2, 3])
    changes = await ratings.record(game("g2", "cy", "ann", "bob"))
    prior = {"ann": first[0][0], "bob": first[1][0], "cy": first[2][0]}
    teams = [[model.rating(mu=prior[p].mu, sigma=prior[p].sigma)] for p in ("cy", "ann", "bob")]
    second = model.rate(teams, ranks=[1, 2, 3])
    for seat, player in enumerate(("cy", "ann", "bob")):
        want = second[seat][0]
        got = await ratings.rating("shithead", player)
        assert got.mu == pytest.approx(want.mu, abs=1e-9)
        assert got.sigma == pytest.approx(want.sigma, abs=1e-9)
        assert got.games == 2
        assert changes[seat].after == got
        assert got.conservative == pytest.approx(40 * want.ordinal(), abs=1e-6)
    # the other game is untouched, and a newcomer has the prior
    assert await ratings.rating("sheepshead", "ann") == Rating()
    assert await ratings.skill("shithead", "nobody") == 0.0


async def test_ties_tie(ratings: Ratings) -> None:
    places = (Place("a", "A", 1, 0), Place("b", "B", 1, 1), Place("c", "C", 3, 2))
    changes = await ratings.record(RatedGame("t", "sheepshead", places))
    model = PlackettLuce()
    want = model.rate([[model.rating()] for _ in range(3)], ranks=[1, 1, 3])
    assert [c.after.mu for c in changes] == pytest.approx([t[0].mu for t in want])
    assert changes[0].after.mu == pytest.approx(changes[1].after.mu)


async def test_a_game_recorded_again_counts_once(ratings: Ratings) -> None:
    once = await ratings.record(game("same", "ann", "bob"))
    again = await ratings.record(game("same", "ann", "bob"))
    assert again == once
    assert (await ratings.rating("shithead", "ann")).games == 1
    page = await ratings.page("ann")
    assert len(page.history) == 1 and len(page.recent) == 1


async def test_a_leaver_is_last_and_waits(ratings: Ratings, clock: Clock) -> None:
    # Bob left while ahead of Cy: he is ranked last all the same
    changes = await ratings.record(game("left", "ann", "bob", "cy", left=("bob",)), 120.0)
    model = PlackettLuce()
    want = model.rate([[model.rating()] for _ in range(3)], ranks=[1, 3, 2])
    assert [c.after.mu for c in changes] == pytest.approx([t[0].mu for t in want])
    assert changes[1].delta < changes[2].delta
    assert await ratings.wait_before_queue("bob") == pytest.approx(120.0)
    assert await ratings.wait_before_queue("cy") == 0.0
    clock.now += 100
    assert await ratings.wait_before_queue("bob") == pytest.approx(20.0)
    clock.now += 30
    assert await ratings.wait_before_queue("bob") == 0.0
    page = await ratings.page("bob")
    assert page.recent[0]["place"] == 3 and page.recent[0]["left"] is True


async def test_a_bot_seated_twice_learns_from_both_seats(ratings: Ratings) -> None:
    places = (
        Place("ann", "Ann", 1, 0),
        Place("bot:strong", "strong", 2, 1),
        Place("bot:strong", "strong", 3, 2),
    )
    changes = await ratings.record(RatedGame("bots", "shithead", places))
    model = PlackettLuce()
    want = model.rate([[model.rating()] for _ in range(3)], ranks=[1, 2, 3])
    prior = Rating()
    mu = prior.mu + (want[1][0].mu - prior.mu) + (want[2][0].mu - prior.mu)
    sigma = prior.sigma * (want[1][0].sigma / prior.sigma) * (want[2][0].sigma / prior.sigma)
    bot = await ratings.rating("shithead", "bot:strong")
    assert bot.mu == pytest.approx(mu) and bot.sigma == pytest.approx(sigma) and bot.games == 1
    assert changes[1].after == changes[2].after == bot


@pytest.mark.parametrize("server", [pytest.param("redis_server", id="redis"), "redis_cluster"])
async def test_two_processes_record_one_game_once_and_two_games_both(
    server: str, request: pytest.FixtureRequest
) -> None:
    # two stores on one Redis: what two processes are
    url = request.getfixturevalue(server).url
    one, two = RedisRatings(url), RedisRatings(url)
    try:
        same = game("race", "ann", "bob", "cy")
        await asyncio.gather(*(s.record(same) for s in (one, two, one, two)))
        assert (await one.rating("shithead", "ann")).games == 1
        # different games of one player at once: both count, each on the other's result
        games = [game(f"g{i}", "ann", f"p{i}") for i in range(6)]
        await asyncio.gather(*(s.record(g) for s, g in zip([one, two] * 3, games, strict=True)))
        ann = await two.rating("shithead", "ann")
        assert ann.games == 7
        assert len((await two.page("ann")).history) == 7
        # a house bot at forty tables ending at once, on both processes: every game counts
        bots = [game(f"b{i}", "bot:strong", f"q{i}") for i in range(40)]
        await asyncio.gather(*(s.record(g) for s, g in zip([one, two] * 20, bots, strict=True)))
        assert (await one.rating("shithead", "bot:strong")).games == 40
    finally:
        await one.close()
        await two.close()


async def test_history_and_recent_games_are_bounded(ratings: Ratings) -> None:
    for i in range(MAX_HISTORY + 5):
        await ratings.record(game(f"many{i}", "ann", "bob"))
    page = await ratings.page("ann")
    assert len(page.history) == MAX_HISTORY and len(page.recent) == MAX_RECENT
    assert page.ratings["shithead"].games == MAX_HISTORY + 5
    assert page.history[0]["rating"] == page.ratings["shithead"].shown  # newest first
    assert page.name == "Ann"


async def test_memory_ratings_hold_a_bounded_number_of_players() -> None:
    store = MemoryRatings(max_players=10, max_done=5)
    for i in range(40):
        await store.record(game(f"k{i}", f"a{i}", f"b{i}"))
    assert store.tracked() == 10 + 5
    assert (await store.page("a0")).name is None  # the least recently rated went first
    assert (await store.page("b39")).name == "B39"


def test_places_from_the_order_out_and_from_units() -> None:
    # rule SH-6.4: the first out is best, the shithead last
    assert ranks_by_order([1, 3, 0], 2, 4) == [3, 1, 4, 2]
    # rule SH-6.6: stopped at the length cap, those still holding cards share a place
    assert ranks_by_order([3], 0, 4) == [4, 2, 2, 1]
    # rule SS-9.1: a match by its units, equal units tied
    assert ranks_by_score([4, 4, -2, -2, -4]) == [1, 1, 3, 3, 5]
