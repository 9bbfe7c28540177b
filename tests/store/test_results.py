"""Results onto boards: daily matches on the same deals ranked by the core's own units; the
store's health flag follows Redis going away and coming back."""

from __future__ import annotations

import asyncio
import datetime
import random

import pytest

from server.rooms.matches import Match
from server.store.health import StoreHealth
from server.store.leaderboard import Board, MemoryLeaderboards, Player
from server.store.redis_store import RedisStore
from server.store.results import game_results, match_results, record_results
from server.tools.bench.redis_server import RedisServer

DAY = datetime.date(2026, 11, 30)


def play_match(seed: int) -> Match:
    """A daily match (rule SS-9.2) played out by a random policy of its own."""
    match = Match.create("sheepshead", 5, seed=seed, daily=DAY)
    rng = random.Random(seed)
    while True:
        game = match.current
        while not game.is_over():
            seat = game.to_act()[0]
            match.apply(seat, rng.choice(game.legal_actions(seat)))
        if match.is_over():
            return match
        match.next_game()


async def test_daily_matches_share_deals_and_rank_by_units() -> None:
    # rule SS-9.2: everyone's daily match of a day is dealt the same ten hands
    ann_match, bob_match = play_match(1), play_match(2)
    assert ann_match.record()["logs"] != bob_match.record()["logs"]  # played differently
    assert Match.create("sheepshead", 5, seed=1, daily=DAY).current.deal_record() == (
        Match.create("sheepshead", 5, seed=2, daily=DAY).current.deal_record()
    )
    boards = MemoryLeaderboards()
    ann, bob = Player("device-ann", "Ann"), Player("device-bob", "Bob")
    for match, human in ((ann_match, ann), (bob_match, bob)):
        players = [human, None, None, None, None]  # one human, four bots
        await record_results(boards, match_results(DAY, match.totals(), players))
    table = await boards.top(Board.daily(DAY))
    scores = {"Ann": ann_match.totals()[0], "Bob": bob_match.totals()[0]}
    assert sorted(e.name for e in table) == ["Ann", "Bob"]
    assert [e.score for e in table] == sorted(scores.values(), reverse=True)
    for e in table:
        assert e.score == scores[e.name]
        assert e.rank == 1 + sum(s > e.score for s in scores.values())
    assert all(e.games == 1 for e in table)


def test_only_people_with_a_device_are_ranked() -> None:
    ann = Player("device-ann", "Ann")
    units = (4, -1, -1, -1, -1)
    assert game_results("sheepshead", units, [None, ann, None, None, None]) == [
        (Board.alltime("sheepshead"), ann, -1)
    ]
    # Shithead counts games got out of: the shithead (1 loss) scores 0, everyone else 1
    assert [s for _, _, s in game_results("shithead", (1, 0), [ann, ann])] == [0, 1]
    assert match_results(None, units, [ann, None, None, None, None]) == []


@pytest.mark.slow
async def test_health_follows_redis_away_and_back(redis_server: RedisServer) -> None:
    store = RedisStore(redis_server.url)
    health = StoreHealth(store, interval=0.05)
    try:
        assert await health.check() and health.ok
        redis_server.stop()
        assert not await health.check()
        assert not health.ok
        redis_server.start()
        await asyncio.wait_for(health.wait_up(), 10)  # noticed by itself, nobody asked again
        assert health.ok
    finally:
        await health.close()
        await store.close()
