"""Turn deadlines and seats' players survive a crash and a takeover, through real
``cardroom serve --redis`` processes: a turn timer that was running goes on with the time it had
left (not a fresh full turn), one that ran out meanwhile fires as soon as the room is back, and
the owner records results for the devices its seats were taken from."""

from __future__ import annotations

import asyncio
import time

import pytest

from clients import CardroomClient
from server.store.leaderboard import player_id
from server.store.redis_store import RedisStore
from server.tools.bench.procs import free_port
from server.tools.bench.redis_server import RedisServer
from tests.support.redis_games import serving

pytestmark = pytest.mark.slow

ANN, BOB = "ann-device-0123456789", "bob-device-0123456789"


async def client(url: str, device: str) -> CardroomClient:
    c = await CardroomClient.connect(url, hello=False)
    await c.hello(device=device)
    return c


async def test_a_running_turn_timer_survives_a_sigkill(redis_server: RedisServer) -> None:
    port = free_port()
    url = f"ws://127.0.0.1:{port}/"
    async with serving(port, redis_server.url) as first:
        ann = await client(url, ANN)
        await ann.create("shithead", seats=2, name="Ann", turn_timer=60)
        await ann.host("start")
        # once the bot is ready, the room waits for Ann (each version has its own deadline)
        state = await ann.wait_state(lambda s: s.view["to_act"] == [0], timeout=10)
        assert ann.room is not None and ann.token is not None
        room, token, deadline, version = ann.room, ann.token, state.deadline, state.version
        first.kill()  # SIGKILL: nothing saved at exit
        await first.wait()
        await ann.close()

    await asyncio.sleep(1.0)  # time passes while the server is down
    async with serving(port, redis_server.url):
        ann = await client(url, ANN)
        await ann.resume(room, token)
        back = await ann.wait_state(timeout=10)
        # the same turn, with the time it had left: not a fresh minute from now
        assert back.version == version and back.deadline == deadline
        assert deadline is not None and deadline - time.time() < 59
        await ann.close()


async def test_a_takeover_keeps_deadlines_and_fires_the_one_that_ran_out(
    redis_server: RedisServer,
) -> None:
    port_a, port_b = free_port(), free_port()
    turn = 4
    async with serving(port_a, redis_server.url) as a, serving(port_b, redis_server.url):
        ann = await client(f"ws://127.0.0.1:{port_a}/", ANN)
        bob = await client(f"ws://127.0.0.1:{port_b}/", BOB)  # relayed to A, the owner
        await ann.create("shithead", seats=3, name="Ann", turn_timer=turn)
        assert ann.room is not None and ann.token is not None
        joined = await bob.join(ann.room, name="Bob")
        ann_token, bob_token = ann.token, bob.token
        assert bob_token is not None
        await ann.host("start")  # the swap phase: both people must get ready (rule SH-2.3)
        # once the bot is ready, the room waits for the people (each version has its deadline)
        started = await bob.wait_state(lambda s: s.view["to_act"] == [0, 1], timeout=10)
        deadline, version = started.deadline, started.version
        assert deadline is not None

        store = RedisStore(redis_server.url)
        try:  # the owner keeps each seat's device digest, Bob's came through B
            stored = await store.load(joined.room)
            assert stored is not None
            devices = [s["device"] for s in stored.record["seats"]]
            # the identities the servers issued for the made-up ones (issued by A and by B:
            # both sign with the secret kept in Redis)
            assert ann.device is not None and bob.device is not None
            assert ann.device != ANN and bob.device != BOB
            assert devices == [player_id(ann.device), player_id(bob.device), None]
        finally:
            await store.close()

        a.kill()  # the owner dies; nobody acts; the swap deadline passes during the takeover
        await a.wait()
        await ann.close()
        await bob.wait_for(lambda msg: msg.type == "closing", timeout=30)
        await asyncio.sleep(max(0.0, deadline + 0.5 - time.time()))  # the deadline passes

        await bob.resume(joined.room, bob_token)  # B takes the room over from Redis
        resumed = time.monotonic()
        back = await bob.wait_state(timeout=10)
        assert back.version == version and back.deadline == deadline  # the same turn
        # the deadline that passed fires at once (a fresh one would wait another 4 s): both
        # people are declared ready by the timer and the play begins
        play = await bob.wait_state(lambda s: s.view["phase"] == "play", timeout=10)
        assert time.monotonic() - resumed < turn - 1, "the stored deadline did not fire at once"
        info = bob.room_info  # Ann's seat is held for her, not given away
        assert info is not None and info.seats[0].name == "Ann" and info.seats[0].kind == "human"
        assert not info.seats[0].connected
        ann = await client(f"ws://127.0.0.1:{port_b}/", ANN)
        await ann.resume(joined.room, ann_token)
        assert (await ann.wait_state(timeout=10)).version >= play.version
        await asyncio.gather(ann.close(), bob.close())

    store = RedisStore(redis_server.url)
    try:
        stored = await store.load(joined.room)
    finally:
        await store.close()
    assert stored is not None
    readies = {e["s"] for e in stored.actions if e["v"] > version and e["a"] == "ready"}
    assert {0, 1} <= readies  # nobody sent them: the timer did
