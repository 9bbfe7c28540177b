"""The store on a primary watched by Sentinel (``redis+sentinel://``), and the durability
setting: ``replicated`` acknowledges a write only once a replica has it, and refuses it as
unavailable when none confirms in time; a failover is followed without a restart, and loses
nothing that was acknowledged under ``replicated``."""

from __future__ import annotations

import asyncio
import signal
import time

import pytest

from server.store.base import StoreUnavailable, VersionConflict
from server.store.batch import PRIMARY_CHECK
from server.store.lease import Lease, Leases
from server.store.redis_sentinel import Durability, sentinel_address
from server.store.redis_store import RedisStore
from server.tools.bench.redis_replicated import ReplicatedRedis
from server.tools.bench.redis_server import RedisServer


def entry(v: int) -> dict[str, object]:
    return {"v": v, "g": 0, "s": 0, "a": "ready"}


@pytest.mark.parametrize(
    "url",
    [
        "redis+sentinel://127.0.0.1:26379",  # no master's name
        "redis+sentinel:///cardroom",  # no Sentinel
        "redis+sentinel://u:p@127.0.0.1:26379/cardroom",  # credentials are not taken here
        "redis+sentinel://127.0.0.1:26379/cardroom/x",  # a database is a number
        "redis://127.0.0.1:6379/0",
    ],
)
def test_a_bad_sentinel_url_is_refused(url: str) -> None:
    with pytest.raises(ValueError):
        sentinel_address(url)


async def test_replicated_refuses_what_no_replica_confirms(redis_server: RedisServer) -> None:
    """A lone Redis has no replica: every write is refused within the replica timeout, and
    under ``local`` the same write is acknowledged."""
    replicated = RedisStore(
        redis_server.url, durability=Durability.REPLICATED, replica_timeout_ms=200
    )
    local = RedisStore(redis_server.url)
    try:
        assert await local.create("LONEA", {"version": 0})
        started = time.monotonic()
        with pytest.raises(StoreUnavailable, match="replicas confirmed"):
            await replicated.append("LONEA", entry(1))
        assert time.monotonic() - started < 2.0  # refused at the timeout, not hung
        # the outcome is unknown (on the primary, on no replica): the log may hold it
        stored = await local.load("LONEA")
        assert stored is not None and [e["v"] for e in stored.actions] == [1]
        await local.append("LONEA", entry(2))  # local: acknowledged by the primary alone
        # a refusal (a stale version) is answered as it is: nothing was written
        with pytest.raises(Exception) as refused:
            await replicated.append("LONEA", {**entry(1), "a": "swap"})
        assert not isinstance(refused.value, StoreUnavailable)
    finally:
        await replicated.close()
        await local.close()


@pytest.mark.slow
async def test_replicated_writes_survive_the_primary_killed(
    replicated_redis: ReplicatedRedis,
) -> None:
    """Writes acknowledged under ``replicated`` are all on the promoted replica; the store
    follows the failover by itself (no new client), and leases still fence."""
    store = RedisStore(replicated_redis.url, durability=Durability.REPLICATED)
    leases = Leases(store.redis, "me")
    acked: list[int] = []
    try:
        lease = await leases.acquire("FAILO")
        assert isinstance(lease, Lease)
        fence = lease.fence
        assert await store.create("FAILO", {"version": 0}, fence=fence)
        killed_at: float | None = None
        version = 1
        while version <= 400:
            if version == 200 and killed_at is None:
                assert replicated_redis.primary.process is not None
                replicated_redis.primary.process.send_signal(signal.SIGKILL)
                killed_at = time.monotonic()
            try:
                await store.append("FAILO", entry(version), fence=fence)
            except StoreUnavailable:
                assert killed_at is not None  # only while the primary is away
                assert time.monotonic() - killed_at < 30, "the failover never came"
                await asyncio.sleep(0.1)
                stored = await store.load("FAILO") if await store.available() else None
                if stored is not None and stored.actions and stored.actions[-1]["v"] == version:
                    acked.append(version)  # it landed after all (an unknown outcome)
                    version += 1
                continue
            acked.append(version)
            version += 1
        stored = await store.load("FAILO")
        assert stored is not None
        versions = [e["v"] for e in stored.actions]
        assert versions == list(range(1, 401))  # every acknowledged write, in order
        assert set(acked) <= set(versions)
        # the primary is a promoted replica now
        assert replicated_redis.serving() != replicated_redis.primary.port
        # a new token on the new primary is above the one taken on the old
        await leases.release(lease)  # (or it ran out during the failover)
        again = await leases.acquire("FAILO")
        assert isinstance(again, Lease) and again.fence > fence
    finally:
        await store.close()


@pytest.mark.slow
async def test_a_paused_primary_demoted_while_away_is_left(
    replicated_redis: ReplicatedRedis,
) -> None:
    """The primary stops (SIGSTOP) long enough for Sentinel to promote a replica, then comes
    back and is made a replica. The store left it as soon as Sentinel named another primary
    (a replica still attached to the old one would have confirmed writes there, all thrown
    away when it follows the new one): nothing acknowledged is lost."""
    store = RedisStore(
        replicated_redis.url, durability=Durability.REPLICATED, replica_timeout_ms=300
    )
    old = replicated_redis.primary
    acked: list[int] = []
    try:
        assert await store.create("PAUSE", {"version": 0})
        version, paused = 1, False
        deadline = time.monotonic() + 40
        while version <= 300:
            assert time.monotonic() < deadline, f"stuck at v{version}"
            if version == 100 and not paused:
                assert old.process is not None
                old.process.send_signal(signal.SIGSTOP)
                paused = True
                await asyncio.to_thread(replicated_redis.wait_failover)
                # back a second after it was replaced (and soon told to follow): the store
                # has left it by then, although a replica may still follow it for a moment
                await asyncio.sleep(4 * PRIMARY_CHECK)
                old.process.send_signal(signal.SIGCONT)
            try:
                await store.append("PAUSE", entry(version))
            except StoreUnavailable:
                await asyncio.sleep(0.1)
                continue
            except VersionConflict as conflict:  # unconfirmed writes landed, or were lost
                assert conflict.stored >= max(acked, default=0)  # never an acknowledged one
                version = conflict.stored + 1
                continue
            acked.append(version)
            version += 1
        stored = await store.load("PAUSE")
        assert stored is not None
        versions = [e["v"] for e in stored.actions]
        assert set(acked) <= set(versions)
        assert versions == sorted(set(versions))
        assert replicated_redis.serving() != old.port
    finally:
        await store.close()
