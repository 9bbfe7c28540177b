"""The bot pool behind a real server, over real sockets: one address's flood of slow bot
decisions does not hold up another room's, a closed room leaves no bot behind, expert seats are
capped (``expert_limit``), and a hung worker only costs a fallback and is replaced."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Callable

import pytest

from clients import CardroomClient, CardroomError
from protocol.messages import State
from server.bots.pool import BotPool
from server.net.server import CardroomServer
from server.tools.bench.bots import play_room
from server.tools.bench.redis_server import RedisServer
from tests.support.server import make_config

SLOW = "tests.bots.slow_bots:SlowBot"


async def until(check: Callable[[], bool], seconds: float = 30.0) -> None:
    """Poll ``check()`` until it is true (bounded): the pool and the rooms expose no event."""
    async with asyncio.timeout(seconds):
        while not check():  # noqa: ASYNC110
            await asyncio.sleep(0.02)


@pytest.fixture
async def slow_server() -> AsyncIterator[CardroomServer]:
    """One worker whose strong and expert bots are the deterministic slow bot."""
    server = CardroomServer(make_config(max_expert_seats=4))
    think = {"strong": 60.0, "expert": 60.0}
    server.manager.use_bot_pool(BotPool(1, think=think, factories={"expert": SLOW, "strong": SLOW}))
    async with server:
        yield server


@pytest.fixture
async def slow_redis_server(redis_server: RedisServer) -> AsyncIterator[CardroomServer]:
    """The same on Redis: rooms made at ``/ws`` are stored, let go and loaded again."""
    config = dataclasses.replace(make_config(max_expert_seats=4), redis_url=redis_server.url)
    server = CardroomServer(config)
    think = {"strong": 60.0, "expert": 60.0}
    server.manager.use_bot_pool(BotPool(1, think=think, factories={"expert": SLOW, "strong": SLOW}))
    async with server:
        yield server


@pytest.mark.slow
async def test_a_victim_rooms_bot_waits_for_one_decision_per_address_ahead(
    slow_server: CardroomServer,
) -> None:
    await victim_waits_for_one_decision_per_address(slow_server, slow_server.url)


@pytest.mark.slow
async def test_rooms_loaded_from_redis_share_their_openers_turn_too(
    slow_redis_server: CardroomServer,
) -> None:
    # rooms made at /ws live on from their record: each was once an owner of its own in the
    # pool (a flood's queue peaked at 24 with a cap of 4), its opener now travels with it
    server = slow_redis_server
    await victim_waits_for_one_decision_per_address(server, f"ws://127.0.0.1:{server.port}/ws")
    assert server.metrics.rooms_placed >= 9  # every room was let go and loaded again


async def victim_waits_for_one_decision_per_address(slow_server: CardroomServer, url: str) -> None:
    pool = slow_server.manager.bot_pool
    asked: dict[int, tuple[int, int]] = {}  # version -> (expert decisions then, queue length)
    between: list[int] = []
    backlog: list[int] = []

    def on_victim(state: State, now: float) -> None:
        experts = pool.stats.decisions.get("expert", 0)
        for version, (before, _) in list(asked.items()):
            if state.version > version:
                between.append(experts - before)
                del asked[version]
        to_act = state.view.get("to_act") or []
        if state.view.get("phase") != "over" and to_act and to_act[0] != 0:
            asked[state.version] = (experts, pool.queued)
            backlog.append(pool.queued)

    def done() -> bool:
        return len(between) >= 12

    # two addresses open four rooms of expert bots each; the victim comes from a third
    floods = [
        play_room(url, "expert", done, act=True, local=address)
        for address in ("127.0.0.2", "127.0.0.4")
        for _ in range(4)
    ]

    async def victim() -> None:
        await until(lambda: pool.queued >= 5)  # the flood's backlog is there first
        await play_room(url, "strong", done, act=True, on_state=on_victim, local="127.0.0.3")

    await asyncio.wait_for(asyncio.gather(*floods, victim()), 120)
    metrics = slow_server.metrics.render().decode()
    assert max(backlog) >= 5  # there was a backlog to jump
    # at most the decision running when it asked, then one per other address (3; one more
    # for a decision answered just before it asked but counted after; a first-come queue
    # served the whole backlog first: 8)
    assert max(between) <= 4, between
    # the waits, decisions and queue are counted
    assert 'cardroom_bot_wait_seconds_count{level="strong"}' in metrics
    assert 'cardroom_bot_decisions_total{level="expert"}' in metrics
    assert "cardroom_bot_queue " in metrics and "cardroom_bot_workers 1.0" in metrics


@pytest.mark.slow
async def test_a_closed_room_leaves_no_bot_state_in_the_server_or_any_worker() -> None:
    server = CardroomServer(make_config(idle_timeout=0.2))
    server.manager.use_bot_pool(BotPool(1, think={"strong": 60.0}))
    held: list[tuple[int, int]] = []

    def on_state(state: State, now: float) -> None:
        if state.version >= 8:
            held.append(server.manager.bot_states())

    async with server:
        rooms = [
            play_room(
                server.url, "strong", lambda: False, act=True, until_version=8, on_state=on_state
            )
            for _ in range(2)
        ]
        await asyncio.wait_for(asyncio.gather(*rooms), 120)
        assert held and all(count > 0 and size > 0 for count, size in held)  # while open
        await until(lambda: not server.manager.rooms)  # both closed once their people left
        assert server.manager.bot_states() == (0, 0)
        census = await server.manager.bot_pool.census()
        metrics = server.metrics.render().decode()
    assert census and all(worker["bots"] == 0 for worker in census), census
    assert sum(worker["decisions"] for worker in census) > 0
    assert "cardroom_bot_states 0.0" in metrics and "cardroom_bot_state_bytes 0.0" in metrics


async def test_expert_seats_beyond_the_rooms_cap_are_refused_and_change_nothing(
    server: CardroomServer,
) -> None:
    # the default cap: two expert bots a room
    async with CardroomClient.connect(server.url) as ann:
        await ann.create("sheepshead", seats=5, name="Ann")
        with pytest.raises(CardroomError) as refused:
            await ann.host("fill_bots", level="expert")  # four empty seats
        assert refused.value.code == "expert_limit"
        assert ann.room_info is not None and all(s.kind != "bot" for s in ann.room_info.seats)
        await ann.host("add_bot", seat=1, level="expert")
        await ann.host("add_bot", seat=2, level="expert")
        await ann.host("set_bot_level", seat=2, level="expert")  # already one: not counted twice
        with pytest.raises(CardroomError) as refused:
            await ann.host("add_bot", seat=3, level="expert")
        assert refused.value.code == "expert_limit"
        await ann.host("add_bot", seat=3, level="strong")
        with pytest.raises(CardroomError) as refused:
            await ann.host("set_bot_level", seat=3, level="expert")
        assert refused.value.code == "expert_limit"
        await ann.ping()  # every frame before its pong has arrived
        info = ann.room_info
        assert info is not None and [s.bot_level for s in info.seats] == [
            None,
            "expert",
            "expert",
            "strong",
            None,
        ]
        await ann.host("fill_bots", level="strong")  # other levels are not capped
    metrics = server.metrics.render().decode()
    assert 'cardroom_refusals_total{code="expert_limit"} 3.0' in metrics


@pytest.mark.slow
async def test_a_hung_worker_costs_a_fallback_the_game_goes_on_and_it_is_replaced() -> None:
    server = CardroomServer(make_config(max_expert_seats=1))  # one expert: the rest basic
    # a 2 s grace: a worker that starts on the first request is up before that request is
    # withdrawn, so the request reaches the hung bot (0.3 s left one queued past it: no restart)
    pool = BotPool(
        1, grace=2.0, think={"expert": 0.3}, factories={"expert": "tests.bots.slow_bots:HangBot"}
    )
    server.manager.use_bot_pool(pool)
    async with server:
        # the bots' seats move (the basic bot answers for the hung expert) until the hand is over
        await asyncio.wait_for(
            play_room(server.url, "expert", lambda: False, act=True, until_version=12), 60
        )
        await until(lambda: pool.stats.restarts >= 1 and pool.stats.workers == 1, 60)
        metrics = server.metrics.render().decode()
    assert pool.stats.fallbacks.get(("expert", "overran"), 0) >= 1
    assert 'cardroom_bot_fallbacks_total{level="expert",why="overran"}' in metrics
    assert "cardroom_bot_worker_restarts_total" in metrics
