"""Planned handover (no room lost): a process that stops hands each of its rooms to a live
peer at once (the lease moves with a higher fence, no waiting for it to run out), the peer
loads the room and runs its clocks, and the clients come back by themselves."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import pytest
from redis.asyncio.cluster import RedisCluster as ClusterClient

from clients import CardroomClient
from server.net.server import CardroomServer, ServerConfig
from server.rooms.settings import RoomSettings
from server.runtime.cluster import Cluster
from server.store.base import Fenced
from server.store.lease import Lease, Leases
from server.store.redis_client import connect as redis_connect
from server.store.redis_store import RedisStore
from server.tools.bench.handover import (
    back_in_seat,
    lost_actions,
    open_table,
    play_table,
)
from server.tools.bench.redis_cluster import RedisCluster
from server.tools.bench.redis_server import RedisServer


def _server(redis_url: str, grace: float = 60.0, max_rooms: int = 100) -> CardroomServer:
    config = ServerConfig(
        port=0,
        redis_url=redis_url,
        rate=10_000.0,
        burst=10_000.0,
        rooms=RoomSettings(bot_delay=0.0, grace=grace, max_rooms=max_rooms),
    )
    return CardroomServer(config)


def _handovers(server: CardroomServer, way: str) -> float:
    for line in server.metrics.render().decode().splitlines():
        if line.startswith(f'cardroom_handovers_total{{way="{way}"}}'):
            return float(line.split()[-1])
    return 0.0


def _cluster(server: CardroomServer) -> Cluster:
    ownership = server.manager.ownership
    assert isinstance(ownership, Cluster)
    return ownership


@asynccontextmanager
async def two_processes(
    redis_url: str, grace: float = 60.0, b_rooms: int = 100
) -> AsyncIterator[tuple[CardroomServer, CardroomServer]]:
    """Two servers on one Redis, each listening on its cluster channel before it is used
    (``b_rooms``: the second one's ``max_rooms``)."""
    async with AsyncExitStack() as stack:
        a = await stack.enter_async_context(_server(redis_url, grace))
        b = await stack.enter_async_context(_server(redis_url, grace, b_rooms))
        deadline = time.monotonic() + 10
        while len(await _cluster(a).peers()) < 1 or len(await _cluster(b).peers()) < 1:
            assert time.monotonic() < deadline, "the processes never heard of each other"
            await asyncio.sleep(0.02)
        yield a, b


async def test_transfer_moves_the_lease_at_once_with_a_higher_fence(
    redis_server: RedisServer,
) -> None:
    client = redis_connect(redis_server.url)
    store = RedisStore(client=client)
    try:
        a, b = Leases(client, "proc-a"), Leases(client, "proc-b")
        held = await a.acquire("HANDO")
        assert isinstance(held, Lease)
        assert await store.create("HANDO", {"version": 0}, fence=held.fence)
        moved = await a.transfer(held, "proc-b")
        assert moved is not None and moved.owner == "proc-b" and moved.fence > held.fence
        holder = await a.holder("HANDO")
        assert holder is not None and (holder.owner, holder.fence) == ("proc-b", moved.fence)
        assert holder.expires_in > 1.0  # a full lease for the new owner
        assert await b.acquire("HANDO") == moved  # already B's: no waiting for expiry
        assert not await a.renew(held)  # A lost it...
        assert await a.transfer(held, "proc-b") is None  # ...and cannot give it again
        with pytest.raises(Fenced):  # A's writes are fenced from the moment it moved
            await store.save("HANDO", {"version": 1}, fence=held.fence)
        await store.save("HANDO", {"version": 1}, fence=moved.fence)
    finally:
        await store.close()  # its batch's own connection, then the client


async def _script_calls(client: Any) -> int:
    """EVAL and EVALSHA calls this Redis has run so far (``INFO commandstats``)."""
    stats = await client.info("commandstats")
    return sum(int(stats.get(f"cmdstat_{c}", {}).get("calls", 0)) for c in ("eval", "evalsha"))


async def test_transfer_all_hands_many_rooms_over_in_one_call(
    any_redis: RedisServer | RedisCluster,
) -> None:
    client = redis_connect(any_redis.url)
    try:
        a, b, c = Leases(client, "proc-a"), Leases(client, "proc-b"), Leases(client, "proc-c")
        held = [await a.acquire(f"MANY{i}") for i in range(6)]
        assert all(isinstance(lease, Lease) for lease in held)
        ours = [lease for lease in held if isinstance(lease, Lease)]
        foreign = await c.acquire("OTHER")  # C's: A cannot give it away
        assert isinstance(foreign, Lease)
        stale = Lease("OTHER", "proc-a", foreign.fence)
        warm = await a.acquire("WARMS")  # the script loaded into Redis (its first call fails)
        assert isinstance(warm, Lease) and (await a.transfer_all([warm], "proc-b"))[0]
        before = None if isinstance(client, ClusterClient) else await _script_calls(client)
        moved = await a.transfer_all([*ours, stale], "proc-b")
        if before is not None:  # one Redis: one script call for all seven, not one a room
            assert await _script_calls(client) - before == 1
        assert moved[-1] is None and await c.renew(foreign)  # C keeps its room
        for old, new in zip(ours, moved, strict=False):
            assert new is not None and new.owner == "proc-b" and new.fence > old.fence
            assert await b.acquire(old.code) == new  # B's at once, at the new fence
            assert not await a.renew(old)  # A lost it
    finally:
        await client.aclose()


@pytest.mark.slow
async def test_a_stopping_process_hands_its_room_over_and_the_game_goes_on(
    redis_server: RedisServer,
) -> None:
    async with two_processes(redis_server.url) as (a, b):
        urls = [a.url, b.url]
        table = await open_table(urls, 0)  # hosted on A; one player relayed through B
        assert table.code in a.manager.rooms
        fence = _cluster(a).held[table.code].fence
        restarted = asyncio.Event()
        playing = asyncio.create_task(play_table(table, restarted))
        await table.clients[0].wait_state(lambda s: s.version >= 20, timeout=30)
        await a.stop()
        # at once, not after the lease ran out (today: released, nobody held it)
        holder = await _cluster(b).leases.holder(table.code)
        assert holder is not None
        assert holder.owner == _cluster(b).owner and holder.fence > fence
        assert _handovers(a, "given") == 1 and _handovers(b, "taken") == 1
        restarted.set()
        await asyncio.wait_for(playing, 60)  # the game went on to its end through B
        assert table.finished
        assert back_in_seat(table) == 3  # every client came back by itself
        assert table.longest_pause() < 2.0, table.pause_report()
    assert await lost_actions(redis_server.url, table) == 0
    for c in table.clients:
        await c.close()


@pytest.mark.slow
async def test_the_new_owner_loads_a_handed_over_room_at_once_and_runs_its_timers(
    redis_server: RedisServer,
) -> None:
    async with two_processes(redis_server.url, grace=0.3) as (a, b):
        ann = await CardroomClient.connect(a.url)
        await ann.create("shithead", seats=3, name="Ann")
        await ann.host("fill_bots", level="random")
        await ann.host("start")
        code = (await ann.wait_state(timeout=10)).room
        await a.stop()  # the room goes to B with Ann's seat held for her
        await ann.close()  # she does not come back: no client sends B anything
        deadline = time.monotonic() + 10
        while True:  # B loaded the room by itself, and its hold timer ran out there
            actor = b.manager.rooms.get(code)
            if actor is not None and actor.core.state.seats[0].away:
                break
            assert time.monotonic() < deadline, "B did not take the room and run its timers"
            await asyncio.sleep(0.02)
        holder = await _cluster(b).leases.holder(code)
        assert holder is not None and holder.owner == _cluster(b).owner


async def test_a_full_peer_lets_a_handed_over_room_go_and_it_comes_back_on_demand(
    redis_server: RedisServer,
) -> None:
    async with two_processes(redis_server.url, b_rooms=1) as (a, b):
        bob = await CardroomClient.connect(b.url)
        await bob.create("shithead", seats=2, name="Bob")  # B is full with its own room
        ann = await CardroomClient.connect(a.url, auto_resume=True, urls=[b.url])
        await ann.create("shithead", seats=2, name="Ann")
        code = ann.room
        assert code is not None
        await a.stop()
        deadline = time.monotonic() + 10
        while _handovers(b, "let_go") < 1:  # over its max_rooms: B does not hold it...
            assert time.monotonic() < deadline, "B never answered the handover"
            await asyncio.sleep(0.02)
        await ann.recovered()  # ...and Ann, coming back through B, has it loaded there
        assert ann.recovery_error is None and ann.room == code and ann.seat == 0
        await asyncio.gather(ann.close(), bob.close())
