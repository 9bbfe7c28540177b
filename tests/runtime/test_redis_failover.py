"""Two ``cardroom serve --redis redis+sentinel://...`` processes, one relaying a player to the
room the other owns, while the Redis primary is SIGKILLed: Sentinel promotes a replica, both
processes follow it by themselves (the owner's writes, its lease, and the pub/sub the relay
runs on, subscribed again), and the relayed player plays on with nothing acknowledged lost."""

from __future__ import annotations

import asyncio
import signal
import time

import pytest

from clients import CardroomClient, CardroomError
from clients.client import ConnectionLost, ReplyTimeout
from server.tools.bench.procs import free_port
from server.tools.bench.redis_replicated import ReplicatedRedis
from tests.support.redis_games import Acked, assert_log_holds, play, serving
from tests.support.server import choose

pytestmark = pytest.mark.slow


async def one_turn(clients: list[CardroomClient], acked: Acked) -> None:
    """One turn by whoever must act; refused while the failover settles: tried again."""
    waits = {asyncio.create_task(c.wait_turn(timeout=30)): c for c in clients}
    done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    task = done.pop()
    client = waits[task]
    try:
        state = task.result()
    except ConnectionLost:  # the client is coming back by itself (auto_resume)
        await asyncio.sleep(0.3)
        return
    assert state.view["phase"] != "over" and client.seat is not None
    action = choose(state.view, 0)
    try:
        ack = await client.act(action, version=state.version)
    except CardroomError as exc:
        # the store away, an old state, or the room reloaded while the client resumes
        assert exc.code in ("store_unavailable", "stale_version", "not_in_room"), exc
        await asyncio.sleep(0.2)
        return
    except (ConnectionLost, ReplyTimeout):
        # cut off, or its answer lost with the relay's pub/sub in the failover: unknown,
        # stored or not (the checker's "unknown"); the next state says which
        await asyncio.sleep(0.3)
        return
    assert ack.version is not None and ack.version not in acked
    acked[ack.version] = (client.seat, action)


async def test_a_relayed_player_plays_on_through_a_failover(
    replicated_redis: ReplicatedRedis,
) -> None:
    url = replicated_redis.url
    port_a, port_b = free_port(), free_port()
    acked: Acked = {}
    extra = ("--durability", "replicated", "--no-place-rooms")
    async with serving(port_a, url, *extra), serving(port_b, url, *extra):
        # told to resume (the room reloaded, or frames lost while Redis was away): they do
        ann = await CardroomClient.connect(f"ws://127.0.0.1:{port_a}/", auto_resume=True)
        bob = await CardroomClient.connect(f"ws://127.0.0.1:{port_b}/", auto_resume=True)
        await ann.create("shithead", seats=2, name="Ann")  # A owns the room
        assert ann.room is not None
        await bob.join(ann.room, name="Bob")  # B relays Bob to A over pub/sub
        await ann.host("start")
        await play([ann, bob], acked, 6)
        before = len(acked)

        assert replicated_redis.primary.process is not None
        replicated_redis.primary.process.send_signal(signal.SIGKILL)
        await asyncio.to_thread(replicated_redis.wait_failover)
        # Bob's turn comes, relayed by B: it is acknowledged once A writes to the new primary
        deadline = time.monotonic() + 60
        while not any(seat == bob.seat for seat, _ in list(acked.values())[before:]):
            assert time.monotonic() < deadline, "Bob never played after the failover"
            await one_turn([ann, bob], acked)
        await asyncio.gather(ann.close(), bob.close())
    assert ann.room is not None
    await assert_log_holds(url, ann.room, acked)
