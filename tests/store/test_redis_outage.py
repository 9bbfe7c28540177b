"""Redis stops mid-game: actions are refused with ``store_unavailable`` and nothing
acknowledged is lost; ``/healthz`` says degraded; Redis starts again and play resumes without
restarting Cardroom."""

from __future__ import annotations

import asyncio
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import replace
from functools import partial

import pytest

from clients import CardroomClient, CardroomError
from protocol.messages import State
from server.net.server import CardroomServer
from server.tools.bench.redis_server import RedisServer
from tests.support.redis_games import Acked, assert_log_holds, play, play_to_the_end
from tests.support.server import choose, make_config

pytestmark = pytest.mark.slow


@pytest.fixture
async def on_redis(redis_server: RedisServer) -> AsyncIterator[CardroomServer]:
    config = replace(make_config(), redis_url=redis_server.url)
    async with CardroomServer(config) as server:
        yield server


def health(port: int) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


async def wait_healthy(port: int, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while (await asyncio.to_thread(health, port))[0] != 200:
        assert time.monotonic() < deadline, "never healthy again"
        await asyncio.sleep(0.1)


async def test_redis_away_mid_game_then_back(
    on_redis: CardroomServer, redis_server: RedisServer
) -> None:
    acked: Acked = {}
    async with CardroomClient.connect(on_redis.url) as ann:
        await ann.create("shithead", seats=2, name="Ann")
        await ann.host("start")  # a bot in the other seat
        while len(acked) < 3 or ann.view is None or ann.view["phase"] == "swap":
            await play([ann], acked, 1)

        state = await ann.wait_turn(timeout=10)  # Ann's turn: the bot waits for her
        assert state.view["phase"] == "play"
        redis_server.stop()
        assert await asyncio.to_thread(health, on_redis.port) == (
            503,
            "degraded: room store unavailable\n",
        )
        for _ in range(2):  # refused, typed, and the room did not move
            with pytest.raises(CardroomError) as refused:
                await ann.act(choose(state.view), version=state.version)
            assert refused.value.code == "store_unavailable"
        assert ann.version == state.version
        await ann.chat("still there?")  # nothing to save: still answered

        redis_server.start()  # same data (append-only file), same port
        await wait_healthy(on_redis.port)
        action = choose(state.view)
        ack = await ann.act(action, version=state.version)  # the same move now
        assert ack.version == state.version + 1
        acked[ack.version] = (0, action)
        room = ann.room
        assert room is not None
        # the bot (its moves held while Redis was away) and Ann play on
        await play_to_the_end([ann], acked)
    await assert_log_holds(redis_server.url, room, acked)


def at_least(state: State, version: int) -> bool:
    return state.version >= version


async def test_a_bot_move_waits_for_redis(redis_server: RedisServer) -> None:
    # the outage (twice the bot's delay, and the restart) stays well inside the room's lease
    # (LEASE_TTL 3 s): an outage past it loses the lease, and the room rightly goes
    config = replace(make_config(bot_delay=0.5), redis_url=redis_server.url)
    async with CardroomServer(config) as server, CardroomClient.connect(server.url) as ann:
        await ann.create("shithead", seats=2, name="Ann")
        await ann.host("start")
        while True:
            state = await ann.wait_turn(timeout=10)
            try:
                ack = await ann.act(choose(state.view), version=state.version)
            except CardroomError as exc:
                assert exc.code == "stale_version"
                continue
            if state.view["phase"] == "swap" or ack.version is None:
                continue
            after = await ann.wait_state(partial(at_least, version=ack.version), timeout=10)
            version = ack.version
            # the bot must be the one to move next (after a burn Ann plays again)
            if after.version == version and ann.seat not in after.view["to_act"]:
                break
        mine = ack.version
        assert mine is not None
        redis_server.stop()  # the bot is about to move: its move cannot be stored
        await asyncio.sleep(1.0)  # well past the bot's delay: nothing may arrive
        assert ann.version == mine
        redis_server.start()
        state = await ann.wait_turn(timeout=10)  # the bot's held move, retried by itself
        assert state.version == mine + 1 or state.view["phase"] == "over"


async def test_a_server_started_while_redis_is_away(redis_server: RedisServer) -> None:
    redis_server.stop()
    config = replace(make_config(), redis_url=redis_server.url)
    async with CardroomServer(config) as server, CardroomClient.connect(server.url) as ann:
        assert (await asyncio.to_thread(health, server.port))[0] == 503
        with pytest.raises(CardroomError) as refused:
            await ann.create("shithead", seats=2, name="Ann")
        assert refused.value.code == "store_unavailable"
        redis_server.start()
        await wait_healthy(server.port)
        await ann.create("shithead", seats=2, name="Ann")
        await ann.host("start")
        assert (await ann.wait_state(timeout=10)).version >= 1
        assert ann.device is None  # while Redis was away no device identity was issued
        # the secret that signs them is shared through Redis: read once it is back
        deadline = asyncio.get_running_loop().time() + 10
        while (device := await welcomed_device(server)) is None:
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.1)
        assert server.devices.valid(device)


async def welcomed_device(server: CardroomServer) -> str | None:
    async with CardroomClient.connect(server.url, hello=False) as c:
        return (await c.hello()).device
