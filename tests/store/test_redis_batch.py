"""The writes of many rooms made in one turn of the event loop reach Redis together, in one
round trip (server/store/batch.py), and each still gets its own answer: a stale fence fails
that room's write only, one room's writes keep their order, and a batch whose replies never
come back fails every waiter with StoreUnavailable, nothing acknowledged. Against a real
redis-server, counting its read events (``INFO stats``) and commands (``INFO commandstats``).

A round trip costs the server little: the calls are packed as redis-py would send them, each
room's keys once (server/store/resp.py); a batch's replies are read under one timer, not one
per reply; the batch keeps one connection per batch in flight; a write's wait for its batch is
timed. And a room on one Redis handles
a client's input in the caller's turn up to its write (server/runtime/actor.py), its frames
still waiting for Redis's answer."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import pytest
import uvloop
from redis.asyncio.connection import Connection

from protocol import messages as m
from server.metrics import Metrics
from server.rooms.settings import RoomSettings
from server.runtime.connected import Connected
from server.runtime.manager import RoomManager
from server.store import resp
from server.store.base import Fenced, StoreUnavailable
from server.store.batch import ScriptBatch
from server.store.open import open_stores
from server.store.redis_client import RedisClient, connect, room_key
from server.store.redis_store import RedisStore
from server.tools.bench.redis_cluster import RedisCluster
from server.tools.bench.redis_server import RedisServer
from tests.store.proxy import LossyProxy

ROOMS = [f"BAT{i:02d}" for i in range(20)]


def entry(v: int, action: str = "play QC") -> dict[str, Any]:
    return {"v": v, "g": 0, "s": v % 5, "a": action}


def batch_of(store: RedisStore) -> ScriptBatch:
    """The store's batcher (one Redis batches; a cluster does not)."""
    assert store.batch is not None
    return store.batch


async def reads_and_scripts(observer: RedisClient) -> tuple[int, int]:
    """Redis's read events so far (one per request that arrived on its own) and scripts run."""
    stats, commands = await observer.info("stats"), await observer.info("commandstats")
    return int(stats["total_reads_processed"]), int(commands["cmdstat_evalsha"]["calls"])


def batches(store: RedisStore) -> tuple[int, float]:
    """Round trips the store's batch made so far, and the writes they carried."""
    return sum(batch_of(store).sizes.counts), batch_of(store).sizes.sum


async def test_writes_of_one_turn_go_in_one_round_trip(
    redis_store: RedisStore, redis_server: RedisServer
) -> None:
    observer = connect(redis_server.url)
    try:
        for code in [*ROOMS, "WARM"]:
            assert await redis_store.create(code, {"version": 0})
        await redis_store.append("WARM", entry(1))  # Redis has the script from now on
        trips, writes = batches(redis_store)
        reads, scripts = await reads_and_scripts(observer)
        # every room's actor persisting in the same turn
        await asyncio.gather(*(redis_store.append(code, entry(1)) for code in ROOMS))
        reads_after, scripts_after = await reads_and_scripts(observer)
        assert batches(redis_store) == (trips + 1, writes + len(ROOMS))  # one pipeline of 20
        assert scripts_after - scripts == len(ROOMS)  # each room its own checked script
        # one read of the pipeline (a few, should TCP split it) and the observer's INFO; one
        # command at a time, this was 20 reads or more
        assert reads_after - reads <= 4
        for code in ROOMS:
            stored = await redis_store.load(code)
            assert stored is not None and stored.actions == [entry(1)]
    finally:
        await observer.aclose()


async def test_a_stale_fence_fails_that_room_only(redis_store: RedisStore) -> None:
    for code in ("FENA", "FENB", "FENC"):
        assert await redis_store.create(code, {"version": 0}, fence=7)
    trips, _ = batches(redis_store)
    # FENB's writer is an old owner (fence 6): a takeover happened there
    results = await asyncio.gather(
        redis_store.append("FENA", entry(1), fence=7),
        redis_store.append("FENB", entry(1), fence=6),
        redis_store.append("FENC", entry(1), fence=7),
        return_exceptions=True,
    )
    assert batches(redis_store)[0] == trips + 1  # all three in one round trip
    assert results[0] is None and results[2] is None
    refused = results[1]
    assert isinstance(refused, Fenced) and (refused.fence, refused.current) == (6, 7)
    for code, log in (("FENA", [entry(1)]), ("FENB", []), ("FENC", [entry(1)])):
        stored = await redis_store.load(code)
        assert stored is not None and stored.actions == log, code


