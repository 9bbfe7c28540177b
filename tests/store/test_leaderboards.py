"""Leaderboards, in memory and in Redis: ranking, one daily entry per player, all-time sums."""

from __future__ import annotations

import datetime
from collections.abc import AsyncIterator

import pytest

from server.store import leaderboard
from server.store.leaderboard import (
    BadBoard,
    Board,
    Entry,
    Leaderboards,
    MemoryLeaderboards,
    Player,
)
from server.store.redis_client import global_key
from server.store.redis_leaderboard import RedisLeaderboards
from server.tools.bench.redis_cluster import RedisCluster
from server.tools.bench.redis_server import RedisServer

DAY = datetime.date(2026, 11, 30)
ANN, BOB, CY, DEE = (Player(f"device-{n}", n) for n in ("Ann", "Bob", "Cy", "Dee"))


@pytest.fixture(params=["memory", pytest.param("redis_server", id="redis"), "redis_cluster"])
async def boards(request: pytest.FixtureRequest) -> AsyncIterator[Leaderboards]:
    if request.param == "memory":
        yield MemoryLeaderboards()
        return
    server: RedisServer | RedisCluster = request.getfixturevalue(request.param)
    redis = RedisLeaderboards(server.url)
    yield redis
    await redis.close()


async def test_daily_ranks_by_units_one_entry_per_player(boards: Leaderboards) -> None:
    daily = Board.daily(DAY)
    assert await boards.record(daily, ANN, 6)
    assert await boards.record(daily, BOB, -3)
    assert await boards.record(daily, CY, 6)
    assert await boards.record(daily, DEE, 9)
    # Bob plays the same deals again under a new name: the first result stands (SS-9.2)
    assert not await boards.record(daily, Player("device-Bob", "Bobby"), 30)
    top = await boards.top(daily)
    assert [(e.rank, e.name, e.score) for e in top] == [
        (1, "Dee", 9),
        (2, top[1].name, 6),
        (2, top[2].name, 6),
        (4, "Bob", -3),
    ]
    assert {top[1].name, top[2].name} == {"Ann", "Cy"}
    assert await boards.entry(daily, BOB.id) == Entry(4, BOB.id, "Bob", -3, 1)
    assert await boards.entry(daily, CY.id) == Entry(2, CY.id, "Cy", 6, 1)
    assert [e.name for e in await boards.top(daily, limit=1)] == ["Dee"]
    assert await boards.size(daily) == 4  # a rank's context: Bob is 4th of 4
    # another day is another table
    other = Board.daily(DAY + datetime.timedelta(days=1))
    assert await boards.top(other) == [] and await boards.size(other) == 0
    assert await boards.record(other, BOB, 2)
    assert await boards.entry(other, BOB.id) == Entry(1, BOB.id, "Bob", 2, 1)


async def test_alltime_tables_add_up_per_game(boards: Leaderboards) -> None:
    sheepshead, shithead = Board.alltime("sheepshead"), Board.alltime("shithead")
    for units in (2, -1, 4):
        assert await boards.record(sheepshead, ANN, units)
    assert await boards.record(sheepshead, BOB, 3)
    await boards.record(shithead, BOB, 1)
    await boards.record(shithead, BOB, 0)  # Bob was the shithead this time
    assert [(e.name, e.score, e.games) for e in await boards.top(sheepshead)] == [
        ("Ann", 5, 3),
        ("Bob", 3, 1),
    ]
    # the latest name a device played under shows on every board
    await boards.record(shithead, Player("device-Bob", "Robert"), 1)
    assert [e.name for e in await boards.top(sheepshead)] == ["Ann", "Robert"]
    assert await boards.top(shithead) == [Entry(1, BOB.id, "Robert", 2, 3)]
    assert await boards.entry(shithead, ANN.id) is None


async def test_boards_never_show_device_tokens(boards: Leaderboards) -> None:
    await boards.record(Board.alltime("shithead"), ANN, 1)
    (entry,) = await boards.top(Board.alltime("shithead"))
    assert "device-Ann" not in repr(entry) and entry.player == ANN.id


async def test_daily_tables_expire(redis_server: RedisServer) -> None:
    boards = RedisLeaderboards(redis_server.url)
    try:
        await boards.record(Board.daily(DAY), ANN, 1)
        await boards.record(Board.alltime("sheepshead"), ANN, 1)
        assert await boards.redis.ttl(global_key(f"lb:daily:{DAY}")) > 30 * 24 * 3600
        assert await boards.redis.ttl(global_key("lb:sheepshead")) == -1  # kept for ever
    finally:
        await boards.close()


def test_board_names() -> None:
    assert Board.parse("daily", today=DAY) == Board.daily(DAY)
    assert Board.parse("daily:2026-11-30") == Board.daily(DAY)
    assert Board.parse("sheepshead") == Board.alltime("sheepshead")
    for bad in ("daily:yesterday", "poker", "", "daily:2026-13-01"):
        with pytest.raises(BadBoard):
            Board.parse(bad)


