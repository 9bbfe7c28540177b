"""Bots that search think in worker processes, so a 100 ms decision never stalls the server's
event loop (a thread would hold the GIL). Fast levels run inline in the room's actor.

Several workers (:func:`default_workers`) share one :class:`~server.bots.fair.FairQueue`:
requests are taken round-robin by owner (the address that opened the room), then by room, so a
room with a backlog of slow expert decisions delays another room's decision by at most one
decision per room ahead of it, and one address's rooms share one turn per round. Of two or more
workers, the first never takes a timed level (``expert``) and the others run at a lower CPU
priority: a ``strong`` bot or a hint never waits behind a second's worth of expert search, nor
shares a core with one on equal terms.

Workers hold no bot between decisions (see :mod:`server.bots.worker`): a decision carries the
bot's state (``Decision.state``, kept by the room's actor) there and back, so a room's bots and
their memory leave with the room, whichever worker served them, and a seeded bot decides the
same however many workers there are.

No bot stalls a room: each search stops at its own deadline with its best move so far, and if
the worker's answer still has not come when :meth:`BotPool.choose`'s watchdog fires (a long
queue, a worker starting, hung or dead), the ``basic`` bot answers inline. A worker that has
run one decision for longer than the watchdog allows a whole request is hung: it is killed,
and a worker that dies is replaced.

Hints (:meth:`BotPool.advise`) ask the ``strong`` bot the same way, through the same queue and
under the same watchdog, from a fresh bot each time: a hint is seeded by its caller (room,
seat, state version) so the same question always gets the same answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import pickle
import sys
import time
from collections import deque
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from protocol.views import View
from server.bots.advice import Advice
from server.bots.base import EXPERT_SECONDS, SAFETY_SECONDS, TIMED_LEVELS, make_bot
from server.bots.fair import FairQueue
from server.bots.worker import HEADER, HINT_LEVEL
from server.rules.base import Action

log = logging.getLogger(__name__)

#: Levels whose decisions go to the worker processes.
SLOW_LEVELS = frozenset({"strong", "expert"})
#: The longest a slow level's own deadline lets it think (seconds).
THINK_SECONDS = {"strong": SAFETY_SECONDS, "expert": EXPERT_SECONDS}
#: Extra time the watchdog allows beyond that for the queue and the process round trip.
GRACE_SECONDS = 1.0
#: The level that answers when the watchdog fires (fast, inline).
FALLBACK_LEVEL = "basic"
#: Requests one owner may have waiting; more are answered by the fallback at once.
MAX_QUEUED_PER_OWNER = 64
#: Requests waiting in all; more are answered by the fallback at once.
MAX_QUEUED = 4096
#: Seconds a worker that died soon after it started waits before its replacement starts
#: (doubled for each such death in a row, up to :data:`MAX_RESTART_DELAY`).
RESTART_DELAY = 0.5
MAX_RESTART_DELAY = 30.0
#: The niceness of every worker but the first: they may search for a second's time budget, and
#: must not slow the first (strong bots and hints) or the server's event loop on a busy machine.
TIMED_NICE = 10


def default_workers() -> int:
    """Worker processes by default: one a core, up to four."""
    return max(1, min(4, os.cpu_count() or 1))


@dataclass(frozen=True, slots=True)
class Share:
    """Whose turn a request waits for: the room's owner (an opaque key, the creator's address)
    and the room."""

    owner: Hashable
    room: Hashable


#: The share of callers that name none (each such caller its own owner would be fairer, but
#: callers without rooms are tests and tools).
ANYONE = Share(None, None)


@dataclass(frozen=True, slots=True)
class Decision:
    """A slow bot's move: ``state`` is the bot's state after it (give it to the next decision
    of the same bot), ``None`` when the fallback answered (keep the state you had); ``level``
    is the level that decided."""

    action: Action
    state: bytes | None
    level: str


@dataclass(slots=True)
class PoolStats:
    """Plain counts, read when ``/metrics`` is scraped."""

    decisions: dict[str, int] = field(default_factory=dict)  # level -> decisions from a worker
    fallbacks: dict[tuple[str, str], int] = field(default_factory=dict)  # (level, why) -> count
    restarts: int = 0  # workers started to replace one that died or hung
    queued: int = 0  # requests waiting now
    workers: int = 0  # workers ready now

    def fell_back(self, level: str, why: str) -> None:
        self.fallbacks[(level, why)] = self.fallbacks.get((level, why), 0) + 1


class WorkerLost(Exception):
    """The worker running a request died or was killed before it answered."""


class PoolClosed(Exception):
    """The pool was closed with the request still waiting."""


@dataclass(eq=False, slots=True)
class _Job:
    request: tuple[Any, ...]
    share: Share
    level: str  # the level it asks (a hint: HINT_LEVEL)
    future: asyncio.Future[tuple[Any, ...]]
    queued_at: float
    timed: bool = False  # a time-budgeted level (see the module docstring)


class _Worker:
    """One worker process and the request it is running."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.proc: asyncio.subprocess.Process | None = None
        self.reader: asyncio.Task[None] | None = None
        self.ready = False
        self.job: _Job | None = None
        self.started = 0.0  # when the current job was handed to it
        self.born = 0.0
        self.pid = 0
        self.control: deque[_Job] = deque()  # requests for this worker only (census)
        self.watch: asyncio.TimerHandle | None = None

    def send(self, request: tuple[Any, ...]) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        data = pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL)
        self.proc.stdin.write(HEADER.pack(len(data)) + data)