async def test_one_rooms_writes_in_one_turn_keep_their_order(redis_store: RedisStore) -> None:
    assert await redis_store.create("ORDER", {"version": 0})
    trips, _ = batches(redis_store)
    versions = range(1, 31)
    await asyncio.gather(*(redis_store.append("ORDER", entry(v)) for v in versions))
    assert batches(redis_store)[0] == trips + 1
    stored = await redis_store.load("ORDER")
    assert stored is not None and [e["v"] for e in stored.actions] == list(versions)


@pytest.mark.slow
async def test_a_batch_whose_replies_are_lost_fails_every_waiter(
    redis_server: RedisServer,
) -> None:
    async with LossyProxy(redis_server.port) as proxy:
        writer = RedisStore(client=connect(proxy.url, timeout=0.5))
        direct = RedisStore(redis_server.url)
        try:
            for code in [*ROOMS[:5], "WARM"]:
                assert await writer.create(code, {"version": 0})
            await writer.append("WARM", entry(1))  # Redis has the script: the batch runs it
            # one room's entry marks the pipeline: Redis runs it all, no reply comes back (nor
            # to the client's own retry on a fresh connection)
            proxy.lose_reply_to(b"play 9H", times=2)
            moves = ["play 9H", "play 7C", "play 8D", "play TS", "play KH"]
            results = await asyncio.gather(
                *(writer.append(c, entry(1, m)) for c, m in zip(ROOMS, moves, strict=False)),
                return_exceptions=True,
            )
            assert proxy.lost == 2
            # nobody is told it was stored: every waiter of the batch, not only the marked one
            assert all(isinstance(r, StoreUnavailable) for r in results), results
            for code, move in zip(ROOMS, moves, strict=False):
                stored = await direct.load(code)  # Redis did store each, once
                assert stored is not None and stored.actions == [entry(1, move)]
                await writer.append(code, entry(1, move))  # a retry is accepted, not doubled
                again = await direct.load(code)
                assert again is not None and again.actions == [entry(1, move)]
        finally:
            await writer.close()
            await direct.close()


async def test_redis_away_then_back_with_its_scripts_forgotten(
    redis_store: RedisStore, redis_server: RedisServer
) -> None:
    for code in ROOMS[:3]:
        assert await redis_store.create(code, {"version": 0})
    redis_server.stop()
    results = await asyncio.gather(
        *(redis_store.append(code, entry(1)) for code in ROOMS[:3]), return_exceptions=True
    )
    assert all(isinstance(r, StoreUnavailable) for r in results), results
    redis_server.start()  # the same data (append-only file), no scripts loaded
    await asyncio.gather(*(redis_store.append(code, entry(1)) for code in ROOMS[:3]))
    for code in ROOMS[:3]:
        stored = await redis_store.load(code)
        assert stored is not None and stored.actions == [entry(1)]


