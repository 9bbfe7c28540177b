"""Refused ``create``s (and requests naming no room), however many, claim no room lease
and leave no fence key in Redis; the leases a process holds are renewed together, so a flood
of them cannot make a real room's lease run out."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest
from websockets.asyncio.client import connect

from clients import CardroomClient
from server.net.server import CardroomServer, ServerConfig
from server.rooms.settings import RoomSettings
from server.runtime.cluster import Cluster
from server.store.lease import LEASE_TTL, Lease, Leases
from server.store.redis_client import connect as redis_connect
from server.tools.bench.redis_cluster import RedisCluster
from server.tools.bench.redis_server import RedisServer

pytestmark = pytest.mark.slow

#: Two kinds of create every room refuses: too many seats, and hints in a daily room.
BAD_CREATES: tuple[dict[str, Any], ...] = (
    {"type": "create", "game": "shithead", "seats": 9, "name": "X"},
    {"type": "create", "game": "shithead", "seats": 3, "name": "X", "daily": True, "hints": True},
)


async def _server(redis_url: str) -> CardroomServer:
    config = ServerConfig(
        port=0,
        redis_url=redis_url,
        rate=10_000.0,
        burst=10_000.0,
        max_handshakes_per_address=100,  # 20 flooding connections open at once from 127.0.0.1
        # its watches of rooms that do not exist are about leases: past any budget of misses
        miss_rate=1e6,
        miss_burst=1e6,
        rooms=RoomSettings(bot_delay=0.0),
    )
    return CardroomServer(config)


async def _keys(redis_url: str, part: str) -> list[bytes]:
    client = redis_connect(redis_url)
    try:
        return [k async for k in client.scan_iter(f"cr:{{*}}:{part}", count=1000)]
    finally:
        await client.aclose()


async def _flood(url: str, creates: int) -> None:
    """Send ``creates`` refused creates (and as many watches of rooms that do not exist) and
    read every refusal."""
    async with connect(url) as ws:
        await ws.send(orjson.dumps({"type": "hello", "id": 0, "protocol": 1}).decode())
        await ws.recv()
        for i in range(creates):
            bad = {**BAD_CREATES[i % 2], "id": 2 * i + 1}
            await ws.send(orjson.dumps(bad).decode())
            code = "".join("ABCDEFGHJK"[int(d)] for d in f"{i:05d}")  # no room has it
            await ws.send(orjson.dumps({"type": "watch", "id": 2 * i + 2, "room": code}).decode())
        codes: list[str] = []
        while len(codes) < 2 * creates:
            msg = orjson.loads(await ws.recv())
            if msg["type"] == "error":
                codes.append(msg["code"])
        assert set(codes) == {"bad_seats", "hints_not_allowed", "room_not_found"}


@pytest.fixture
async def served(redis_server: RedisServer) -> AsyncIterator[CardroomServer]:
    server = await _server(redis_server.url)
    async with server:
        yield server


async def test_refused_creates_leave_no_lease_and_no_fence_key(
    redis_server: RedisServer, served: CardroomServer
) -> None:
    async with CardroomClient.connect(served.url) as ann:
        await ann.create("shithead", seats=3, name="Ann")
        code = ann.room
        assert code is not None
        # 20 connections, 2,000 refused creates and 2,000 watches of unknown rooms
        await asyncio.gather(*(_flood(served.url, 100) for _ in range(20)))

        cluster = served.manager.ownership
        assert isinstance(cluster, Cluster)
        assert list(cluster.held) == [code]  # only the real room's lease is held
        # released leases go at once; fence keys of codes that never held a room go with them
        leases = await _keys(redis_server.url, "lease")
        fences = await _keys(redis_server.url, "fence")
        assert leases == [f"cr:{{{code}}}:lease".encode()]
        assert fences == [f"cr:{{{code}}}:fence".encode()]

        # the real room keeps its lease through several renewals, and its player stays in it
        assert served.stores.redis is not None
        leases_api = Leases(served.stores.redis, cluster.owner)
        deadline = time.monotonic() + 2 * LEASE_TTL
        while time.monotonic() < deadline:
            holder = await leases_api.holder(code)
            assert holder is not None and holder.owner == cluster.owner
            await asyncio.sleep(0.2)
        assert ann.closing is None
        await ann.chat("still here")
        assert ann.room == code


async def test_a_lease_taken_for_no_room_keeps_no_fence_key(
    any_redis: RedisServer | RedisCluster,
) -> None:
    """Even a lease never released (its process died) leaves no fence key past its ttl when
    no room was stored under the code (on a cluster too, where that key is the counter)."""
    client = redis_connect(any_redis.url)
    try:
        leases = Leases(client, ttl=0.3)
        got = await leases.acquire("QQQQQ")
        assert isinstance(got, Lease)
        assert 0 < await client.pttl("cr:{QQQQQ}:fence") <= 300
        deadline = time.monotonic() + 5
        while await client.exists("cr:{QQQQQ}:fence", "cr:{QQQQQ}:lease"):
            assert time.monotonic() < deadline, "the lease or fence key outlived its ttl"
            await asyncio.sleep(0.05)
    finally:
        await client.aclose()


async def test_renew_all_renews_held_leases_and_reports_lost_ones(
    any_redis: RedisServer | RedisCluster,
) -> None:
    client = redis_connect(any_redis.url)  # a cluster: one call a lease, each in its slot
    try:
        mine, theirs = Leases(client, "mine"), Leases(client, "theirs")
        held = [await mine.acquire(f"R{i:04d}") for i in range(50)]
        assert all(isinstance(lease, Lease) for lease in held)
        leases = [lease for lease in held if isinstance(lease, Lease)]
        await client.delete("cr:{R0007}:lease")  # expired...
        assert isinstance(await theirs.acquire("R0007"), Lease)  # ...and taken over
        await mine.release(leases[9])  # given up
        kept = await mine.renew_all(leases)
        assert [i for i, k in enumerate(kept) if not k] == [7, 9]
        assert await mine.renew_all([]) == []
        holder = await mine.holder("R0003")
        assert holder is not None and holder.owner == "mine"
    finally:
        await client.aclose()
