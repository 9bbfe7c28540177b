"""More Redis commands in flight than the pool has connections wait for one (a real
redis-server): redis-py's default pool failed the 101st at once (``MaxConnectionsError``), which
turned into ``store_unavailable`` for players when 300 people played on two processes."""

from __future__ import annotations

import asyncio

import pytest

from server.store.redis_client import POOL_SIZE, connect
from server.tools.bench.redis_server import RedisServer

pytestmark = pytest.mark.slow


async def test_commands_beyond_the_pool_wait_for_a_connection(redis_server: RedisServer) -> None:
    client = connect(redis_server.url)
    try:
        # each BLPOP holds its connection for 0.1 s: 160 at once need the pool 3 times over
        async with asyncio.timeout(10):
            got = await asyncio.gather(*(client.blpop([f"k{i}"], 0.1) for i in range(160)))
        assert got == [None] * 160
        clients = await client.info("clients")
        assert clients["connected_clients"] <= POOL_SIZE  # what Redis saw of this process
    finally:
        await client.aclose()
