"""A player's action that Redis stored but whose answer was lost on the way back (twice: the
client's own retry too): the player is told ``store_unavailable``; the same action sent again
is acknowledged once; anything else makes the server reload the room from Redis, where the
action is, and the player resumes. Nothing is applied twice, nothing differs from Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from clients import CardroomClient, CardroomError
from protocol.messages import State
from protocol.records import ActionEntry
from protocol.views import ActionWire
from server.net.server import CardroomServer
from server.store.redis_store import RedisStore
from server.tools.bench.redis_server import RedisServer
from tests.store.proxy import LossyProxy
from tests.support.redis_games import same_action
from tests.support.server import choose, make_config

pytestmark = pytest.mark.slow

ANNS_ACTION = b'"s":0,"a":"'  # in the stored entry of an action of seat 0


@pytest.fixture
async def proxy(redis_server: RedisServer) -> AsyncIterator[LossyProxy]:
    async with LossyProxy(redis_server.port) as lossy:
        yield lossy


@pytest.fixture
async def server(proxy: LossyProxy) -> AsyncIterator[CardroomServer]:
    async with CardroomServer(replace(make_config(), redis_url=proxy.url)) as srv:
        yield srv


async def my_turn_in_play(ann: CardroomClient, choices: int) -> State:
    """Play on until Ann must act in the play phase with at least ``choices`` legal actions."""
    while True:
        state = await ann.wait_turn(timeout=10)
        assert state.view["phase"] != "over"
        if state.view["phase"] == "play" and len(state.view["legal"]) >= choices:
            return state
        try:
            await ann.act(choose(state.view), version=state.version)
        except CardroomError as exc:
            assert exc.code == "stale_version"


async def lost(proxy: LossyProxy, ann: CardroomClient, action: ActionWire, version: int) -> None:
    proxy.lose_reply_to(ANNS_ACTION, times=2)
    with pytest.raises(CardroomError) as refused:
        await ann.act(action, version=version, timeout=15)
    assert refused.value.code == "store_unavailable"
    assert proxy.lost == 2


async def stored_log(redis_server: RedisServer, room: str) -> list[ActionEntry]:
    store = RedisStore(redis_server.url)
    try:
        stored = await store.load(room)
    finally:
        await store.close()
    assert stored is not None
    return stored.actions


async def test_the_same_action_again_is_acknowledged_once(
    server: CardroomServer, proxy: LossyProxy, redis_server: RedisServer
) -> None:
    async with CardroomClient.connect(server.url) as ann:
        await ann.create("shithead", seats=2, name="Ann")
        await ann.host("start")
        state = await my_turn_in_play(ann, 1)
        action = choose(state.view)
        await lost(proxy, ann, action, state.version)
        ack = await ann.act(action, version=state.version)  # the same move, again
        assert ack.version == state.version + 1
        assert ann.room is not None
        log = await stored_log(redis_server, ann.room)
        mine = [e for e in log if e["v"] == ack.version]
        assert len(mine) == 1 and mine[0]["s"] == 0
        assert [e["v"] for e in log] == list(range(log[0]["v"], log[0]["v"] + len(log)))


async def test_another_action_reloads_the_room_from_redis(
    server: CardroomServer, proxy: LossyProxy, redis_server: RedisServer
) -> None:
    async with CardroomClient.connect(server.url) as ann:
        await ann.create("shithead", seats=2, name="Ann")
        assert ann.room is not None and ann.token is not None
        room, token = ann.room, ann.token
        await ann.host("start")
        state = await my_turn_in_play(ann, 2)
        first, other = state.view["legal"][:2]
        await lost(proxy, ann, first, state.version)
        with pytest.raises(CardroomError) as refused:  # Redis holds the first one
            await ann.act(other, version=state.version)
        assert refused.value.code == "store_unavailable"
        await ann.wait_for(lambda msg: msg.type == "closing", timeout=10)

    async with CardroomClient.connect(server.url) as ann:
        await ann.resume(room, token)  # loaded again from Redis
        back = await ann.wait_state(timeout=10)
        assert back.version >= state.version + 1
    log = await stored_log(redis_server, room)
    (entry,) = [e for e in log if e["v"] == state.version + 1]
    assert same_action(entry, 0, first) and not same_action(entry, 0, other)
    assert [e["v"] for e in log] == list(range(log[0]["v"], log[0]["v"] + len(log)))
