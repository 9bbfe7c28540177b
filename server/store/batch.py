"""The script calls of one event-loop turn sent to Redis together, in one round trip.

Under load many rooms persist in the same turn of the event loop (one client frame read wakes
one room, a burst of reads wakes many). Sent one by one, each ``EVALSHA`` takes a connection
from the pool, writes, and waits for its own reply; the replies then queue behind each other
in the client, not in Redis (``docs/benchmarks.md``, issue 22). A :class:`ScriptBatch` collects
the calls made in one turn and sends them at the start of the next as one pipeline
(``transaction=False``: no ``MULTI``, each script is still its own atomic step in Redis, with
its own fence and version check), and hands each caller its own reply. While
:data:`MAX_IN_FLIGHT` batches wait for Redis, the calls made meanwhile gather and go together
as soon as one is answered. So:

- a refusal (``fenced``, ``conflict``, ``gone``) is one script's answer, so it fails only that
  caller's write; the others in the batch land exactly as if sent alone;
- when Redis cannot be reached or the connection fails before every reply is read, every
  caller still waiting gets :class:`~server.store.base.StoreUnavailable` (the outcome unknown,
  as for one call: each script is safe to run again);
- a caller's write is acknowledged only once Redis answered it (the contract of
  :mod:`server.store.base`).

A round trip is cheap for the server too: the calls are packed with each room's constant part
(its keys, the script's hash) packed once (:mod:`server.store.resp`), written in one piece on
one of the batch's own connections (taken from the client's pool once, at most one per batch
in flight) and their replies read under one timeout for the whole round trip, where redis-py's
pipeline checks a connection out of the pool and sets a timer for every reply it reads.

Calls run in Redis in the order they were made, within a batch and from batch to batch of
one sender, so the writes of one room keep their order (and a room's actor awaits each write
before it makes the next). A batch holds at most :data:`MAX_BATCH` calls (the rest go in the
next); how many calls wait is bounded by the callers, at most one per open room.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any, NamedTuple

import redis.exceptions as rex
from redis.asyncio import Redis
from redis.asyncio.connection import AbstractConnection
from redis.commands.core import AsyncScript

from server.metrics import PERSIST_BUCKETS, Histogram
from server.store.base import StoreUnavailable
from server.store.redis_client import TIMEOUT, unavailable_as_store_error
from server.store.resp import evalsha

#: Calls at most in one pipeline (one round trip); past it a turn's calls go as several.
MAX_BATCH = 256
#: Batches at most waiting for their replies at once, each on its own connection: the calls
#: made meanwhile wait for one to be answered and go together, in a larger batch (fewer round
#: trips for the same writes); two, so one slow or lost reply does not hold every room's write.
MAX_IN_FLIGHT = 2
BATCH_BUCKETS = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0)


class _Call(NamedTuple):
    script: AsyncScript
    keys: tuple[str, ...]
    args: Sequence[Any]
    reply: asyncio.Future[Any]
    made: float  # perf_counter() at the call: its wait for the batch's write is timed


class ScriptBatch:
    """Runs Lua scripts on ``client``, the calls of one turn in one pipeline."""

    def __init__(
        self, client: Redis, max_batch: int = MAX_BATCH, max_in_flight: int = MAX_IN_FLIGHT
    ) -> None:
        self.redis = client
        self.max_batch = max_batch
        self.max_in_flight = max_in_flight
        #: calls per round trip (exported in ``/metrics`` by :meth:`Metrics.watch_batches`)
        self.sizes = Histogram(
            "cardroom_store_batch_size",
            "Room writes sent to Redis in one round trip (those of one event-loop turn)",
            BATCH_BUCKETS,
        )
        #: seconds from a batch's write to its last reply read: Redis and the wire, apart from
        #: the callers' wait for the loop to run them again (``cardroom_persist_seconds``)
        self.round_trips = Histogram(
            "cardroom_store_round_trip_seconds",
            "A batch of room writes to Redis, from its write to its last reply read",
            PERSIST_BUCKETS,
        )
        #: seconds from a call to its batch's write: the loop's turns and the batches in
        #: flight it waited behind (the third part of a persist is the caller's wait to run
        #: again once answered: ``cardroom_persist_seconds`` less these two)
        self.queue_waits = Histogram(
            "cardroom_store_queue_seconds",
            "A room write to Redis, from its call to its batch's write",
            PERSIST_BUCKETS,
        )
        self._waiting: list[_Call] = []
        self._senders: set[asyncio.Task[None]] = set()
        self._idle: asyncio.Task[None] | None = None  # a sender not begun: it takes the calls
        self._busy = 0  # senders started and not finished
        # the batch's own connections, one per batch in flight at most, kept from batch to
        # batch (no pool checkout per round trip)
        self._free: list[AbstractConnection] = []
        self._made = 0  # connections taken from the pool: at most max_in_flight
        pool = client.connection_pool
        self.timeout = pool.connection_kwargs.get("socket_timeout") or TIMEOUT

    async def run(self, script: AsyncScript, keys: tuple[str, ...], args: Sequence[Any]) -> Any:
        """Run ``script`` with ``keys`` and ``args`` in this turn's batch; its reply.

        Raises:
            StoreUnavailable: Redis cannot be reached, or did not answer this batch.
        """
        reply: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting.append(_Call(script, keys, args, reply, time.perf_counter()))
        # a task's first step runs in the next turn, after every callback of this one: it
        # takes what this turn added. With every sender busy, the first one answered sends.
        if self._idle is None and self._busy < self.max_in_flight:
            sender = self._idle = asyncio.create_task(self._sender())
            self._senders.add(sender)  # a reference, so the task is not collected mid-flight
            sender.add_done_callback(self._finished)
        return await reply

    def _finished(self, sender: asyncio.Task[None]) -> None:
        self._senders.discard(sender)
        if self._idle is sender:  # cancelled before it began (the loop is closing)
            self._idle = None
            if not self._busy:  # and no other sender will take the calls
                calls, self._waiting = self._waiting, []
                _fail(calls, StoreUnavailable("the batch was cancelled"))

    async def _sender(self) -> None:
        self._idle = None
        self._busy += 1
        try:
            while self._waiting:
                calls = self._waiting[: self.max_batch]
                del self._waiting[: self.max_batch]
                self.sizes.observe(len(calls))
                now = time.perf_counter()
                for call in calls:
                    self.queue_waits.observe(now - call.made)
                await self._send(calls)
        except BaseException:  # cancelled (the loop is closing): nobody waits in vain
            if self._busy == 1 and self._idle is None:  # nobody else will send them
                calls, self._waiting = self._waiting, []
                _fail(calls, StoreUnavailable("the batch was cancelled"))
            raise
        finally:  # at once, not in a done callback: a call made next finds no sender busy
            self._busy -= 1

    async def _send(self, calls: list[_Call]) -> None:
        try:
            with unavailable_as_store_error():
                replies = await self._execute(calls)
        except Exception as exc:  # every waiter gets it, as it would alone
            _fail(calls, exc)
            return
        except BaseException:  # cancelled (the loop is closing): nobody waits in vain
            _fail(calls, StoreUnavailable("the batch was cancelled"))
            raise
        for call, reply in zip(calls, replies, strict=True):
            if call.reply.done():  # its caller gave up (cancelled)
                continue
            if isinstance(reply, Exception):
                call.reply.set_exception(_as_store_error(reply))
            else:
                call.reply.set_result(reply)

    async def _execute(self, calls: list[_Call]) -> list[Any]:
        """Every call's reply (an exception for a call Redis refused), in order."""
        replies = await self._pipeline(calls)
        unknown = [i for i, r in enumerate(replies) if isinstance(r, rex.NoScriptError)]
        if unknown:  # a restarted Redis forgot the scripts: load them, run those calls again
            for script in {calls[i].script for i in unknown}:
                script.sha = await self.redis.script_load(script.script)
            again = await self._pipeline([calls[i] for i in unknown])
            for i, reply in zip(unknown, again, strict=True):
                replies[i] = reply
        return replies

    async def _pipeline(self, calls: list[_Call]) -> list[Any]:
        # EVALSHA itself, not the script objects: redis-py's pipeline given those asks SCRIPT
        # EXISTS first, a second round trip per batch
        packed = b"".join([evalsha(c.script.sha, c.keys, c.args) for c in calls])
        conn = await self._connection()
        try:
            # a dead socket (Redis restarted) or a lost reply: once more on a fresh connection,
            # as the client's retry does for one command (every script is safe to run twice)
            replies: list[Any] = await conn.retry.call_with_retry(
                lambda: self._round_trip(conn, packed, len(calls)),
                lambda _: conn.disconnect(),
            )
        finally:
            self._free.append(conn)
        return replies

    async def _connection(self) -> AbstractConnection:
        if self._free:
            return self._free.pop()
        # taken from the client's pool for good (closed with the client, whoever closes it),
        # its reads and writes bounded by the round trip's one timeout instead of one each
        pool = self.redis.connection_pool
        conn: AbstractConnection = await pool.get_connection()  # type: ignore[no-untyped-call]
        conn.socket_timeout = None
        self._made += 1
        return conn

    async def _round_trip(self, conn: AbstractConnection, packed: bytes, count: int) -> list[Any]:
        """Send ``packed`` (``count`` commands) and read every reply, all under one timeout
        (redis-py's own pipeline sets a timer for each reply it reads)."""
        replies: list[Any] = []
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self.timeout):
                await conn.send_packed_command(packed)
                for _ in range(count):
                    try:
                        replies.append(await conn.read_response())
                    except rex.ResponseError as exc:  # that script's error: the others stand
                        replies.append(exc)
        except TimeoutError:  # the connection was closed as the timeout cut its read
            raise rex.TimeoutError(f"no reply from Redis within {self.timeout} s") from None
        self.round_trips.observe(time.perf_counter() - started)
        return replies

    async def drain(self) -> None:
        """Wait until every batch sent so far has its replies (before closing the client)."""
        while self._senders:
            await asyncio.gather(*self._senders, return_exceptions=True)

    async def close(self) -> None:
        """Wait for the batches sent so far, then give the batch's connections back."""
        await self.drain()
        free, self._free = self._free, []
        for conn in free:
            conn.socket_timeout = self.timeout
            await self.redis.connection_pool.release(conn)


def _fail(calls: list[_Call], error: BaseException) -> None:
    for call in calls:
        if not call.reply.done():  # its caller may have given up (cancelled)
            call.reply.set_exception(error)


def _as_store_error(error: Exception) -> Exception:
    """One call's error reply as the store's error (``MISCONF``, ``LOADING``: unavailable)."""
    try:
        with unavailable_as_store_error():
            raise error
    except Exception as mapped:
        return mapped
