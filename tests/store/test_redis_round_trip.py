"""What one batch's round trip to Redis costs the server (server/store/batch.py, resp.py):
the calls are packed as redis-py would send them, each room's keys packed once; the replies of
a batch are read under one timer, not one per reply; the batch keeps at most one connection
per batch in flight. And a room on one Redis handles a client's input in the caller's turn up
to its write (server/runtime/actor.py), its frames still waiting for Redis's answer. Against
a real redis-server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from redis.asyncio.connection import Connection

from protocol import messages as m
from server.metrics import Metrics
from server.rooms.seats import RoomSettings
from server.runtime.connected import Connected
from server.runtime.manager import RoomManager
from server.store import resp
from server.store.redis_store import RedisStore
from server.tools.bench.redis_cluster import RedisCluster
from server.tools.bench.redis_server import RedisServer
from tests.store.test_redis_batch import ROOMS, batch_of, batches, entry


@pytest.mark.parametrize(
    "args",
    [
        (0, 12, b'{"v":12,"a":"play QC"}', 86_400_000, "ABCDE"),
        (7, -1, "é ünïcode", b"", "Z"),
    ],
)
def test_a_packed_call_is_what_redis_py_sends(args: tuple[Any, ...]) -> None:
    keys = ("cr:{ABCDE}:room", "cr:{ABCDE}:log", "cr:rooms")
    sha = "e0e1f9fabfc9d4800c877a703b823ac0578ff831"
    theirs = b"".join(Connection().pack_command("EVALSHA", sha, len(keys), *keys, *args))
    assert resp.evalsha(sha, keys, args) == theirs


@pytest.mark.parametrize("bad", [True, 1.5, None])
def test_an_argument_redis_py_would_not_send_is_refused(bad: object) -> None:
    with pytest.raises(TypeError):
        resp.evalsha("sha", ("k",), (bad,))


def test_the_packed_keys_kept_are_bounded() -> None:
    for i in range(resp.HEADS + 50):
        resp.evalsha("sha", (f"cr:{{R{i}}}:room",), (1,))
    assert resp._head.cache_info().currsize <= resp.HEADS


async def test_a_batch_reads_its_replies_under_one_timer(redis_store: RedisStore) -> None:
    for code in [*ROOMS, "WARM"]:
        assert await redis_store.create(code, {"version": 0})
    await redis_store.append("WARM", entry(1))  # the script loaded, the connection open
    loop = asyncio.get_running_loop()
    timers = 0
    call_at: Callable[..., asyncio.TimerHandle] = loop.call_at

    def counting(when: float, callback: Callable[..., object], *args: Any, **kw: Any) -> Any:
        nonlocal timers
        timers += 1
        return call_at(when, callback, *args, **kw)

    trips, _ = batches(redis_store)
    loop.call_at = counting  # type: ignore[assignment,method-assign]  # every timer, counted
    try:
        await asyncio.gather(*(redis_store.append(code, entry(1)) for code in ROOMS))
    finally:
        delattr(loop, "call_at")
    assert batches(redis_store)[0] == trips + 1  # the 20 writes in one round trip
    # one deadline for the whole round trip; redis-py's pipeline set one per reply (20),
    # another for the pool's checkout and the write's
    assert timers <= 1
    for code in ROOMS:
        stored = await redis_store.load(code)
        assert stored is not None and stored.actions == [entry(1)]


async def test_a_batch_keeps_one_connection_per_batch_in_flight(
    redis_store: RedisStore,
) -> None:
    codes = [f"CON{i:02d}" for i in range(40)]
    for code in codes:
        assert await redis_store.create(code, {"version": 0})

    async def one_room(code: str) -> None:  # as an actor does: each write awaited
        for v in range(1, 11):
            await redis_store.append(code, entry(v))

    await asyncio.wait_for(asyncio.gather(*(one_room(c) for c in codes)), timeout=20)
    batch = batch_of(redis_store)
    assert batches(redis_store)[0] > 10  # many round trips ...
    assert batch._made <= batch.max_in_flight  # ... over the same connections
    for code in codes:
        stored = await redis_store.load(code)
        assert stored is not None and [e["v"] for e in stored.actions] == list(range(1, 11))


async def test_one_redis_queues_its_calls_a_cluster_does_not(
    redis_server: RedisServer, redis_cluster: RedisCluster
) -> None:
    one, cluster = RedisStore(redis_server.url), RedisStore(redis_cluster.url)
    try:
        assert one.queues_calls and not one.completes_at_once
        assert not cluster.queues_calls  # its calls run in the caller's task: through the task
    finally:
        await one.close()
        await cluster.close()


class Outbox:
    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []

    def send(self, text: str) -> None:
        self.frames.append(json.loads(text))


async def test_a_redis_room_handles_an_input_in_the_callers_turn(
    redis_store: RedisStore,
) -> None:
    clients: Connected[Outbox] = Connected()
    settings = RoomSettings(bot_delay=0.0)
    manager = RoomManager(redis_store, Metrics(), settings, clients=clients)
    ann, bob = Outbox(), Outbox()
    clients.open(1, ann)
    clients.open(2, bob)
    try:
        await manager.create(1, m.Create(id=1, game="shithead", seats=2, name="Ann"), 0)
        code = clients.room_of(1)
        assert code is not None
        await manager.route(2, m.Join(id=2, room=code, name="Bob"), 0)
        await manager.route(1, m.Host(id=3, room=code, op="start"), 0)
        for _ in range(200):  # the room's task idle again, waiting for input
            room = manager.rooms[code]
            if bob.frames and bob.frames[-1]["type"] == "state" and room._wake is not None:
                break
            await asyncio.sleep(0.01)
        version = bob.frames[-1]["version"]
        seen = len(bob.frames)
        ready = m.Act(id=4, room=code, version=version, action=m.ActionModel(kind="ready"))
        manager.route_now(1, ready, 0)
        # handled in this turn, up to its write: the room's copy moved on ...
        assert manager.rooms[code].core.version == version + 1
        # ... and nothing of it was sent: the ack and the state wait for Redis's answer
        assert len(bob.frames) == seen and ann.frames[-1].get("ref") != 4
        manager.route_now(2, m.Chat(id=5, room=code, text="hi"), 0)  # submitted after
        for _ in range(200):
            if any(f["type"] == "chat" for f in bob.frames):
                break
            await asyncio.sleep(0.01)
        kinds = [(f["type"], f.get("version"), f.get("ref")) for f in bob.frames[seen:]]
        assert kinds == [("state", version + 1, None), ("ack", None, 5), ("chat", None, None)]
        assert [(f["type"], f.get("ref")) for f in ann.frames[-3:]] == [
            ("ack", 4),
            ("state", None),
            ("chat", None),
        ]
        stored = await redis_store.load(code)  # the action was stored before its ack
        assert stored is not None and stored.actions[-1]["v"] == version + 1
    finally:
        await manager.shutdown()
