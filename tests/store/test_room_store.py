"""What every room store promises (the in-memory default, Redis and a Redis Cluster alike):
records and logs round-trip, each version is appended once, a stale writer learns it and
changes nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.store.base import Fenced, RoomGone, RoomStore, VersionConflict
from server.store.memory import MemoryStore
from server.store.redis_store import RedisStore
from server.tools.bench.redis_cluster import RedisCluster
from server.tools.bench.redis_server import RedisServer


@pytest.fixture(params=["memory", pytest.param("redis_server", id="redis"), "redis_cluster"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[RoomStore]:
    if request.param == "memory":
        yield MemoryStore()
        return
    # a cluster refuses a script whose keys are in several slots (CROSSSLOT): every script
    # of the store runs here
    server: RedisServer | RedisCluster = request.getfixturevalue(request.param)
    redis = RedisStore(server.url)
    yield redis
    await redis.close()


def record(version: int = 0, **extra: Any) -> dict[str, Any]:
    return {"code": "ABCDE", "version": version, "seats": [{"name": "Ann"}], **extra}


def entry(v: int, action: str = "ready", seat: int = 0) -> dict[str, Any]:
    return {"v": v, "g": 0, "s": seat, "a": action}


async def test_create_load_round_trip(store: RoomStore) -> None:
    assert await store.load("ABCDE") is None
    assert await store.create("ABCDE", record(3))
    assert not await store.create("ABCDE", record(0, other=True))  # the code is taken
    for v in (4, 5, 6):
        await store.append("ABCDE", entry(v, f"play {v}C"))
    stored = await store.load("ABCDE")
    assert stored is not None
    assert stored.record == record(3)
    assert [e["v"] for e in stored.actions] == [4, 5, 6]
    assert stored.actions[1] == entry(5, "play 5C")
    assert await store.list() == ["ABCDE"]


async def test_append_needs_the_next_version(store: RoomStore) -> None:
    await store.create("ABCDE", record(1))
    await store.append("ABCDE", entry(2))
    with pytest.raises(VersionConflict) as skipped:
        await store.append("ABCDE", entry(4))  # version 3 would be lost
    assert (skipped.value.version, skipped.value.stored) == (4, 2)
    with pytest.raises(VersionConflict) as taken:
        await store.append("ABCDE", entry(2, "pickup"))  # version 2 is someone else's
    assert taken.value.stored == 2
    stored = await store.load("ABCDE")
    assert stored is not None and stored.actions == [entry(2)]


async def test_a_retried_append_is_kept_once(store: RoomStore) -> None:
    await store.create("ABCDE", record(0))
    await store.append("ABCDE", entry(1, "play 3C"))
    await store.append("ABCDE", entry(1, "play 3C"))  # the reply was lost; the caller retries
    stored = await store.load("ABCDE")
    assert stored is not None and stored.actions == [entry(1, "play 3C")]


async def test_save_never_goes_back_a_version(store: RoomStore) -> None:
    await store.create("ABCDE", record(0))
    await store.save("ABCDE", record(1, host=0))  # the match started
    await store.append("ABCDE", entry(2))
    await store.save("ABCDE", record(2, locked=True))  # same version: a lobby change
    with pytest.raises(VersionConflict):
        await store.save("ABCDE", record(1, stale=True))
    stored = await store.load("ABCDE")
    assert stored is not None and stored.record == record(2, locked=True)
    await store.append("ABCDE", entry(3))  # the log goes on from the saved version


async def test_writes_to_a_missing_room_are_refused(store: RoomStore) -> None:
    with pytest.raises(RoomGone):
        await store.append("ZZZZZ", entry(1))
    with pytest.raises(RoomGone):
        await store.save("ZZZZZ", record(1))
    with pytest.raises(RoomGone):
        await store.add_history("ZZZZZ", {"g": 0})
    assert await store.load("ZZZZZ") is None
    await store.delete("ZZZZZ")  # forgetting what is not there is fine


async def test_a_writer_with_another_fence_is_refused(store: RoomStore) -> None:
    await store.create("ABCDE", record(0), fence=7)
    await store.append("ABCDE", entry(1), fence=7)
    for fence in (0, 6, 8):
        with pytest.raises(Fenced) as refused:
            await store.append("ABCDE", entry(2), fence=fence)
        assert refused.value.current == 7
        with pytest.raises(Fenced):
            await store.save("ABCDE", record(5), fence=fence)
        with pytest.raises(Fenced):
            await store.delete("ABCDE", fence=fence)
    stored = await store.load("ABCDE")
    assert stored is not None and stored.actions == [entry(1)] and stored.record == record(0)


async def test_history_outlives_the_room(store: RoomStore) -> None:
    await store.create("ABCDE", record(0))
    await store.add_history("ABCDE", {"g": 1, "log": [[0, "ready"]]})
    await store.add_history("ABCDE", {"g": 0, "log": []})
    await store.add_history("ABCDE", {"g": 1, "log": [[0, "ready"]]})  # a retry: kept once
    await store.delete("ABCDE")
    assert await store.load("ABCDE") is None
    assert await store.list() == []
    assert [h["g"] for h in await store.history("ABCDE")] == [0, 1]
    # the code used again starts with no history
    assert await store.create("ABCDE", record(0))
    assert await store.history("ABCDE") == []


async def test_a_retried_create_is_created_once(store: RoomStore) -> None:
    assert await store.create("ABCDE", record(0), fence=3)
    assert await store.create("ABCDE", record(0), fence=3)  # the reply was lost; sent again
    assert not await store.create("ABCDE", record(0), fence=4)  # another writer's
    assert not await store.create("ABCDE", record(0, other=True), fence=3)
    await store.append("ABCDE", entry(1), fence=3)
    assert not await store.create("ABCDE", record(0), fence=3)  # the room has moved on
    stored = await store.load("ABCDE")
    assert stored is not None and stored.actions == [entry(1)]
