"""A person is ranked for the seat they took with a device token, even when they are not
connected as the game ends (a stand-in played their last turns), in memory and on Redis."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from clients import CardroomClient
from server.net.server import CardroomServer
from server.runtime.finished import MIN_OWN_ACTIONS
from server.store.leaderboard import Board, player_id
from server.tools.bench.redis_server import RedisServer
from tests.support.server import act_fresh, choose, device_for, make_config, play_until_over

pytestmark = pytest.mark.slow

ANN, BOB = "ann-device-0123456789", "bob-device-0123456789"


@pytest.fixture(params=["memory", "redis"])
async def server(request: pytest.FixtureRequest) -> AsyncIterator[CardroomServer]:
    config = make_config(grace=0.2)  # Ann's seat is soon played by a stand-in
    if request.param == "redis":
        redis: RedisServer = request.getfixturevalue("redis_server")
        config = replace(config, redis_url=redis.url)
    async with CardroomServer(config) as srv:
        yield srv


async def test_a_player_away_at_the_end_is_still_ranked(server: CardroomServer) -> None:
    ann_device, bob_device = device_for(server, ANN), device_for(server, BOB)
    ann = await CardroomClient.connect(server.url, hello=False)
    await ann.hello(device=ann_device)
    bob = await CardroomClient.connect(server.url, hello=False)
    await bob.hello(device=bob_device)
    await ann.create("shithead", seats=3, name="Ann")
    assert ann.room is not None
    await bob.join(ann.room, name="Bob")
    await ann.host("start")
    # Ann makes the minimum of moves herself (MIN_OWN_ACTIONS), and Bob keeps up with her
    moves = 0
    while moves < MIN_OWN_ACTIONS:
        turn = await asyncio.wait(
            [asyncio.create_task(c.wait_turn(timeout=30)) for c in (ann, bob)],
            return_when=asyncio.FIRST_COMPLETED,
        )
        for task in turn[1]:
            task.cancel()
        for c in (ann, bob):
            if c.my_turn and c.view is not None and c.view["phase"] != "over":
                await act_fresh(c, choose(c.view))
                moves += c is ann
    await ann.close()  # Ann is gone for good: after the grace a stand-in plays for her
    await play_until_over(bob)

    board = Board.alltime("shithead")
    deadline = time.monotonic() + 10
    while len(entries := await server.stores.boards.top(board)) < 2:  # recorded after the end
        assert time.monotonic() < deadline, entries
        await asyncio.sleep(0.05)
    assert {(e.player, e.name, e.games) for e in entries} == {
        (player_id(ann_device), "Ann", 1),
        (player_id(bob_device), "Bob", 1),
    }
    await bob.close()
