"""Two ``cardroom serve`` processes on one Redis act as one service: a player on each sits at
the same table (the non-owner forwards to the room's owner); SIGKILL the owner and the game goes
on through the other process, nothing acknowledged lost; the first test runs on a Redis Cluster
too (``redis+cluster://``: its pub/sub and takeover)."""

from __future__ import annotations

import asyncio
import time

import pytest

from clients import CardroomClient, CardroomError
from server.tools.bench.procs import free_port
from server.tools.bench.redis_cluster import RedisCluster
from server.tools.bench.redis_server import RedisServer
from tests.support.redis_games import Acked, assert_log_holds, play, play_to_the_end, serving

pytestmark = pytest.mark.slow


async def test_two_processes_one_table_owner_killed(
    any_redis: RedisServer | RedisCluster,
) -> None:
    redis_server = any_redis
    port_a, port_b = free_port(), free_port()
    acked: Acked = {}
    async with serving(port_a, redis_server.url) as a, serving(port_b, redis_server.url):
        ann = await CardroomClient.connect(f"ws://127.0.0.1:{port_a}/")
        bob = await CardroomClient.connect(f"ws://127.0.0.1:{port_b}/")
        await ann.create("shithead", seats=3, name="Ann")  # process A owns the room
        assert ann.room is not None and ann.token is not None
        joined = await bob.join(ann.room, name="Bob")  # through process B, forwarded to A
        assert joined.seat == 1 and bob.token is not None
        room = await ann.wait_room(lambda r: r.seats[1].name == "Bob")
        assert room.seats[1].connected
        with pytest.raises(CardroomError) as twice:  # one room at a time, across processes
            await bob.create("shithead", seats=2, name="Bob")
        assert twice.value.code == "already_in_room"
        await ann.host("start")
        await play([ann, bob], acked, 10)
        if (bob.version or 0) < max(acked):  # every state reaches Bob, relayed by B
            await bob.wait_state(lambda s: s.version >= max(acked), timeout=10)

        code, ann_token, bob_token = joined.room, ann.token, bob.token
        a.kill()  # SIGKILL the owner: its lease runs out, B takes the room over
        await a.wait()
        killed = time.monotonic()
        await ann.close()
        await bob.wait_for(lambda msg: msg.type == "closing", timeout=30)  # told to resume
        ann = await CardroomClient.connect(f"ws://127.0.0.1:{port_b}/")  # Ann comes back via B
        await asyncio.gather(ann.resume(code, ann_token), bob.resume(code, bob_token))
        took = time.monotonic() - killed
        assert took < 8  # the dead owner's lease (3 s) ran out, then B took over
        state = await ann.wait_state(timeout=10)
        assert state.version >= max(acked)
        await play_to_the_end([ann, bob], acked)

    await assert_log_holds(redis_server.url, code, acked)


async def test_a_relaying_process_killed_frees_its_clients_seats(
    redis_server: RedisServer,
) -> None:
    port_a, port_b = free_port(), free_port()
    async with (
        serving(port_a, redis_server.url),
        serving(port_b, redis_server.url) as b,
        CardroomClient.connect(f"ws://127.0.0.1:{port_a}/") as ann,
    ):
        bob = await CardroomClient.connect(f"ws://127.0.0.1:{port_b}/")
        await ann.create("shithead", seats=3, name="Ann")
        assert ann.room is not None
        await bob.join(ann.room, name="Bob")  # relayed by B to A, the owner
        await ann.wait_room(lambda r: r.seats[1].connected)
        b.kill()  # B dies: A no longer hears from Bob, as if his connection dropped
        room = await ann.wait_room(lambda r: not r.seats[1].connected, timeout=10)
        assert room.seats[1].name == "Bob"  # held for him to resume
        await bob.close()
