"""With Redis, what a room's input changes is stored whoever submits the input: here a timer
firing in a bare event-loop callback (no task; the Redis client's timeouts need one, so the
room runs such inputs in its own task rather than at once)."""

from __future__ import annotations

import asyncio

import pytest

from clients import CardroomClient
from server.net.server import CardroomServer, ServerConfig
from server.rooms.settings import RoomSettings
from server.tools.bench.redis_server import RedisServer

pytestmark = pytest.mark.slow


async def test_a_grace_timer_frees_a_lobby_seat_in_the_store(redis_server: RedisServer) -> None:
    rooms = RoomSettings(grace=0.2, idle_timeout=60.0, bot_delay=0.0)
    config = ServerConfig(
        port=0, rate=1000.0, burst=1000.0, rooms=rooms, redis_url=redis_server.url
    )
    async with CardroomServer(config) as server:
        ann = await CardroomClient.connect(server.url)
        await ann.create("shithead", seats=3, name="Ann")
        assert ann.room is not None
        bob = await CardroomClient.connect(server.url)
        await bob.join(ann.room, name="Bob")
        await bob.close()  # the grace timer (a loop callback) frees Bob's lobby seat
        for _ in range(50):
            stored = await server.store.load(ann.room)
            assert stored is not None
            if stored.record["seats"][1]["kind"] == "empty":
                break
            await asyncio.sleep(0.1)
        assert stored is not None and stored.record["seats"][1]["kind"] == "empty"
        await ann.close()
