"""The bot pool's worker processes, for real: the fair order in which they serve rooms, bot
state carried with each decision (workers keep nothing), the per-owner budget, and the
watchdog when a worker hangs or dies (it is replaced)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import server.bots  # noqa: F401 - registers every level
from server.bots.base import make_bot
from server.bots.pool import BotPool, Share
from server.bots.shithead_strong import ShitheadStrongBot
from server.rules.base import Action
from server.rules.sheepshead import Sheepshead
from server.rules.shithead import Shithead

SLOW = "tests.bots.slow_bots:SlowBot"
PATIENT = {"strong": 60.0, "expert": 60.0}
# the strong bot without its wall-clock ceiling: the same answers however loaded the machine
PATIENT_STRONG = "tests.bots.slow_bots:patient_strong"


async def census_of_all(pool: BotPool, workers: int) -> list[dict[str, Any]]:
    """Every worker's census once all ``workers`` are ready (one still starting on a loaded
    machine answers no census yet), bounded."""
    async with asyncio.timeout(60):
        while len(census := await pool.census()) < workers:  # noqa: ASYNC110 - no event exists
            await asyncio.sleep(0.05)
    return census


@pytest.mark.slow
async def test_a_victim_room_is_served_before_a_flooding_rooms_backlog() -> None:
    view = Sheepshead.new(5, 0, seed=5).view(1)
    pool = BotPool(1, think=PATIENT, factories={"expert": SLOW, "strong": SLOW})
    order: list[str] = []

    async def ask(name: str, share: Share, level: str) -> None:
        await pool.choose(level, "sheepshead", 1, view, share=share)
        order.append(name)

    try:
        flood = [ask(f"flood{i}", Share("10.0.0.1", "FLOOD"), "expert") for i in range(6)]
        victim = ask("victim", Share("10.0.0.2", "QUIET"), "strong")
        await asyncio.wait_for(asyncio.gather(*flood, victim), 60)
    finally:
        await pool.close()
    # one worker: at most the flood's first decision goes before the victim's (a single
    # first-come queue would put the victim last)
    assert order.index("victim") <= 1, order
    assert pool.stats.decisions == {"expert": 6, "strong": 1}


@pytest.mark.slow
async def test_an_addresss_many_rooms_take_one_share_between_them() -> None:
    view = Sheepshead.new(5, 0, seed=5).view(1)
    pool = BotPool(1, think=PATIENT, factories={"expert": SLOW})
    order: list[str] = []

    async def ask(name: str, share: Share) -> None:
        await pool.choose("expert", "sheepshead", 1, view, share=share)
        order.append(name)

    try:
        flood = [ask(f"m{r}", Share("mallory", f"R{r}")) for r in range(6)]
        bob = [ask(f"bob{i}", Share("bob", "BOB")) for i in range(2)]
        await asyncio.wait_for(asyncio.gather(*flood, *bob), 60)
    finally:
        await pool.close()
    # mallory's six rooms alternate with bob's one: bob's two come within the first four
    assert order.index("bob0") <= 2 and order.index("bob1") <= 4, order


@pytest.mark.slow
async def test_a_bots_state_travels_with_it_and_no_worker_keeps_a_bot() -> None:
    game = Shithead.new(3, 0, seed=1)
    for seat in range(3):
        game.apply(seat, Action("ready"))
    views = [game.view(game.to_act()[0])]
    pool = BotPool(2, think=PATIENT, factories={"strong": PATIENT_STRONG})
    try:
        state = None
        got = []
        for _ in range(3):  # the same position asked again: a bot's memory decides it
            decision = await asyncio.wait_for(
                pool.choose("strong", "shithead", 43, views[0], state=state), 60
            )
            assert decision.level == "strong" and decision.state is not None
            state = decision.state
            got.append(decision.action)
        census = await census_of_all(pool, 2)
    finally:
        await pool.close()
    here = ShitheadStrongBot(43, seconds=None)  # a seed whose repeats vary
    # as one bot in one process: its memory (a repeat guard) changes its answer
    assert got == [here.choose(views[0]) for _ in range(3)]
    assert len(set(got)) > 1
    assert len(census) == 2
    assert all(c["bots"] == 0 for c in census), census  # nothing left in any worker
    assert sum(c["decisions"] for c in census) == 3


@pytest.mark.slow
async def test_of_two_workers_the_first_never_searches_for_a_time_budget() -> None:
    view = Sheepshead.new(5, 0, seed=5).view(1)
    pool = BotPool(2, think=PATIENT, factories={"expert": SLOW, "strong": SLOW})
    try:
        experts = [
            pool.choose("expert", "sheepshead", 1, view, share=Share("e", f"E{i}"))
            for i in range(4)
        ]
        strong = [
            pool.choose("strong", "sheepshead", 1, view, share=Share("s", "S")) for _ in range(4)
        ]
        await asyncio.wait_for(asyncio.gather(*experts, *strong), 60)
        first, second = await census_of_all(pool, 2)
    finally:
        await pool.close()
    assert "expert" not in first["levels"]
    # the second worker runs at a lower priority, unless the suite itself already runs at the
    # lowest there is (`nice -n 19 make test`), where no process can go lower
    assert first["nice"] < second["nice"] or first["nice"] == second["nice"] == 19
    assert second["levels"]["expert"] == 4
    assert first["levels"].get("strong", 0) + second["levels"].get("strong", 0) == 4


@pytest.mark.slow
async def test_an_owner_over_its_queue_budget_gets_the_fallback_at_once() -> None:
    view = Sheepshead.new(5, 0, seed=5).view(1)
    pool = BotPool(1, think=PATIENT, factories={"expert": SLOW}, max_queued_per_owner=2)
    try:
        mine = [
            pool.choose("expert", "sheepshead", 1, view, share=Share("m", f"R{i}"))
            for i in range(3)
        ]
        other = pool.choose("expert", "sheepshead", 1, view, share=Share("o", "O"))
        decisions = await asyncio.wait_for(asyncio.gather(*mine, other), 60)
    finally:
        await pool.close()
    assert [d.level for d in decisions] == ["expert", "expert", "basic", "expert"]
    assert pool.stats.fallbacks == {("expert", "owner_full"): 1}


@pytest.mark.slow
async def test_a_hung_worker_falls_back_then_is_killed_and_replaced() -> None:
    view = Sheepshead.new(5, 0, seed=5).view(1)
    pool = BotPool(
        1,
        grace=0.5,
        think={"expert": 0.5, "strong": 60.0},
        factories={"expert": "tests.bots.slow_bots:HangBot"},
    )
    try:
        # started first: the watchdog counts from the request, not from the worker's start
        first = await asyncio.wait_for(pool.choose("strong", "sheepshead", 1, view), 60)
        (before,) = await pool.census()
        hung = await asyncio.wait_for(pool.choose("expert", "sheepshead", 1, view), 10)
        assert hung.level == "basic" and hung.state is None
        assert hung.action == make_bot("basic", "sheepshead", seed=1).choose(view)
        after = await asyncio.wait_for(pool.choose("strong", "sheepshead", 1, view), 60)
        (now,) = await pool.census()
    finally:
        await pool.close()
    assert first.level == after.level == "strong"
    assert now["pid"] != before["pid"]  # the hung worker was killed and replaced
    assert pool.stats.restarts == 1
    assert pool.stats.fallbacks == {("expert", "overran"): 1}


@pytest.mark.slow
async def test_a_dead_worker_answers_at_once_by_the_fallback_and_is_replaced() -> None:
    view = Sheepshead.new(5, 0, seed=5).view(1)
    pool = BotPool(
        1,
        think={"expert": 60.0, "strong": 60.0},
        factories={"expert": "tests.bots.slow_bots:DyingBot"},
    )
    try:
        await asyncio.wait_for(pool.choose("strong", "sheepshead", 1, view), 60)
        (before,) = await pool.census()
        # not a minute's watchdog: the worker's end answers the request at once
        died = await asyncio.wait_for(pool.choose("expert", "sheepshead", 1, view), 10)
        assert died.level == "basic"
        again = await asyncio.wait_for(pool.choose("strong", "sheepshead", 1, view), 60)
        (now,) = await pool.census()
    finally:
        await pool.close()
    assert again.level == "strong" and now["pid"] != before["pid"]
    assert pool.stats.restarts == 1
    assert pool.stats.fallbacks == {("expert", "worker_lost"): 1}


async def test_a_cancelled_request_leaves_the_queue() -> None:
    view = Sheepshead.new(5, 0, seed=5).view(1)
    pool = BotPool(1, think=PATIENT, factories={"expert": SLOW})
    try:
        waiting = asyncio.create_task(pool.choose("expert", "sheepshead", 1, view))
        await asyncio.sleep(0)
        assert pool.queued == 1
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert pool.queued == 0 and pool.stats.queued == 0
    finally:
        await pool.close()


@pytest.mark.slow
async def test_a_hint_waits_in_the_same_fair_queue() -> None:
    view = Sheepshead.new(5, 0, seed=5).view(1)
    pool = BotPool(1, think=PATIENT, factories={"expert": SLOW, "strong": SLOW})
    order: list[str] = []

    async def flood(i: int) -> None:
        await pool.choose("expert", "sheepshead", 1, view, share=Share("m", "FLOOD"))
        order.append(f"flood{i}")

    async def hint() -> None:
        _, level, _ = await pool.advise("sheepshead", 1, view, share=Share("p", "PLAYER"))
        assert level == "strong"
        order.append("hint")

    try:
        await asyncio.wait_for(asyncio.gather(*(flood(i) for i in range(5)), hint()), 60)
    finally:
        await pool.close()
    assert order.index("hint") <= 1, order
