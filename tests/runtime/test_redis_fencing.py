"""An owner process that stops (SIGSTOP) past its lease loses the room to another process; when
it wakes up it cannot write to the room any more: its player's action is refused, never
acknowledged or stored, and the player goes on through the new owner (on one Redis and on a
Redis Cluster)."""

from __future__ import annotations

import asyncio
import signal

import pytest

from clients import CardroomClient, CardroomError
from server.store.lease import LEASE_TTL
from server.store.redis_store import RedisStore
from server.tools.bench.procs import free_port
from server.tools.bench.redis_cluster import RedisCluster
from server.tools.bench.redis_server import RedisServer
from tests.support.redis_games import serving

pytestmark = pytest.mark.slow


async def test_a_paused_owner_cannot_write_after_a_takeover(
    any_redis: RedisServer | RedisCluster,
) -> None:
    redis_server = any_redis
    port_a, port_b = free_port(), free_port()
    async with serving(port_a, redis_server.url) as a, serving(port_b, redis_server.url):
        ann = await CardroomClient.connect(f"ws://127.0.0.1:{port_a}/")
        await ann.create("shithead", seats=2, name="Ann")  # A owns the room
        assert ann.room is not None and ann.token is not None
        room, token = ann.room, ann.token
        await ann.host("start")
        # rule SH-2.3: the bot gets ready; the swap phase waits for Ann
        state = await ann.wait_state(lambda s: s.view["to_act"] == [0], timeout=10)

        a.send_signal(signal.SIGSTOP)  # A is paused: it neither renews its lease nor writes
        try:
            await asyncio.sleep(LEASE_TTL + 0.5)
            cy = await CardroomClient.connect(f"ws://127.0.0.1:{port_b}/")
            await cy.watch(room)  # B takes the room over from Redis
            watched = await cy.wait_state(timeout=10)
            assert watched.version == state.version
        finally:
            a.send_signal(signal.SIGCONT)

        # A wakes up with Ann's move: its copy of the room is stale, and Redis refuses it
        with pytest.raises(CardroomError) as refused:
            await ann.act({"kind": "ready"}, version=state.version, timeout=10)
        assert refused.value.code in ("store_unavailable", "not_in_room")
        store = RedisStore(redis_server.url)
        try:
            stored = await store.load(room)
            assert stored is not None
            assert max(e["v"] for e in stored.actions) == state.version  # nothing of A's
        finally:
            await store.close()

        await ann.close()
        ann = await CardroomClient.connect(f"ws://127.0.0.1:{port_b}/")
        await ann.resume(room, token)
        ack = await ann.act({"kind": "ready"}, version=state.version)
        assert ack.version == state.version + 1
        seen = await cy.wait_state(lambda s: s.version == state.version + 1, timeout=10)
        assert seen.view["phase"] == "play"
        await asyncio.gather(ann.close(), cy.close())
