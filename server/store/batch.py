"""The script calls of one event-loop turn sent to Redis together, in one round trip.

Under load many rooms persist in the same turn of the event loop (one client frame read wakes
one room, a burst of reads wakes many). Sent one by one, each ``EVALSHA`` takes a connection
from the pool, writes, and waits for its own reply; the replies then queue behind each other
in the client, not in Redis. A :class:`ScriptBatch` collects
the calls made in one turn and writes them at the start of the next as one pipeline (no
``MULTI``: each script is still its own atomic step in Redis, with its own fence and version
check), and hands each caller its own reply. While :data:`MAX_IN_FLIGHT` batches wait for
Redis, the calls made meanwhile gather and go together as soon as one is answered. So:

- a refusal (``fenced``, ``conflict``, ``gone``) is one script's answer, so it fails only that
  caller's write; the others in the batch land exactly as if sent alone;
- when Redis cannot be reached or the connection fails before every reply is read, the calls
  not answered go once more on a fresh connection (every script is safe to run twice), and
  then every caller still waiting gets :class:`~server.store.base.StoreUnavailable` (the
  outcome unknown, as for one call);
- a caller's write is acknowledged only once Redis answered it (the contract of
  :mod:`server.store.base`); with ``replicas`` (``--durability replicated``) only once that
  many replicas have it too: a ``WAIT`` follows the batch's calls on the same connection, and
  if it times out short, every call of the batch that wrote is answered
  :class:`~server.store.base.StoreUnavailable` (written on the primary, perhaps not on a
  replica: its outcome unknown, as for a lost reply);
- a primary demoted to a replica (``READONLY``, after a Sentinel failover) fails the calls it
  refused and the connection is opened again, to the primary Sentinel names now; and with
  Sentinel the batch asks every :data:`PRIMARY_CHECK` seconds which primary it names, and
  leaves a connection to another at once: an old primary that was paused, replaced and comes
  back with a replica still attached would otherwise take (and, under ``WAIT``, confirm)
  writes until Sentinel demotes it, all of them thrown away then.

The replies are parsed where they arrive: the batch's connection is an
:class:`asyncio.Protocol` whose ``data_received`` feeds hiredis's parser and answers each
caller there, in the turn the bytes are read. A reader task (redis-py's connection, or the
sender task this module had) is woken by the bytes and runs a turn later, behind every room's
work queued meanwhile, and only then wakes the callers, another turn on: on a saturated server
that wake was about a millisecond of every write. The calls are packed with each room's
constant part packed once (:mod:`server.store.resp`) and written in one piece; each batch in
flight has one deadline (a loop timer), where redis-py's pipeline checks a connection out of
the pool and sets a timer for every reply it reads.

Calls run in Redis in the order they were made, within a batch and from batch to batch (one
connection), so the writes of one room keep their order (and a room's actor awaits each write
before it makes the next). A batch holds at most :data:`MAX_BATCH` calls (the rest go in the
next); how many calls wait is bounded by the callers, at most one per open room.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Sequence
from typing import Any, cast

import hiredis
import redis.exceptions as rex
from redis._parsers import BaseParser  # redis-py's own error replies to exceptions
from redis.asyncio import Redis
from redis.asyncio.connection import Connection, SSLConnection, UnixDomainSocketConnection
from redis.commands.core import AsyncScript

from server.metrics import PERSIST_BUCKETS, Histogram
from server.store.answer import Answer
from server.store.base import StoreUnavailable
from server.store.redis_client import TIMEOUT, unavailable_as_store_error
from server.store.redis_sentinel import REPLICA_TIMEOUT_MS, primary_address
from server.store.resp import command, evalsha

#: Calls at most in one pipeline (one round trip); past it a turn's calls go as several.
MAX_BATCH = 256
#: Batches at most waiting for their replies at once: the calls made meanwhile wait for one to
#: be answered and go together, in a larger batch (fewer round trips for the same writes).
MAX_IN_FLIGHT = 2
#: Seconds between two questions to Sentinel: which primary it names now.
PRIMARY_CHECK = 0.25
BATCH_BUCKETS = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0)


class _Call:
    __slots__ = ("args", "keys", "made", "reloaded", "reply", "resent", "script")

    def __init__(
        self,
        script: AsyncScript,
        keys: tuple[str, ...],
        args: Sequence[Any],
        reply: asyncio.Future[Any],
        made: float,
    ) -> None:
        self.script = script
        self.keys = keys
        self.args = args
        self.reply = reply
        self.made = made  # perf_counter() at the call: its wait for the batch's write is timed
        self.resent = False  # sent once more already on a fresh connection (a lost reply)
        self.reloaded = False  # sent once more already with its script loaded again


class _Sent:
    """A batch written, waiting for its replies (they come in the order of its calls, then
    the ``WAIT``'s when replicas must confirm it)."""

    __slots__ = ("answered", "calls", "deadline", "held", "waits", "written")

    def __init__(
        self, calls: list[_Call], written: float, deadline: asyncio.TimerHandle, waits: bool
    ) -> None:
        self.calls = calls
        self.written = written  # perf_counter() at the write: its round trip is timed
        self.answered = 0  # replies read
        self.deadline = deadline
        self.waits = waits  # a WAIT follows: the replies are held until its answer
        self.held: list[Any] = []

    @property
    def expected(self) -> int:
        return len(self.calls) + self.waits

    @property
    def unanswered(self) -> list[_Call]:
        """Its calls whose callers have no answer yet."""
        return self.calls if self.waits else self.calls[self.answered :]


class _Replies(asyncio.Protocol):
    """The batch's connection to Redis: every reply parsed as its bytes are read."""

    def __init__(self, batch: ScriptBatch) -> None:
        self.batch = batch
        # an error reply becomes redis-py's exception for it (NOSCRIPT, READONLY, ...)
        self.parser = hiredis.Reader(replyError=BaseParser.parse_error)
        self.transport: asyncio.Transport | None = None
        self.greeting: deque[asyncio.Future[Any]] = deque()  # AUTH, SELECT: before any batch
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # a stream transport (uvloop's is no subclass of asyncio's, hence no isinstance)
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        self.parser.feed(data)
        try:
            while self.greeting:
                reply = self.parser.gets()
                if reply is False:
                    return
                self.greeting.popleft().set_result(reply)
            self.batch._replied(self)
        except hiredis.ProtocolError as exc:  # not Redis, or a byte lost: nothing read is sure
            self.batch._drop(self, rex.ConnectionError(f"unreadable reply from Redis: {exc}"))

    def connection_lost(self, exc: Exception | None) -> None:
        lost = rex.ConnectionError(f"connection to Redis lost: {exc or 'closed by Redis'}")
        for waiting in self.greeting:
            if not waiting.done():
                waiting.set_exception(lost)
        self.batch._drop(self, lost)
        if not self.closed.done():
            self.closed.set_result(None)

    def write(self, data: bytes) -> None:
        assert self.transport is not None
        self.transport.write(data)

    def abort(self) -> None:
        if self.transport is not None:
            self.transport.abort()


class ScriptBatch:
    """Runs Lua scripts on ``client``'s Redis, the calls of one turn in one pipeline."""

    @staticmethod
    def serves(client: Redis) -> bool:
        """Whether a batch can reach ``client``'s Redis itself: over TCP or a Unix socket,
        not TLS (whose calls then run one by one through redis-py)."""
        kind = client.connection_pool.connection_class
        plain = issubclass(kind, Connection | UnixDomainSocketConnection)
        return plain and not issubclass(kind, SSLConnection)

    def __init__(
        self,
        client: Redis,
        max_batch: int = MAX_BATCH,
        max_in_flight: int = MAX_IN_FLIGHT,
        *,
        replicas: int = 0,
        replica_timeout_ms: int = REPLICA_TIMEOUT_MS,
    ) -> None:
        self.redis = client
        self.max_batch = max_batch
        self.max_in_flight = max_in_flight
        self.replicas = replicas  # replicas that must have a batch's writes (0: the primary)
        self.replica_timeout_ms = replica_timeout_ms
        #: calls per round trip (exported in ``/metrics`` by :meth:`Metrics.watch_batches`)
        self.sizes = Histogram(
            "cardroom_store_batch_size",
            "Room writes sent to Redis in one round trip (those of one event-loop turn)",
            BATCH_BUCKETS,
        )
        #: seconds from a batch's write to its last reply parsed: Redis and the wire, apart
        #: from the callers' wait for the loop to run them again (``cardroom_persist_seconds``)
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
        self._waiting: list[_Call] = []  # not written yet, in the order they were made
        self._sent: deque[_Sent] = deque()  # written, oldest first
        self._conn: _Replies | None = None
        self._opening: asyncio.Task[None] | None = None
        self._loading: asyncio.Task[None] | None = None  # scripts Redis forgot, being loaded
        self._forgotten: list[_Call] = []  # their calls, to go again once loaded
        self._flushing = False  # a write of the waiting calls is scheduled
        self._settled: list[asyncio.Future[None]] = []  # drain()s waiting for the last reply
        self._made = 0  # connections opened
        self._primary: tuple[str, int] | None = None  # where the connection goes (Sentinel)
        self._watch: asyncio.Task[None] | None = None  # asks Sentinel which primary it names
        pool = client.connection_pool
        self.timeout = pool.connection_kwargs.get("socket_timeout") or TIMEOUT
        # a batch's reply may take the WAIT's time on top of Redis's answer
        self._deadline = self.timeout + (replica_timeout_ms / 1000 if replicas else 0.0)
        self._wait = command("WAIT", replicas, replica_timeout_ms) if replicas else b""

    @property
    def _busy(self) -> int:
        """Batches written and not yet answered."""
        return len(self._sent)

    async def run(self, script: AsyncScript, keys: tuple[str, ...], args: Sequence[Any]) -> Any:
        """Run ``script`` with ``keys`` and ``args`` in this turn's batch; its reply.

        Raises:
            StoreUnavailable: Redis cannot be reached, or did not answer this batch.
        """
        loop = asyncio.get_running_loop()
        # an answer: a room's actor driving its own step resumes it where the reply is set
        reply = Answer(loop=loop)
        self._waiting.append(_Call(script, keys, args, reply, time.perf_counter()))
        # a callback scheduled now runs in the next turn, after every callback of this one:
        # it writes what this turn added
        if not self._flushing:
            self._flushing = True
            loop.call_soon(self._flush)
        return await reply

    def _flush(self) -> None:
        """Write the waiting calls, as many batches as may be in flight."""
        self._flushing = False
        conn = self._conn
        if conn is None:
            if self._opening is None and self._waiting:
                self._opening = asyncio.create_task(self._open())
            return
        loop = asyncio.get_running_loop()
        while self._waiting and len(self._sent) < self.max_in_flight:
            calls = self._waiting[: self.max_batch]
            del self._waiting[: self.max_batch]
            packed = b"".join([evalsha(c.script.sha, c.keys, c.args) for c in calls]) + self._wait
            now = time.perf_counter()
            # counted as made: a call sent again (a lost reply, a forgotten script) is not
            waits = [now - c.made for c in calls if not (c.resent or c.reloaded)]
            if waits:
                self.sizes.observe(len(waits))
            for wait in waits:
                self.queue_waits.observe(wait)
            deadline = loop.call_later(self._deadline, self._timed_out, conn)
            self._sent.append(_Sent(calls, now, deadline, bool(self.replicas)))
            conn.write(packed)

    def _replied(self, conn: _Replies) -> None:
        """Answer each caller whose reply ``conn`` has parsed; then write what waits."""
        if conn is not self._conn:
            return
        sent = self._sent
        answers: list[tuple[_Call, Any]] = []
        while sent:
            reply = conn.parser.gets()
            if reply is False:  # the rest has not arrived yet
                break
            batch = sent[0]
            if not batch.waits:
                answers.append((batch.calls[batch.answered], reply))
            elif batch.answered < len(batch.calls):
                batch.held.append(reply)
            else:  # the WAIT's answer: how many replicas have the batch's writes
                answers.extend(self._replicated(batch, reply))
            batch.answered += 1
            if batch.answered == batch.expected:
                sent.popleft()
                batch.deadline.cancel()
                self.round_trips.observe(time.perf_counter() - batch.written)
        # every reply read is parsed first: an answer may run the rest of its room's step here
        # (server/store/answer.py), which is no part of the round trip
        for call, reply in answers:
            self._answer(call, reply)
        if conn is not self._conn:  # failed meanwhile: its calls went to a fresh one
            return
        if any(isinstance(reply, rex.ReadOnlyError) for _, reply in answers):
            # a primary demoted by a failover: the next connection goes to the new one
            self._drop(conn, rex.ConnectionError("the primary is now a replica"))
            return
        if not sent and conn.parser.gets() is not False:  # a reply nobody asked for
            self._drop(conn, rex.ConnectionError("a reply from Redis that no call awaits"))
            return
        if self._waiting and len(sent) < self.max_in_flight:
            self._flush()  # at once: the calls made meanwhile go without another turn
        self._settle()

    def _replicated(self, batch: _Sent, count: Any) -> list[tuple[_Call, Any]]:
        """The batch's replies once the ``WAIT`` answered ``count``: as they are if enough
        replicas have its writes; else each write refused (a refusal or an error stands)."""
        if isinstance(count, int) and count >= self.replicas:
            return list(zip(batch.calls, batch.held, strict=True))
        short = StoreUnavailable(
            f"{count} of {self.replicas} replicas confirmed within {self.replica_timeout_ms} ms"
        )
        return [
            (call, short if _wrote(reply) else reply)
            for call, reply in zip(batch.calls, batch.held, strict=True)
        ]

    def _answer(self, call: _Call, reply: Any) -> None:
        if isinstance(reply, rex.NoScriptError) and not call.reloaded:
            self._forget(call)  # a restarted Redis forgot the scripts: load them, run it again
            return
        if call.reply.done():  # its caller gave up (cancelled)
            return
        if isinstance(reply, Exception):  # that script's error: the others stand
            call.reply.set_exception(_as_store_error(reply))
        else:
            call.reply.set_result(reply)

    def _forget(self, call: _Call) -> None:
        call.reloaded = True
        self._forgotten.append(call)
        if self._loading is None:
            self._loading = asyncio.create_task(self._load())

    async def _load(self) -> None:
        try:
            while self._forgotten:
                calls, self._forgotten = self._forgotten, []
                try:
                    with unavailable_as_store_error():
                        for script in {c.script for c in calls}:
                            script.sha = await self.redis.script_load(script.script)
                except Exception as exc:
                    _fail(calls, exc)
                    continue
                self._waiting[:0] = calls  # ahead of the calls made since: they were first
                self._flush()
        except BaseException:  # cancelled (the loop is closing): nobody waits in vain
            calls, self._forgotten = self._forgotten, []
            _fail(calls, StoreUnavailable("the batch was cancelled"))
            raise
        finally:
            self._loading = None
            self._settle()

    def _timed_out(self, conn: _Replies) -> None:
        self._drop(conn, rex.TimeoutError(f"no reply from Redis within {self.timeout} s"))

    def _drop(self, conn: _Replies, error: Exception) -> None:
        """``conn`` failed: its unanswered calls go once more on a fresh connection (as the
        client's retry does for one command), or fail if they went twice."""
        if conn is not self._conn:
            return
        self._conn = None
        conn.abort()
        sent, self._sent = self._sent, deque()
        again: list[_Call] = []
        for batch in sent:
            batch.deadline.cancel()
            for call in batch.unanswered:
                if call.resent:
                    _fail([call], _as_store_error(error))
                else:
                    call.resent = True
                    again.append(call)
        self._waiting[:0] = again
        if self._waiting:
            self._flush()  # opens a fresh connection
        self._settle()

    async def _open(self) -> None:
        try:
            try:
                with unavailable_as_store_error():
                    async with asyncio.timeout(self.timeout):
                        conn = await self._connect()
            except TimeoutError:
                raise StoreUnavailable(f"no connection to Redis within {self.timeout} s") from None
        except Exception as exc:  # nobody can be answered: every waiting call gets it
            calls, self._waiting = self._waiting, []
            _fail(calls, exc)
            return
        except BaseException:  # cancelled (the loop is closing): nobody waits in vain
            calls, self._waiting = self._waiting, []
            _fail(calls, StoreUnavailable("the batch was cancelled"))
            raise
        finally:
            self._opening = None
            self._settle()
        self._conn = conn
        self._made += 1
        if self._primary is not None and self._watch is None:
            self._watch = asyncio.create_task(self._watch_primary(), name="batch-primary")
        self._flush()

    async def _watch_primary(self) -> None:
        """Leave the connection as soon as Sentinel names another primary than its own."""
        while True:
            await asyncio.sleep(PRIMARY_CHECK)
            try:
                named = await primary_address(self.redis)
            except Exception:  # Sentinel away: the connection's own errors still count
                continue
            conn = self._conn
            if conn is not None and named is not None and named != self._primary:
                self._drop(conn, rex.ConnectionError(f"Sentinel names {named} the primary now"))

    async def _connect(self) -> _Replies:
        """A connection to the client's Redis, logged in and on its database."""
        loop = asyncio.get_running_loop()
        kw = self.redis.connection_pool.connection_kwargs
        conn = _Replies(self)
        primary = await primary_address(self.redis)  # with Sentinel: where it is now
        if primary is not None:
            await loop.create_connection(lambda: conn, *primary)
            self._primary = primary
        elif "path" in kw:
            await loop.create_unix_connection(lambda: conn, kw["path"])
        else:
            await loop.create_connection(
                lambda: conn, kw.get("host", "localhost"), kw.get("port", 6379)
            )
        hello: list[tuple[Any, ...]] = []
        if kw.get("password"):
            user = kw.get("username")
            hello.append(("AUTH", user, kw["password"]) if user else ("AUTH", kw["password"]))
        if kw.get("db"):
            hello.append(("SELECT", kw["db"]))
        try:
            for parts in hello:
                answer = loop.create_future()
                conn.greeting.append(answer)
                conn.write(command(*parts))
                reply = await answer
                if isinstance(reply, Exception):
                    raise reply
        except BaseException:
            conn.abort()
            raise
        return conn

    def _settle(self) -> None:
        """Wake the drain()s once nothing waits for Redis."""
        if self._waiting or self._sent or self._opening or self._loading or not self._settled:
            return
        settled, self._settled = self._settled, []
        for done in settled:
            if not done.done():
                done.set_result(None)

    async def drain(self) -> None:
        """Wait until every call made so far has its answer (before closing the client)."""
        while self._waiting or self._sent or self._opening or self._loading:
            done = asyncio.get_running_loop().create_future()
            self._settled.append(done)
            await done

    async def close(self) -> None:
        """Wait for the calls made so far, then close the batch's connection."""
        await self.drain()
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch
        conn, self._conn = self._conn, None
        if conn is not None and conn.transport is not None:
            conn.transport.close()
            await conn.closed


def _fail(calls: list[_Call], error: BaseException) -> None:
    for call in calls:
        if not call.reply.done():  # its caller may have given up (cancelled)
            call.reply.set_exception(error)


def _wrote(reply: Any) -> bool:
    """Whether a room script's reply says it wrote (``ok``; not a refusal nor an error)."""
    return isinstance(reply, list) and bool(reply) and reply[0] == b"ok"


def _as_store_error(error: Exception) -> Exception:
    """One call's error reply as the store's error (``MISCONF``, ``LOADING``: unavailable)."""
    try:
        with unavailable_as_store_error():
            raise error
    except Exception as mapped:
        return mapped
