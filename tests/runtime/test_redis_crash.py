"""A real ``cardroom serve --redis`` process SIGKILLed mid-game and started again: every player
resumes with their token and the game goes on from the last acknowledged action, with nothing
lost or repeated: on one Redis and on a Redis Cluster."""

from __future__ import annotations

import asyncio

import pytest

from clients import CardroomClient
from server.tools.bench.procs import free_port
from server.tools.bench.redis_cluster import RedisCluster
from server.tools.bench.redis_server import RedisServer
from tests.support.redis_games import (
    Acked,
    assert_log_holds,
    play,
    play_to_the_end,
    serving,
)

pytestmark = pytest.mark.slow


async def test_sigkill_mid_game_every_player_resumes(
    any_redis: RedisServer | RedisCluster,
) -> None:
    redis_server = any_redis
    port = free_port()
    acked: Acked = {}
    async with serving(port, redis_server.url) as first:
        url = f"ws://127.0.0.1:{port}/"
        ann = await CardroomClient.connect(url)
        bob = await CardroomClient.connect(url)
        await ann.create("shithead", seats=3, name="Ann")
        assert ann.room is not None and ann.token is not None
        await bob.join(ann.room, name="Bob")
        assert bob.token is not None
        await ann.host("start")  # the empty third seat gets a bot
        await play([ann, bob], acked, 12)
        last_seen = max(ann.version or 0, bob.version or 0)
        first.kill()  # SIGKILL: no shutdown, no final save
        await first.wait()
        room, tokens = ann.room, {"ann": ann.token, "bob": bob.token}
        await asyncio.gather(ann.close(), bob.close())

    async with serving(port, redis_server.url):  # a fresh process: nothing in memory
        ann = await CardroomClient.connect(url)
        bob = await CardroomClient.connect(url)
        await ann.resume(room, tokens["ann"])
        await bob.resume(room, tokens["bob"])
        resumed = await ann.wait_state(timeout=10)
        # the game goes on from where it was: nothing acknowledged is missing
        assert resumed.version >= max(acked) and resumed.version >= last_seen
        await play_to_the_end([ann, bob], acked)

    await assert_log_holds(redis_server.url, room, acked)
