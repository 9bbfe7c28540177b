"""The Play now line's rules, in memory and on a real Redis alike: one entry per player,
places kept across a dead connection, all-or-nothing takes, the bound on a game's line, a
bot seat of an open table to one arrival, and seats given kept until they are resumed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from server.store.queue import (
    AlreadyQueued,
    Assignment,
    Entry,
    MemoryQueue,
    OpenTable,
    QueueFull,
    QueueStore,
)
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
    player: str,
    *,
    game: str = "shithead",
    conn: int = 1,
    owner: str = "p1",
    at: float = 100.0,
    origin: str | None = None,
) -> Entry:
    return Entry(player, game, player.title(), 0.0, at, origin, owner, conn, at)


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


async def test_a_bot_seat_goes_to_one_arrival(line: QueueStore) -> None:
    await line.offer(OpenTable("ROOMA", "shithead", (3,), 200.0, ("o-ann",)))
    for p, conn in (("bob", 1), ("cid", 2)):
        await line.join(entry(p, conn=conn, origin=f"o-{p}"), now=100.0, stale=STALE, most=2)
    # two arrivals for one seat at the same moment: one of them has it
    got = await asyncio.gather(
        line.take_seat("bob", "p1", 1, 101.0), line.take_seat("cid", "p1", 2, 101.0)
    )
    assert sorted(got, key=str) == [("ROOMA", 3), None]
    winner = "bob" if got[0] else "cid"
    # the one seated left the line (and its count: the line has room for one more), the
    # other waits in it, and the table has no seat left
    assert [e.player for e in await line.entries("shithead")] == [
        p for p in ("bob", "cid") if p != winner
    ]
    await line.join(entry("dan", conn=3), now=101.0, stale=STALE, most=2)
    assert await line.take_seat("dan", "p1", 3, 101.0) is None
    assert await line.tables() == []  # its last seat went


async def test_an_open_table_keeps_its_rules(line: QueueStore) -> None:
    await line.offer(OpenTable("ROOMA", "shithead", (2, 3), 200.0, ("o-ann",)))
    await line.join(entry("ann2", origin="o-ann"), now=100.0, stale=STALE, most=10)
    await line.join(entry("sue", game="sheepshead", conn=2), now=100.0, stale=STALE, most=10)
    await line.join(entry("bob", conn=3, origin="o-bob"), now=100.0, stale=STALE, most=10)
    # one address a table; another game's table; another connection's entry: no seat
    assert await line.take_seat("ann2", "p1", 1, 101.0) is None
    assert await line.take_seat("sue", "p1", 2, 101.0) is None
    assert await line.take_seat("bob", "p1", 9, 101.0) is None
    # the window closes: no seat, and the table is forgotten
    assert await line.take_seat("bob", "p1", 3, 200.0) is None
    assert await line.tables() == []
    assert len(await line.entries("shithead")) == 2  # nobody left the line for nothing
    await line.offer(OpenTable("ROOMB", "shithead", (2, 3), 300.0, ()))
    assert await line.take_seat("bob", "p1", 3, 201.0) == ("ROOMB", 2)
    # the next arrival of that address is kept from the table too
    await line.join(entry("bob2", conn=4, origin="o-bob"), now=201.0, stale=STALE, most=10)
    assert await line.take_seat("bob2", "p1", 4, 201.0) is None
    assert await line.take_seat("ann2", "p1", 1, 201.0) == ("ROOMB", 3)


async def test_a_seat_given_is_kept_until_resumed(line: QueueStore) -> None:
    given = Assignment("ROOMA", "shithead", 1, "tok", 200.0)
    await line.assign("ann", given)
    assert await line.assigned("ann", 100.0) == given
    assert await line.assigned("bob", 100.0) is None
    await line.confirm("ann", "ROOMB")  # another room's resume confirms nothing
    assert await line.assigned("ann", 100.0) == given
    await line.confirm("ann", "ROOMA")
    assert await line.assigned("ann", 100.0) is None
    # one never resumed is given no more once its time is over, and purged
    await line.assign("bob", Assignment("ROOMA", "shithead", 2, "tok2", 150.0))
    assert await line.assigned("bob", 149.0) is not None
    assert await line.assigned("bob", 150.0) is None
    await line.offer(OpenTable("ROOMA", "shithead", (3,), 150.0, ()))
    await line.purge(150.0, keep=30.0)
    assert await line.tables() == []
    await line.assign("bob", Assignment("ROOMA", "shithead", 2, "tok2", 151.0))
    assert await line.assigned("bob", 150.0) is not None  # purged only when its time is over
