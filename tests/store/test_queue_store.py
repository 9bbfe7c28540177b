"""The Play now line's rules, in memory and on a real Redis alike: one entry per player,
places kept across a dead connection, all-or-nothing takes, the bound on a game's line."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.store.queue import AlreadyQueued, Entry, MemoryQueue, QueueFull, QueueStore
from server.store.redis_client import connect
from server.store.redis_queue import RedisQueue
from server.tools.bench.redis_server import RedisServer

STALE = 5.0


@pytest.fixture(params=["memory", "redis"])
async def line(request: pytest.FixtureRequest) -> AsyncIterator[QueueStore]:
    if request.param == "memory":
        yield MemoryQueue()
        return
    redis: RedisServer = request.getfixturevalue("redis_server")
    client = connect(redis.url)
    yield RedisQueue(client)
    await client.aclose()


def entry(
    player: str, *, game: str = "shithead", conn: int = 1, owner: str = "p1", at: float = 100.0
) -> Entry:
    return Entry(player, game, player.title(), 0.0, at, None, owner, conn, at)


async def test_one_entry_per_player(line: QueueStore) -> None:
    await line.join(entry("ann"), now=100.0, stale=STALE, most=10)
    for second in (entry("ann"), entry("ann", conn=2), entry("ann", owner="p2", game="sheepshead")):
        with pytest.raises(AlreadyQueued):
            await line.join(second, now=101.0, stale=STALE, most=10)
    assert [e.player for e in await line.entries("shithead")] == ["ann"]
    assert await line.entries("sheepshead") == []


async def test_a_stale_entry_is_taken_over_with_its_place(line: QueueStore) -> None:
    await line.join(entry("ann", at=100.0), now=100.0, stale=STALE, most=10)
    # its process died: not heard from for STALE seconds; Ann queues again elsewhere
    later = entry("ann", owner="p2", conn=9, at=110.0)
    stored = await line.join(later, now=110.0, stale=STALE, most=10)
    assert (stored.since, stored.owner, stored.conn) == (100.0, "p2", 9)
    # nobody takes a stale entry
    await line.join(entry("bob", at=110.0), now=110.0, stale=STALE, most=10)
    assert await line.take("shithead", ["bob"], now=120.0, stale=STALE) == []


async def test_take_is_all_or_nothing(line: QueueStore) -> None:
    for p in ("ann", "bob"):
        await line.join(entry(p), now=100.0, stale=STALE, most=10)
    assert await line.take("shithead", ["ann", "cid"], now=101.0, stale=STALE) == []
    assert len(await line.entries("shithead")) == 2
    taken = await line.take("shithead", ["ann", "bob"], now=101.0, stale=STALE)
    assert sorted(e.player for e in taken) == ["ann", "bob"]
    assert await line.take("shithead", ["ann"], now=101.0, stale=STALE) == []
    assert await line.entries("shithead") == []


async def test_a_game_line_is_bounded(line: QueueStore) -> None:
    await line.join(entry("ann"), now=100.0, stale=STALE, most=2)
    await line.join(entry("bob"), now=100.0, stale=STALE, most=2)
    with pytest.raises(QueueFull):
        await line.join(entry("cid"), now=100.0, stale=STALE, most=2)
    await line.join(entry("cid", game="sheepshead"), now=100.0, stale=STALE, most=2)
    assert await line.leave("ann", "p1", 1)
    await line.join(entry("dan"), now=100.0, stale=STALE, most=2)  # room again


async def test_leave_touch_and_purge(line: QueueStore) -> None:
    await line.join(entry("ann"), now=100.0, stale=STALE, most=10)
    assert not await line.leave("ann", "p1", 2)  # another connection's leave removes nothing
    await line.touch([("ann", 1)], "p1", 150.0)
    assert (await line.entries("shithead"))[0].seen == 150.0
    assert await line.purge(160.0, 30.0) == 0
    assert await line.purge(181.0, 30.0) == 1
    assert await line.entries("shithead") == []
    await line.join(entry("bob"), now=200.0, stale=STALE, most=1)  # the count went with it