@pytest.mark.parametrize("size", [1, 3])
async def test_a_turn_past_the_batch_limit_goes_as_several(
    redis_store: RedisStore, size: int
) -> None:
    batch_of(redis_store).max_batch = size
    for code in ROOMS[:7]:
        assert await redis_store.create(code, {"version": 0})
    trips, _ = batches(redis_store)
    await asyncio.gather(*(redis_store.append(code, entry(1)) for code in ROOMS[:7]))
    assert batches(redis_store)[0] - trips == -(-7 // size)  # ceil(7 / size) pipelines


async def test_one_batch_in_flight_the_next_goes_when_it_is_answered(
    redis_store: RedisStore,
) -> None:
    batch_of(redis_store).max_in_flight = 1
    for code in ROOMS[:4]:
        assert await redis_store.create(code, {"version": 0})

    async def one_room(code: str) -> None:  # as an actor does: each write awaited
        for v in range(1, 21):
            await redis_store.append(code, entry(v))

    trips, writes = batches(redis_store)
    await asyncio.wait_for(asyncio.gather(*(one_room(c) for c in ROOMS[:4])), timeout=10)
    trips_after, writes_after = batches(redis_store)
    assert writes_after - writes == 80
    assert trips_after - trips <= 40  # the four rooms' writes share round trips
    for code in ROOMS[:4]:
        stored = await redis_store.load(code)
        assert stored is not None and [e["v"] for e in stored.actions] == list(range(1, 21))


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
    timed, took = (
        sum(batch_of(redis_store).round_trips.counts),
        batch_of(redis_store).round_trips.sum,
    )
    loop.call_at = counting  # type: ignore[assignment,method-assign]  # every timer, counted
    try:
        await asyncio.gather(*(redis_store.append(code, entry(1)) for code in ROOMS))
    finally:
        delattr(loop, "call_at")
    assert batches(redis_store)[0] == trips + 1  # the 20 writes in one round trip
    round_trips = batch_of(redis_store).round_trips  # each timed: Redis and the wire alone
    assert sum(round_trips.counts) == timed + 1 and round_trips.sum > took
    # one deadline for the whole round trip; redis-py's pipeline set one per reply (20),
    # another for the pool's checkout and the write's
    assert timers <= 1
    for code in ROOMS:
        stored = await redis_store.load(code)
        assert stored is not None and stored.actions == [entry(1)]


async def test_a_writes_wait_for_its_batch_is_timed(redis_store: RedisStore) -> None:
    for code in ROOMS:
        assert await redis_store.create(code, {"version": 0})
    batch = batch_of(redis_store)
    batch.max_in_flight = 1  # one batch at a time: a write made meanwhile waits for it
    queued = batch.queue_waits
    counted, before = sum(queued.counts), queued.sum

    async def timed(code: str) -> float:
        started = time.perf_counter()
        await redis_store.append(code, entry(1))
        return time.perf_counter() - started

    first = asyncio.create_task(timed(ROOMS[0]))
    for _ in range(100):  # until its batch is taken (its wait timed), on its way to Redis
        if batch._busy:
            break
        await asyncio.sleep(0)
    assert batch._busy
    first_wait = queued.sum - before
    waits = await asyncio.gather(first, *(timed(code) for code in ROOMS[1:]))
    # every write timed once, from its call to its batch's write: a part of its caller's wait
    assert sum(queued.counts) == counted + len(ROOMS)
    assert 0 < queued.sum - before <= sum(waits)
    # the 19 made while the first batch was out waited for its answer, longer than it did
    assert (queued.sum - before - first_wait) / (len(ROOMS) - 1) > first_wait


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


@pytest.mark.slow
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


async def started(manager: RoomManager, clients: Connected[Outbox], bob: Outbox) -> tuple[str, int]:
    """A two-seat room Ann (connection 1) made, Bob (2) joined and Ann started, its task idle
    again: its code and version."""
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
    return code, bob.frames[-1]["version"]


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
        code, version = await started(manager, clients, bob)
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


class Ticks:
    """Counts the loop's turns, each one made 20 ms long by a tick: a saturated loop's turn
    (the rooms' work: CPU, not a wait), long enough for Redis to answer meanwhile."""

    def __init__(self) -> None:
        self.turns = 0
        self.ticking = False

    def start(self) -> None:
        self.ticking = True
        asyncio.get_running_loop().call_soon(self._tick)

    def stop(self) -> None:
        self.ticking = False

    def _tick(self) -> None:
        self.turns += 1
        time.sleep(0.02)
        if self.ticking:
            asyncio.get_running_loop().call_soon(self._tick)


@pytest.mark.slow
async def test_a_batchs_callers_run_the_turn_after_its_replies_are_read(
    redis_store: RedisStore,
) -> None:
    # The replies are parsed where their bytes are read and each caller answered there; a
    # reader task woken by the bytes ran a turn later, behind every room's work queued
    # meanwhile, and only then woke the callers (a turn more for every write).
    for code in [*ROOMS[:5], "WARM"]:
        assert await redis_store.create(code, {"version": 0})
    await redis_store.append("WARM", entry(1))  # the script loaded, the connection open
    ticks = Ticks()

    async def write(code: str, v: int) -> int:
        made = ticks.turns
        await redis_store.append(code, entry(v))
        return ticks.turns - made

    ticks.start()
    try:
        took = [
            max(await asyncio.gather(*(write(code, v) for code in ROOMS[:5]))) for v in range(1, 6)
        ]
    finally:
        ticks.stop()
    # the batch written in the turn after the call's, the replies read and answered in the
    # one after, the callers running in the next: 4 ticks from the call (counted as the tick
    # falls in the call's own turn); with a reader task between the bytes and the callers, 5
    assert min(took) <= 4, took
    for code in ROOMS[:5]:
        stored = await redis_store.load(code)
        assert stored is not None and [e["v"] for e in stored.actions] == [1, 2, 3, 4, 5]


@pytest.mark.slow
async def test_a_redis_rooms_ack_is_sent_in_the_turn_its_reply_is_read(
    redis_store: RedisStore,
) -> None:
    # The room's step goes on in the callback that reads Redis's reply (server/store/answer.py):
    # its ack and views are sent in that turn. Woken through a future, the room's task ran a
    # turn later, behind every room's work queued meanwhile.
    ticks = Ticks()
    acked: dict[int, int] = {}  # a request's id -> the tick in which its ack was sent

    class Clocked(Outbox):
        def send(self, text: str) -> None:
            super().send(text)
            if self.frames[-1]["type"] == "ack":
                acked[self.frames[-1]["ref"]] = ticks.turns

    assert await redis_store.create("WARM", {"version": 0})
    await redis_store.append("WARM", entry(1))  # the append's script loaded, the connection open
    clients: Connected[Outbox] = Connected()
    manager = RoomManager(redis_store, Metrics(), RoomSettings(bot_delay=0.0), clients=clients)
    ann, bob = Clocked(), Clocked()
    clients.open(1, ann)
    clients.open(2, bob)
    try:
        code, version = await started(manager, clients, bob)
        ticks.start()
        took = []
        for n, conn in enumerate((1, 2)):  # each seat ready in turn: a write and an ack each
            await asyncio.sleep(0)
            ready = m.Act(
                id=10 + n, room=code, version=version + n, action=m.ActionModel(kind="ready")
            )
            made = ticks.turns
            manager.route_now(conn, ready, 0)
            for _ in range(100):
                if 10 + n in acked:
                    break
                await asyncio.sleep(0)
            took.append(acked[10 + n] - made)
    finally:
        ticks.stop()
        await manager.shutdown()
    # the write goes in the turn after the input's, its reply is read in a later one (as in
    # the test above: the write and the next turn's select can fall in one tick), and the ack
    # is sent there too: 3 ticks from the input; with the room's task woken a turn after the
    # reply, 4 (measured on the code before the answer: [4, 4])
    assert max(took) <= 3, took
    stored = await redis_store.load(code)  # both actions stored before their acks
    assert stored is not None
    assert [e["v"] for e in stored.actions][-2:] == [version + 1, version + 2]


async def test_the_batchs_connection_logs_in_and_selects_the_database(
    redis_server: RedisServer,
) -> None:
    # the batch opens its own connection: the URL's user, password and database are its own
    admin = connect(redis_server.url)
    await admin.execute_command("ACL", "SETUSER", "rooms", "on", ">s3cret", "~*", "+@all")
    port = redis_server.port
    store = RedisStore(client=connect(f"redis://rooms:s3cret@127.0.0.1:{port}/3"))
    wrong = RedisStore(client=connect(f"redis://rooms:wrong@127.0.0.1:{port}/3"))
    try:
        assert await store.create("DBTRE", {"version": 0})
        await store.append("DBTRE", entry(1))
        assert batch_of(store)._made == 1
        assert await admin.exists(room_key("DBTRE", "room")) == 0  # not in database 0
        in_three = connect(f"redis://127.0.0.1:{port}/3")
        try:
            assert await in_three.exists(room_key("DBTRE", "room")) == 1
        finally:
            await in_three.aclose()
        with pytest.raises(StoreUnavailable):  # a refused login: Redis unavailable to it
            await wrong.create("DBTRE", {"version": 0})
    finally:
        await store.close()
        await wrong.close()
        await admin.aclose()


async def test_a_connection_closed_by_redis_is_opened_again(
    redis_store: RedisStore, redis_server: RedisServer
) -> None:
    assert await redis_store.create("KILLD", {"version": 0})
    admin = connect(redis_server.url)
    try:
        await admin.execute_command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")
        await redis_store.append("KILLD", entry(1))  # on a fresh connection
        stored = await redis_store.load("KILLD")
        assert stored is not None and stored.actions == [entry(1)]
    finally:
        await admin.aclose()


def test_a_batch_runs_on_uvloop(redis_server: RedisServer) -> None:
    # the loop `cardroom serve` runs on: its transports are no subclass of asyncio's
    async def main() -> list[Any]:
        store = RedisStore(redis_server.url)
        try:
            assert await store.create("UVLOP", {"version": 0})
            await asyncio.gather(store.append("UVLOP", entry(1)), store.create("UVTWO", {}))
            stored = await store.load("UVLOP")
            assert stored is not None
            return stored.actions
        finally:
            await store.close()

    assert uvloop.run(main()) == [entry(1)]


async def test_the_stores_close_the_batchs_own_connection(redis_server: RedisServer) -> None:
    admin = connect(redis_server.url)
    try:

        async def clients() -> int:
            listed = await admin.execute_command("CLIENT", "LIST")
            return len(listed.splitlines()) if isinstance(listed, bytes) else len(listed)

        alone = await clients()
        stores = open_stores(redis_server.url)
        assert await stores.rooms.create("CLOSE", {"version": 0})  # on the batch's connection
        await stores.rooms.append("CLOSE", entry(1))
        assert await clients() > alone
        await stores.close()
        for _ in range(100):  # Redis sees the close a moment later
            if await clients() == alone:
                break
            await asyncio.sleep(0.01)
        assert await clients() == alone
    finally:
        await admin.aclose()
