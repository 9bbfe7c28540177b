"""Event records in memory and in Redis (server/store/events.py): each save lands only onto the
version it replaces, so two processes applying inputs to one event never lose one; an event over
leaves the open codes; a restarted Redis (its append-only file) still holds them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.store.base import RoomGone, VersionConflict
from server.store.events import EventStore, MemoryEvents, RedisEvents
from server.store.redis_client import connect
from server.tools.bench.redis_server import RedisServer


@pytest.fixture(params=["memory", "redis_server", "redis_cluster"])
async def events(request: pytest.FixtureRequest) -> AsyncIterator[EventStore]:
    if request.param == "memory":
        yield MemoryEvents()
        return
    server = request.getfixturevalue(request.param)
    client = connect(server.url)
    yield RedisEvents(client)
    await client.aclose()


def rec(version: int, phase: str = "playing", **more: Any) -> dict[str, Any]:
    return {"version": version, "phase": phase, **more}


async def test_a_save_lands_only_onto_the_version_it_replaces(events: EventStore) -> None:
    assert await events.create("K7QPX", rec(0, "lobby"))
    assert not await events.create("K7QPX", rec(0, "lobby", other=1))  # the code is taken
    await events.save("K7QPX", rec(1, people=["a"]))
    with pytest.raises(VersionConflict) as info:  # a second process's save of version 1
        await events.save("K7QPX", rec(1, people=["b"]))
    assert info.value.stored == 1
    with pytest.raises(VersionConflict):  # nor can a version be skipped
        await events.save("K7QPX", rec(3))
    assert await events.load("K7QPX") == rec(1, people=["a"])
    with pytest.raises(RoomGone):
        await events.save("NONEX", rec(1))
    assert await events.load("NONEX") is None


async def test_an_event_over_leaves_the_open_codes(events: EventStore) -> None:
    for code in ("AAAAA", "BBBBB"):
        assert await events.create(code, rec(0, "lobby"))
    assert await events.open_codes() == ["AAAAA", "BBBBB"]
    await events.save("AAAAA", rec(1, "over"))
    assert await events.open_codes() == ["BBBBB"]
    loaded = await events.load("AAAAA")
    assert loaded is not None and loaded["phase"] == "over"  # kept, for its page


async def test_a_restarted_redis_still_holds_the_events(redis_server: RedisServer) -> None:
    client = connect(redis_server.url)
    store = RedisEvents(client)
    assert await store.create("K7QPX", rec(0, "lobby"))
    await store.save("K7QPX", rec(1, scores=[1, 2]))
    await client.aclose()
    redis_server.restart()
    client = connect(redis_server.url)
    again = RedisEvents(client)
    assert await again.load("K7QPX") == rec(1, scores=[1, 2])
    assert await again.open_codes() == ["K7QPX"]
    await client.aclose()
