"""Where the Redis stores put their keys: on a Redis Cluster every key of a room is in the room's
slot (the cluster itself refuses a script across slots, CROSSSLOT, so every script run here is
proved single-slot), rooms spread over the masters are all listed, and a code used again never
repeats a fence token; one Redis keeps the keys it always had, so a store written before loads.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio.cluster import RedisCluster as ClusterClient

from server.store.base import Fenced, StoreUnavailable
from server.store.lease import Lease, Leases
from server.store.redis_client import connect, global_key, room_key
from server.store.redis_cluster import bus_client, seeds
from server.store.redis_store import RedisStore
from server.tools.bench.redis_cluster import RedisCluster
from server.tools.bench.redis_server import RedisServer


def entry(v: int) -> dict[str, Any]:
    return {"v": v, "g": 0, "s": 0, "a": "play 3C"}


async def _a_room_with_everything(store: RedisStore, leases: Leases, code: str) -> Lease:
    """A room with a lease, a log, a saved record and a finished game in its history."""
    lease = await leases.acquire(code)
    assert isinstance(lease, Lease)
    assert await store.create(code, {"version": 0}, fence=lease.fence)
    await store.append(code, entry(1), fence=lease.fence)
    await store.save(code, {"version": 1}, fence=lease.fence)
    await store.add_history(code, {"g": 0}, fence=lease.fence)
    assert await leases.renew_all([lease]) == [True]
    return lease


async def test_every_key_of_a_room_is_in_its_slot(redis_cluster: RedisCluster) -> None:
    client = connect(redis_cluster.url)
    assert isinstance(client, ClusterClient)
    store, leases = RedisStore(client=client), Leases(client, "me")
    try:
        codes = [f"SLOT{c}" for c in "ABCDEFGHJK"]
        held = {code: await _a_room_with_everything(store, leases, code) for code in codes}
        keys = sorted([k.decode() async for k in client.scan_iter(match="cr:*", count=1000)])
        for code in codes:
            mine = [k for k in keys if f"{{{code}}}" in k]
            parts = ("room", "log", "fence", "hist", "lease")
            assert sorted(mine) == sorted(room_key(code, p) for p in parts)
            assert len({client.keyslot(k) for k in mine}) == 1
        # nothing global was written for the rooms: no index, no fence counter
        assert [k for k in keys if "{" not in k] == []
        # the ten rooms sit on more than one master, and all are listed
        nodes = {client.get_node_from_key(room_key(code, "room")) for code in codes}
        assert None not in nodes and len(nodes) > 1
        assert await store.list() == sorted(codes)
        await store.delete(codes[0], fence=held[codes[0]].fence)
        assert await store.list() == sorted(codes[1:])
    finally:
        await client.aclose()


async def test_a_code_used_again_on_a_cluster_never_repeats_a_token(
    redis_cluster: RedisCluster,
) -> None:
    client = connect(redis_cluster.url)
    store, leases = RedisStore(client=client), Leases(client, "a", ttl=5.0)
    try:
        first = await _a_room_with_everything(store, leases, "AGAIN")
        taken = await Leases(client, "b").acquire("AGAIN")  # held by "a": refused
        assert not isinstance(taken, Lease) and taken.fence == first.fence
        await store.delete("AGAIN", fence=first.fence)  # the room and its fence key go
        assert not await client.exists(room_key("AGAIN", "fence"))
        again = await Leases(client, "b").acquire("AGAIN")
        assert isinstance(again, Lease) and again.fence > first.fence
        # the old owner's writes to the new room under the old token are refused
        assert await store.create("AGAIN", {"version": 0}, fence=again.fence)
        with pytest.raises(Fenced):
            await store.append("AGAIN", entry(1), fence=first.fence)
    finally:
        await client.aclose()


async def test_one_redis_keeps_its_keys_and_loads_a_room_written_before(
    redis_server: RedisServer,
) -> None:
    client = connect(redis_server.url)
    store, leases = RedisStore(client=client), Leases(client, "me")
    try:
        # a room as the store wrote it before the cluster: the same keys, read by today's code
        await client.hset(room_key("OLDER", "room"), mapping={"rec": '{"version":1}', "v": 1})
        await client.rpush(room_key("OLDER", "log"), '{"v":1,"g":0,"s":0,"a":"ready"}')
        await client.zadd(global_key("rooms"), {"OLDER": 2**50})
        await client.set(global_key("fences"), 41)
        stored = await store.load("OLDER")
        assert stored is not None and dict(stored.record) == {"version": 1}
        lease = await leases.acquire("OLDER")
        assert isinstance(lease, Lease) and lease.fence > 41  # the one counter goes on
        await store.append("OLDER", entry(2), fence=lease.fence)
        await _a_room_with_everything(store, leases, "NEWER")
        assert await store.list() == ["NEWER", "OLDER"]  # the one index, as before
        assert await client.zscore(global_key("rooms"), "NEWER") is not None
    finally:
        await store.close()  # its batch's own connection, then the client


def test_a_cluster_url_names_its_seeds() -> None:
    assert seeds("redis+cluster://127.0.0.1:7000,localhost:7001") == [
        ("127.0.0.1", 7000),
        ("localhost", 7001),
    ]
    for bad in ("redis://127.0.0.1:7000", "redis+cluster://", "redis+cluster://u:p@h:1"):
        with pytest.raises(ValueError):
            seeds(bad)
    # processes given the same seeds in another order publish and listen on the same node
    # (a PUBLISH's reply counts that node's subscribers only)
    for url in (
        "redis+cluster://127.0.0.2:7001,127.0.0.1:7002",
        "redis+cluster://127.0.0.1:7002,127.0.0.2:7001",
    ):
        kwargs = bus_client(url, 1.0).connection_pool.connection_kwargs
        assert (kwargs["host"], kwargs["port"]) == ("127.0.0.1", 7002)


@pytest.mark.slow
async def test_a_cluster_node_away_is_store_unavailable_then_back(tmp_path: Path) -> None:
    """A master of the room's slot stopped: the room's writes are refused as
    ``StoreUnavailable`` (no other error escapes), and go on once the node is back."""
    with RedisCluster(tmp_path) as cluster:
        store = RedisStore(cluster.url)
        try:
            assert await store.create("AWAYX", {"version": 0})
            assert isinstance(store.redis, ClusterClient)
            home = store.redis.get_node_from_key(room_key("AWAYX", "room"))
            assert home is not None
            node = next(n for n in cluster.nodes if n.port == home.port)
            node.stop()
            with pytest.raises(StoreUnavailable):
                await store.append("AWAYX", entry(1))
            assert not await store.available()
            node.start()
            deadline = time.monotonic() + 20
            while True:  # the node rejoins from its nodes.conf
                try:
                    await store.append("AWAYX", entry(1))
                    break
                except StoreUnavailable:
                    assert time.monotonic() < deadline, "the cluster never took writes again"
                    await asyncio.sleep(0.1)
            stored = await store.load("AWAYX")
            assert stored is not None and [e["v"] for e in stored.actions] == [1]
        finally:
            await store.close()


async def test_a_fresh_cluster_client_takes_writes_at_once(redis_cluster: RedisCluster) -> None:
    """A process's first writes come together (rooms reopened, players back): a fresh client's
    commands at once must not race its discovery of the nodes (they failed 14 runs of 20)."""
    for run in range(5):
        store = RedisStore(redis_cluster.url)
        try:
            created = await asyncio.gather(
                *(store.create(f"F{run}{i:03d}", {"version": 0}) for i in range(40))
            )
            assert all(created)
        finally:
            await store.close()