async def test_a_result_recorded_twice_counts_once(boards: Leaderboards) -> None:
    sheepshead = Board.alltime("sheepshead")
    assert await boards.record(sheepshead, ANN, 3, event="ROOMX:7:0")
    assert not await boards.record(sheepshead, ANN, 3, event="ROOMX:7:0")  # a retry
    assert await boards.record(sheepshead, BOB, -3, event="ROOMX:7:0")  # same hand, Bob
    assert await boards.record(sheepshead, ANN, 2, event="ROOMX:7:1")  # the next hand
    assert [(e.name, e.score, e.games) for e in await boards.top(sheepshead)] == [
        ("Ann", 5, 2),
        ("Bob", -3, 1),
    ]


async def test_an_origin_claims_few_daily_entries(boards: Leaderboards) -> None:
    # identities issued to one address share its few daily entries (no board filled from one place)
    day = Board.daily(DAY)
    claims = [await boards.claim(day, "origin-A", p.id, 2) for p in (ANN, BOB, CY)]
    assert claims == [True, True, False]
    assert await boards.claim(day, "origin-A", ANN.id, 2)  # asked again: the same answer
    assert not await boards.claim(day, "origin-A", CY.id, 2)
    assert await boards.claim(day, "origin-B", CY.id, 2)  # another address has its own
    assert await boards.claim(Board.daily(DAY + datetime.timedelta(days=1)), "origin-A", CY.id, 2)


async def test_a_players_first_daily_match_started_keeps_the_day(boards: Leaderboards) -> None:
    # rule SS-9.2: every room of a day deals the same hands; only the first started may rank
    day = Board.daily(DAY)
    assert await boards.first_daily(day, ANN.id, "ROOM1:n1")
    assert not await boards.first_daily(day, ANN.id, "ROOM2:n2")
    assert await boards.first_daily(day, ANN.id, "ROOM1:n1")  # asked again: the same answer
    assert await boards.first_daily(day, BOB.id, "ROOM2:n2")  # each player has their own
    assert await boards.first_daily(Board.daily(DAY + datetime.timedelta(days=1)), ANN.id, "R3")


async def test_the_memory_boards_forget_old_days_and_old_results_names() -> None:
    # a process on the in-memory default runs for months: like Redis, it keeps 40 days of
    # daily tables and a bounded number of results' names, and no more (it kept all before)
    boards = MemoryLeaderboards(max_seen=50)
    for day in range(100):
        when = DAY + datetime.timedelta(days=day)
        player = Player(f"device-{day}", f"P{day}")
        await boards.record(Board.daily(when), player, day, event=f"room:{day}")
        await boards.record(Board.alltime("sheepshead"), player, 1, event=f"room:{day}")
    assert await boards.size(Board.daily(DAY)) == 0  # forgotten
    assert await boards.size(Board.daily(DAY + datetime.timedelta(days=99))) == 1
    assert await boards.size(Board.alltime("sheepshead")) == 100  # all-time stays whole
    # 41 days' tables of one entry (a score and a game each), the all-time table (100 and 100),
    # its 100 names, and 50 results' names
    assert boards.tracked() == 41 * 2 + 200 + 100 + 50
    # a retry of a recent result still counts once
    latest = Player("device-99", "P99")
    assert not await boards.record(Board.alltime("sheepshead"), latest, 1, event="room:99")


async def test_the_memory_top_is_the_best_few_of_a_large_board() -> None:
    boards = MemoryLeaderboards()
    board = Board.alltime("shithead")
    for n in range(2_000):
        await boards.record(board, Player(f"device-{n}", f"P{n}"), n % 997)
    top = await boards.top(board, limit=3)
    assert [(e.rank, e.score) for e in top] == [(1, 996), (1, 996), (3, 995)]


async def test_claims_from_many_origins_do_not_reset_a_spent_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the memory store keeps a bounded number of claims: rotating through more origins than
    # that once forgot an origin's spent entries for the day
    monkeypatch.setattr(leaderboard, "MAX_CLAIMS", 10)
    boards, day = MemoryLeaderboards(), Board.daily(DAY)
    assert await boards.claim(day, "origin-A", ANN.id, 1)
    assert not await boards.claim(day, "origin-A", BOB.id, 1)
    given = [await boards.claim(day, f"origin-{i}", CY.id, 1) for i in range(20)]
    assert not await boards.claim(day, "origin-A", BOB.id, 1)  # still spent
    assert given.count(False) == 11  # the newcomers past the bound: not ranked (fail closed)
    yesterday = Board.daily(DAY - datetime.timedelta(days=1))  # a later day's are kept too
    assert not await boards.claim(yesterday, "origin-Y", CY.id, 1)
    tomorrow = Board.daily(DAY + datetime.timedelta(days=1))  # a past day's claims make room
    assert await boards.claim(tomorrow, "origin-Z", CY.id, 1)
    assert not await boards.claim(tomorrow, "origin-Z", BOB.id, 1)
