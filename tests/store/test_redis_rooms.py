"""The Redis room store against a real redis-server: racing writers, leases and takeovers,
expiry, and what happens while Redis is away."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from server.store.base import Fenced, StoreUnavailable, VersionConflict
from server.store.lease import Held, Lease, Leases
from server.store.redis_client import connect, global_key, room_key
from server.store.redis_store import RedisStore
from server.tools.bench.redis_server import RedisServer


def entry(v: int, writer: int) -> dict[str, Any]:
    return {"v": v, "g": 0, "s": writer, "a": f"play {writer}"}


async def test_racing_writers_each_version_has_one_winner(redis_server: RedisServer) -> None:
    # four processes' worth of clients, each on its own connection, all appending every version
    writers = [RedisStore(redis_server.url) for _ in range(4)]
    try:
        assert await writers[0].create("RACES", {"version": 0})
        for v in range(1, 41):
            results = await asyncio.gather(
                *(w.append("RACES", entry(v, i)) for i, w in enumerate(writers)),
                return_exceptions=True,
            )
            winners = [i for i, r in enumerate(results) if r is None]
            assert len(winners) == 1, results
            for r in results:
                if r is not None:
                    assert isinstance(r, VersionConflict)  # the losers learn it
                    assert (r.version, r.stored) == (v, v)
        stored = await writers[1].load("RACES")
        assert stored is not None
        assert [e["v"] for e in stored.actions] == list(range(1, 41))
    finally:
        for w in writers:
            await w.close()


@pytest.mark.slow
async def test_old_owner_cannot_write_after_a_takeover(redis_server: RedisServer) -> None:
    client_a, client_b = connect(redis_server.url), connect(redis_server.url)
    leases_a = Leases(client_a, "process-a", ttl=0.3)
    leases_b = Leases(client_b, "process-b", ttl=5.0)
    store_a, store_b = RedisStore(client=client_a), RedisStore(client=client_b)
    try:
        lease_a = await leases_a.acquire("TAKEN")
        assert isinstance(lease_a, Lease)
        assert await store_a.create("TAKEN", {"version": 0}, fence=lease_a.fence)
        await store_a.append("TAKEN", entry(1, 0), fence=lease_a.fence)

        held = await leases_b.acquire("TAKEN")  # A holds it: B is told who does
        assert isinstance(held, Held)
        assert held == Held("TAKEN", "process-a", lease_a.fence, held.expires_in)
        assert 0 < held.expires_in <= 0.3

        # A is paused past its lease (no renewal); B takes the room over
        deadline = time.monotonic() + 5
        while await leases_b.holder("TAKEN") is not None:
            assert time.monotonic() < deadline, "the lease never ran out"
            await asyncio.sleep(0.05)
        lease_b = await leases_b.acquire("TAKEN")
        assert isinstance(lease_b, Lease) and lease_b.fence > lease_a.fence

        # A wakes up and tries to go on: every write is refused, and A learns why
        with pytest.raises(Fenced) as refused:
            await store_a.append("TAKEN", entry(2, 0), fence=lease_a.fence)
        assert refused.value.current == lease_b.fence
        with pytest.raises(Fenced):
            await store_a.save("TAKEN", {"version": 9}, fence=lease_a.fence)
        with pytest.raises(Fenced):
            await store_a.delete("TAKEN", fence=lease_a.fence)
        assert not await leases_a.renew(lease_a)
        assert not await leases_a.release(lease_a)

        await store_b.append("TAKEN", entry(2, 1), fence=lease_b.fence)  # the new owner goes on
        stored = await store_b.load("TAKEN")
        assert stored is not None and stored.actions == [entry(1, 0), entry(2, 1)]
    finally:
        await store_a.close()
        await store_b.close()


async def test_lease_renew_release_and_tokens_that_grow(redis_server: RedisServer) -> None:
    client = connect(redis_server.url)
    a, b = Leases(client, "a", ttl=5.0), Leases(client, "b", ttl=5.0)
    try:
        first = await a.acquire("ROOMX")
        assert isinstance(first, Lease)
        assert await a.acquire("ROOMX") == first  # already ours: renewed, same token
        assert await a.renew(first)
        assert isinstance(await b.acquire("ROOMX"), Held)
        assert await a.release(first)
        second = await b.acquire("ROOMX")  # free at once after a release
        assert isinstance(second, Lease) and second.fence > first.fence
        other = await a.acquire("ROOMY")  # one counter for all rooms: tokens never repeat
        assert isinstance(other, Lease) and other.fence > second.fence
        holder = await b.holder("ROOMX")
        assert isinstance(holder, Held)
        assert holder == Held("ROOMX", "b", second.fence, holder.expires_in)
        assert holder.expires_in == pytest.approx(5, 0.1)
    finally:
        await client.aclose()


@pytest.mark.slow
async def test_rooms_expire_and_every_write_keeps_them_alive(redis_server: RedisServer) -> None:
    store = RedisStore(redis_server.url, room_ttl=0.5, history_ttl=0.5)
    try:
        assert await store.create("IDLEX", {"version": 0})
        await store.add_history("IDLEX", {"g": 0})
        ttl = await store.redis.pttl(room_key("IDLEX", "room"))
        await asyncio.sleep(0.2)
        await store.append("IDLEX", entry(1, 0))
        for part in ("room", "log", "hist"):  # the write pushed every key's expiry back
            assert await store.redis.pttl(room_key("IDLEX", part)) > ttl - 150
        deadline = time.monotonic() + 5
        while await store.load("IDLEX") is not None:
            assert time.monotonic() < deadline, "the room never expired"
            await asyncio.sleep(0.05)
        assert await store.list() == []
        assert await store.history("IDLEX") == []
    finally:
        await store.close()


@pytest.mark.slow
async def test_the_room_index_forgets_expired_rooms_without_a_listing(
    redis_server: RedisServer,
) -> None:
    # a service on Redis never lists its rooms: the index must not keep every code ever used
    store = RedisStore(redis_server.url, room_ttl=0.2, history_ttl=0.2)
    index = global_key("rooms")
    try:
        for code in ("GONEA", "GONEB", "GONEC"):
            assert await store.create(code, {"version": 0})
        assert await store.redis.zcard(index) == 3
        await asyncio.sleep(0.3)  # all three expired
        assert await store.create("ALIVE", {"version": 0})
        assert await store.redis.zrange(index, 0, -1) == [b"ALIVE"]
    finally:
        await store.close()


async def test_history_of_a_closed_room_expires(redis_server: RedisServer) -> None:
    store = RedisStore(redis_server.url, room_ttl=60, history_ttl=0.3)
    try:
        assert await store.create("DONEX", {"version": 0})
        await store.add_history("DONEX", {"g": 0, "log": []})
        await store.delete("DONEX")
        assert await store.history("DONEX") == [{"g": 0, "log": []}]
        assert 0 < await store.redis.pttl(room_key("DONEX", "hist")) <= 300
    finally:
        await store.close()


async def test_unavailable_while_redis_is_away_then_recovers(redis_server: RedisServer) -> None:
    store = RedisStore(redis_server.url)
    leases = Leases(store.redis, "a")
    try:
        assert await store.create("AWAYX", {"version": 0})
        await store.append("AWAYX", entry(1, 0))
        assert await store.available()

        redis_server.stop()
        assert not await store.available()
        started = time.monotonic()
        with pytest.raises(StoreUnavailable):
            await store.append("AWAYX", entry(2, 0))
        assert time.monotonic() - started < 3  # fails fast, does not hang the room
        with pytest.raises(StoreUnavailable):
            await store.load("AWAYX")
        with pytest.raises(StoreUnavailable):
            await store.list()
        with pytest.raises(StoreUnavailable):
            await leases.acquire("AWAYX")

        redis_server.start()  # same port, same data (append-only file)
        assert await store.available()
        await store.append("AWAYX", entry(2, 0))  # the same client recovered by itself
        stored = await store.load("AWAYX")
        assert stored is not None and [e["v"] for e in stored.actions] == [1, 2]
        assert isinstance(await leases.acquire("AWAYX"), Lease)
    finally:
        await store.close()


async def test_acknowledged_writes_survive_a_redis_kill(redis_server: RedisServer) -> None:
    store = RedisStore(redis_server.url)
    try:
        assert await store.create("KILLX", {"version": 0})
        for v in range(1, 6):
            await store.append("KILLX", entry(v, 0))
        redis_server.stop(kill=True)  # SIGKILL: only what reached the append-only file is left
        redis_server.start()
        stored = await store.load("KILLX")
        assert stored is not None and [e["v"] for e in stored.actions] == [1, 2, 3, 4, 5]
    finally:
        await store.close()