class BotPool:
    """Worker processes for slow bots behind a fair queue, started at the first request."""

    def __init__(
        self,
        workers: int | None = None,
        grace: float = GRACE_SECONDS,
        think: Mapping[str, float] = THINK_SECONDS,
        *,
        factories: Mapping[str, str] | None = None,
        max_queued: int = MAX_QUEUED,
        max_queued_per_owner: int = MAX_QUEUED_PER_OWNER,
        observe_wait: Callable[[str, float], None] | None = None,
    ) -> None:
        """``factories``: ``{level: "module:name"}``, bots the workers make for that level
        instead (tests inject slow or failing ones); ``observe_wait``: called with each
        request's level and seconds in the queue."""
        self.workers = default_workers() if workers is None else max(1, workers)
        self.grace = grace
        self.think = think
        self.factories = dict(factories or {})
        self.max_queued = max_queued
        self.max_queued_per_owner = max_queued_per_owner
        self.observe_wait = observe_wait
        self.stats = PoolStats()
        self._queue: FairQueue[_Job] = FairQueue()
        self._workers: list[_Worker] = []
        self._starting: set[asyncio.Task[None]] = set()
        self._quick_deaths = 0
        self._closed = False

    def timeout(self, level: str) -> float:
        """How long :meth:`choose` waits for a worker before the fallback answers."""
        return self.think.get(level, SAFETY_SECONDS) + self.grace

    @property
    def queued(self) -> int:
        return len(self._queue)

    # ------------------------------------------------------------------ requests

    async def choose(
        self,
        level: str,
        game: str,
        seed: int,
        view: View,
        *,
        share: Share = ANYONE,
        state: bytes | None = None,
    ) -> Decision:
        """The decision of the ``level`` bot seeded ``seed`` (or continuing from ``state``) for
        ``view``, or, if no worker answered within :meth:`timeout`, the ``basic`` bot's."""
        request = ("choose", level, game, seed, view, state)
        reply = await self._ask(request, share, level, level in TIMED_LEVELS)
        if reply is None:
            return Decision(make_bot(FALLBACK_LEVEL, game, seed=seed).choose(view), None, "basic")
        _, action, new_state = reply
        return Decision(action, new_state, level)

    async def advise(
        self, game: str, seed: int, view: View, *, share: Share = ANYONE
    ) -> tuple[Action, str, Advice | None]:
        """A hint for the seat whose ``view`` this is: the ``strong`` bot's hint (a fresh bot
        seeded ``seed``), ``"strong"`` and what its search found (:class:`Advice`, where it
        searched), or, past the same watchdog as :meth:`choose`, the ``basic`` bot's choice,
        ``"basic"`` and ``None``."""
        reply = await self._ask(("advise", game, seed, view), share, HINT_LEVEL, False)
        if reply is None:
            return make_bot(FALLBACK_LEVEL, game, seed=seed).choose(view), FALLBACK_LEVEL, None
        advice = reply[2] if isinstance(reply[2], Advice) else None
        return reply[1], HINT_LEVEL, advice

    async def _ask(
        self, request: tuple[Any, ...], share: Share, level: str, timed: bool
    ) -> tuple[Any, ...] | None:
        """A worker's ``done`` reply, or ``None`` when the fallback must answer (why: counted
        in :attr:`stats` and logged)."""
        if len(self._queue) >= self.max_queued:
            self._fallback(level, "queue_full")
            return None
        if self._queue.queued(share.owner) >= self.max_queued_per_owner:
            self._fallback(level, "owner_full")
            return None
        loop = asyncio.get_running_loop()
        job = _Job(request, share, level, loop.create_future(), time.monotonic(), timed)
        self._queue.push(share.owner, share.room, job)
        self.stats.queued = len(self._queue)
        self._start_workers()
        self._dispatch()
        try:
            reply = await asyncio.wait_for(asyncio.shield(job.future), self.timeout(level))
        except TimeoutError:
            self._withdraw(job)
            self._fallback(level, "overran")
            return None
        except asyncio.CancelledError:  # the room stopped asking: free its place in the queue
            self._withdraw(job)
            raise
        except WorkerLost:
            self._fallback(level, "worker_lost")
            return None
        except PoolClosed:
            self._fallback(level, "closed")
            return None
        if reply[0] != "done":
            self._fallback(level, "failed", str(reply[1]))
            return None
        self.stats.decisions[level] = self.stats.decisions.get(level, 0) + 1
        return reply

    def _withdraw(self, job: _Job) -> None:
        """Its caller stopped waiting: out of the queue if it had not started."""
        if self._queue.remove(job.share.owner, job.share.room, job):
            self.stats.queued = len(self._queue)
            job.future.cancel()

    def _fallback(self, level: str, why: str, detail: str = "") -> None:
        self.stats.fell_back(level, why)
        if why == "overran":
            log.warning("%s bot overran %.1f s: basic answers", level, self.timeout(level))
        else:
            log.warning("%s bot: %s %s; basic answers", level, why, detail)

    async def census(self) -> list[dict[str, Any]]:
        """Each ready worker's own count, in worker order: its ``pid``, the ``bots`` alive in it
        (none between decisions), the ``decisions`` it made (``levels``: by level), its
        resident memory (``rss``, bytes) and niceness."""
        loop = asyncio.get_running_loop()
        jobs = []
        for worker in self._workers:
            if worker.ready:
                job = _Job(("census",), ANYONE, "census", loop.create_future(), time.monotonic())
                worker.control.append(job)
                jobs.append(job)
        self._dispatch()
        replies = await asyncio.gather(*(j.future for j in jobs), return_exceptions=True)
        return [r[1] for r in replies if isinstance(r, tuple) and r[0] == "census"]

    # ------------------------------------------------------------------ scheduling

    def _dispatch(self) -> None:
        """Give every idle worker its next request: its own control requests first, then the
        fair queue's next (the first worker of several takes no timed level)."""
        for worker in self._workers:
            if not worker.ready or worker.job is not None:
                continue
            job = worker.control.popleft() if worker.control else None
            if job is None:
                accept = _untimed if worker.index == 0 and self.workers > 1 else None
                job = self._queue.pop(accept)
                self.stats.queued = len(self._queue)
                if job is None:
                    continue
                if self.observe_wait is not None:
                    self.observe_wait(job.level, time.monotonic() - job.queued_at)
            if job.future.done():  # its caller stopped waiting (cancelled)
                continue
            self._run(worker, job)

    def _run(self, worker: _Worker, job: _Job) -> None:
        worker.job = job
        worker.started = time.monotonic()
        try:
            worker.send(job.request)
        except (ConnectionError, RuntimeError) as exc:  # its pipe is gone: it is dying
            log.warning("bot worker %d: cannot send (%s)", worker.pid, exc)
            self._lost(worker, job)
            return
        if job.level != "census":
            # a decision stops at its own deadline: one still running past the whole
            # request's watchdog is hung
            loop = asyncio.get_running_loop()
            worker.watch = loop.call_later(self.timeout(job.level), self._overdue, worker, job)

    def _overdue(self, worker: _Worker, job: _Job) -> None:
        if worker.job is job and worker.proc is not None and worker.proc.returncode is None:
            log.warning("bot worker %d hung on a %s decision: killing it", worker.pid, job.level)
            with contextlib.suppress(ProcessLookupError):
                worker.proc.kill()

    def _lost(self, worker: _Worker, job: _Job) -> None:
        worker.job = None
        if not job.future.done():
            job.future.set_exception(WorkerLost())
            job.future.exception()  # retrieved: its caller may have stopped waiting already

    # ------------------------------------------------------------------ workers

    def _start_workers(self) -> None:
        if self._workers or self._closed:
            return
        self._workers = [_Worker(i) for i in range(self.workers)]
        for worker in self._workers:
            self._spawn(worker, 0.0)

    def _spawn(self, worker: _Worker, delay: float) -> None:
        task = asyncio.create_task(self._start(worker, delay), name=f"bot-worker-{worker.index}")
        self._starting.add(task)
        task.add_done_callback(self._starting.discard)

    async def _start(self, worker: _Worker, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        if self._closed:
            return
        args = list(
            itertools.chain.from_iterable(
                ("--factory", f"{k}={v}") for k, v in self.factories.items()
            )
        )
        if worker.index > 0:  # the workers that may search for a time budget yield the CPU
            args += ["--nice", str(TIMED_NICE)]
        worker.born = time.monotonic()
        try:
            worker.proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "server.bots.worker",
                *args,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
            )
        except OSError as exc:  # out of processes or descriptors: the fallback answers meanwhile
            log.warning("bot worker %d could not start (%s); trying again", worker.index, exc)
            self._spawn(worker, MAX_RESTART_DELAY)
            return
        worker.reader = asyncio.create_task(self._read(worker), name=f"bot-reader-{worker.index}")

    async def _read(self, worker: _Worker) -> None:
        proc = worker.proc
        assert proc is not None and proc.stdout is not None
        try:
            while True:
                (size,) = HEADER.unpack(await proc.stdout.readexactly(HEADER.size))
                reply = pickle.loads(await proc.stdout.readexactly(size))
                if reply[0] == "ready":
                    worker.pid, worker.ready = reply[1], True
                    self.stats.workers = sum(w.ready for w in self._workers)
                else:
                    self._answered(worker, reply)
                self._dispatch()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass  # the worker is gone
        except Exception:  # a garbled reply: this worker cannot be trusted any more
            log.exception("bot worker %d: bad reply; replacing it", worker.pid)
        finally:
            await self._died(worker)

    def _answered(self, worker: _Worker, reply: tuple[Any, ...]) -> None:
        job, worker.job = worker.job, None
        if worker.watch is not None:
            worker.watch.cancel()
            worker.watch = None
        if job is not None and not job.future.done():
            job.future.set_result(reply)
        self._quick_deaths = 0

    async def _died(self, worker: _Worker) -> None:
        if worker.watch is not None:
            worker.watch.cancel()
            worker.watch = None
        worker.ready = False
        self.stats.workers = sum(w.ready for w in self._workers)
        if worker.job is not None:
            self._lost(worker, worker.job)
        while worker.control:
            self._lost(worker, worker.control.popleft())
        proc = worker.proc
        if proc is not None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
            if proc.stdin is not None:
                proc.stdin.close()
        if self._closed:
            return
        log.warning(
            "bot worker %d ended (exit %s): starting another", worker.pid, proc and proc.returncode
        )
        self.stats.restarts += 1
        quick = time.monotonic() - worker.born < 5.0
        self._quick_deaths = self._quick_deaths + 1 if quick else 0
        delay = (
            min(MAX_RESTART_DELAY, RESTART_DELAY * 2 ** (self._quick_deaths - 1)) if quick else 0.0
        )
        self._spawn(worker, delay)

    async def close(self) -> None:
        """Stop every worker; requests still waiting are answered by the fallback."""
        self._closed = True
        while (job := self._queue.pop()) is not None:
            if not job.future.done():
                job.future.set_exception(PoolClosed())
                job.future.exception()
        self.stats.queued = 0
        for task in list(self._starting):
            task.cancel()
        for task in list(self._starting):
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for worker in self._workers:
            if worker.proc is not None and worker.proc.stdin is not None:
                worker.proc.stdin.close()  # it exits at the end of its input
        for worker in self._workers:
            if worker.proc is None:
                continue
            try:
                await asyncio.wait_for(worker.proc.wait(), 2.0)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    worker.proc.kill()
            if worker.reader is not None:
                with contextlib.suppress(asyncio.CancelledError):
                    await worker.reader
        self._workers = []


def _untimed(job: _Job) -> bool:
    return not job.timed
