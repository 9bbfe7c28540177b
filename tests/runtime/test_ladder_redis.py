"""The bots' ladder with two processes on one real Redis: one ladder line for the service, so
two bots connected to different processes sit at one rated table, their ladder ratings are
shared, and either process's ladder API lists them with the anchors; a person waiting on the
people's line meanwhile is never seated with them."""

from __future__ import annotations

import asyncio

from server.store.leaderboard import player_id
from server.tools.bench.redis_server import RedisServer
from tests.support.queue import example_move, is_seated, person, two_processes
from tests.support.results_api import get

GAME_SECONDS = 120.0  # a bound for a stuck game, not a speed test


async def test_bots_of_two_processes_play_one_ladder_table(redis_server: RedisServer) -> None:
    # Ann's fill wait outlasts the game's bound: a slow machine must not seat her with bots
    queue = {"shithead_table": 2, "ladder_fill_wait": 30.0, "fill_wait": 10 * GAME_SECONDS}
    async with two_processes(redis_server.url, **queue) as (a, b):
        one = await person(a.url, 2, bot=True)
        two = await person(b.url, 3, bot=True)
        ann = await person(b.url, 4)  # a person, waiting on the people's line meanwhile
        await ann.queue("shithead", "Ann")
        played = await asyncio.wait_for(
            asyncio.gather(
                one.play_ladder("shithead", "One", example_move, games=1),
                two.play_ladder("shithead", "Two", example_move, games=1),
            ),
            GAME_SECONDS,
        )
        assert list(played) == [1, 1]
        rooms = {getattr(m, "room", None) for c in (one, two) for m in c.history if is_seated(m)}
        assert len(rooms) == 1  # one table for both, wherever each is connected
        assert not any(is_seated(m) for m in ann.history)
        ids = {player_id(one.device or ""), player_id(two.device or "")}
        for server in (a, b):
            status, page = await get(server, "/api/ladder?game=shithead")
            assert status == 200
            rows = {r["player"]: r for r in page["ladder"]}
            assert {p for p in rows if rows[p]["games"] == 1} == ids
            assert {r["anchor"] for r in page["ladder"] if r["anchor"]} == {
                "basic",
                "strong",
                "expert",
            }
            assert {s["player"] for s in page["games"][0]["seats"]} == ids
        for c in (one, two, ann):
            await c.close()
