"""The load generator spread over several processes, so that it is never what is measured.

Each worker is its own process with its own event loop (uvloop when installed) and plays its
share of the rooms (or holds its share of idle connections). The lead starts them, waits
until every one is ready, then opens and closes one measured window for all of them over a
pipe each, and merges what they counted exactly: counts summed, latency histograms merged
bucket by bucket (:class:`~server.tools.bench.tally.Counts`). Each worker also reports its
own CPU and event-loop lag in the window, so that the output can say when the generator,
not the server, was the bottleneck.

    lead                          worker k
    ----                          --------
                    <- "seated"   every room connected and seated (and its seconds to be)
    "go" ->                       rooms start their first match
                    <- "ready"    rooms started
    (warm-up)   "open" ->         window opens: counts from zero
    (window)    "close" ->        window closes, requests in flight answered
                    <- Report     counts, CPU, loop lag, connections
"""

from __future__ import annotations

import asyncio
import gc
import multiprocessing
import os
import random
import resource
import time
import traceback
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from server.tools.bench.drive import SETUP_PER_ROOM, Dial, RoomSpec, Think, hold_idle, run_rooms
from server.tools.bench.histogram import Histogram
from server.tools.bench.sources import Rotation, parse_sources
from server.tools.bench.tally import Counts, Tally
from server.tools.bench.verdict import BUSY_CPU, LAGGING_P99, Verdict, cores, summary

T = TypeVar("T")

#: Seconds the workers may take to connect and start their rooms (at least).
READY_TIMEOUT = 300.0


def run(main: Coroutine[Any, Any, T]) -> T:
    """Run a load generator's event loop: uvloop when installed, as for the server, so that
    the clients cost as little as they can and the server is what is measured."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    return uvloop.run(main)


def raise_fd_limit(wanted: int) -> int:
    """Raise this process's open-file limit towards ``wanted`` (the hard limit too if this
    process may: root); return the soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= wanted:
        return soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, max(hard, wanted)))
    except (ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


@dataclass(frozen=True)
class Job:
    """One worker's share of a run."""

    index: int
    url: str
    spec: RoomSpec
    rooms: int = 0
    connections: int = 0  # idle connections instead of rooms
    rounds: int = 1
    compression: str | None = None
    pace: float | None = None  # actions/s of this worker's rooms in all
    think: tuple[float, float] | None = None
    sources: str | None = None
    seed: int = 0
    from_start: bool = False
    cpu: int | None = None  # the CPU it is pinned to


@dataclass
class Report:
    """What one worker measured in the window."""

    index: int
    counts: Counts = field(default_factory=Counts)
    seconds: float = 0.0
    connections: int = 0
    cpu: float = 0.0  # CPU seconds in the window
    lag: Histogram = field(default_factory=Histogram)
    samples: list[str] = field(default_factory=list)
    error: str | None = None
    failed: int = 0  # rooms that could not be opened
    setup: float = 0.0  # seconds until every room of this worker was seated
    cpus: tuple[int, ...] = ()  # the CPUs it may run on (its affinity; empty: not known)
    frozen: int = 0  # objects out of the collector's sight (gc.freeze) in the window
    collections: int = 0  # the collector's runs in the window, all generations

    @property
    def cpu_share(self) -> float:
        return self.cpu / self.seconds if self.seconds else 0.0

    @property
    def lag_p99(self) -> float:
        return self.lag.percentile(0.99)

    @property
    def busy(self) -> bool:
        """Whether this worker on its own may have been the bottleneck."""
        return self.cpu_share > BUSY_CPU or self.lag_p99 > LAGGING_P99


class PipeClock:
    """The window as the lead opens and closes it (a worker's side of the pipe)."""

    def __init__(self, pipe: Connection) -> None:
        self.pipe = pipe
        self.setup = 0.0  # this worker's seconds to seat its rooms
        self.collections = 0  # the collector's runs in the window

    async def _expect(self, word: str) -> None:
        got = await asyncio.to_thread(self.pipe.recv)
        if got != word:
            raise RuntimeError(f"worker expected {word!r} from the lead, got {got!r}")

    def took(self, seconds: float) -> None:
        self.setup = seconds

    async def seated(self) -> None:
        self.pipe.send(("seated", self.setup))
        await self._expect("go")

    async def opened(self) -> None:
        self.pipe.send("ready")
        await self._expect("open")
        self.collections = -_collections()

    async def closed(self) -> None:
        await self._expect("close")
        self.collections += _collections()


def _collections() -> int:
    return sum(g["collections"] for g in gc.get_stats())


async def _play(job: Job, pipe: Connection) -> Report:
    tally = Tally()
    rng = random.Random(job.seed * 1_000_003 + job.index)
    think = Think(*job.think, rng) if job.think else None
    rotation = Rotation(parse_sources(job.sources) if job.sources else [], job.index)
    clock = PipeClock(pipe)

    def seated(seconds: float) -> None:
        clock.took(seconds)
        freeze_seated()

    window = await run_rooms(
        job.url,
        job.spec,
        job.rooms,
        tally,
        pace=job.pace,
        clock=clock,
        think=think,
        dial=Dial(job.compression, rotation),
        from_start=job.from_start,
        on_seated=seated,
    )
    return Report(
        job.index,
        tally.counts(),
        window.seconds,
        window.connections,
        window.load_cpu,
        window.lag,
        tally.samples,
        failed=window.failed,
        setup=window.setup,
        cpus=affinity(),
        frozen=gc.get_freeze_count(),
        collections=clock.collections,
    )


#: Net new container objects between two young collections of a generator that plays.
YOUNG_THRESHOLD = 100_000


def freeze_seated() -> None:
    """Everything the seated rooms hold (connections, players, rooms) lives to the end of the
    run: out of the collector's sight (``gc.freeze``), the older collections no longer visit
    it. And young collections become rare: each visited the 13,000 lists and dicts of the
    players' current views (parsed frames, replaced at the next state, never a cycle), 3.4 ms a
    time, three a second. Together they were about a third of a worker's CPU at 500 rooms."""
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])


async def _hold(job: Job, pipe: Connection) -> None:
    """Rounds of idle connections: open them, say how many, close them when told."""
    rotation = Rotation(parse_sources(job.sources) if job.sources else [], job.index)
    for _ in range(job.rounds):
        start = time.perf_counter()
        held, failed = await hold_idle(job.url, job.connections, job.compression, rotation)
        pipe.send((len(held), failed, time.perf_counter() - start))
        got = await asyncio.to_thread(pipe.recv)
        await asyncio.gather(*(c.close() for c in held), return_exceptions=True)
        pipe.send("closed")
        if got != "close":
            return


async def _orphaned(lead: int) -> None:
    """Return once the lead process is gone (killed before it could stop this worker)."""
    while True:
        await asyncio.sleep(1.0)
        if os.getppid() != lead:
            return


async def _until_orphaned(work: Coroutine[Any, Any, T], lead: int) -> T:
    task = asyncio.ensure_future(work)
    watch = asyncio.ensure_future(_orphaned(lead))
    await asyncio.wait((task, watch), return_when=asyncio.FIRST_COMPLETED)
    if not task.done():
        task.cancel()
        raise SystemExit("the lead process is gone")
    watch.cancel()
    return task.result()


def worker_main(job: Job, pipe: Connection) -> None:
    """A worker process: pinned, its descriptors raised, its share played, its report sent;
    it ends by itself if the lead dies."""
    lead = os.getppid()
    if job.cpu is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {job.cpu})
    raise_fd_limit(job.connections + job.rooms * job.spec.humans + 1000)
    try:
        if job.connections:
            run(_until_orphaned(_hold(job, pipe), lead))
        else:
            pipe.send(run(_until_orphaned(_play(job, pipe), lead)))
    except SystemExit:
        return
    except BaseException:  # the lead reports it; a worker never dies silently
        pipe.send(Report(job.index, error=traceback.format_exc()))
        raise


def affinity() -> tuple[int, ...]:
    """The CPUs this process may run on (empty where that cannot be read)."""
    if not hasattr(os, "sched_getaffinity"):
        return ()
    return tuple(sorted(os.sched_getaffinity(0)))


def shares(total: int, workers: int) -> list[int]:
    """``total`` split over ``workers`` as evenly as can be, larger shares first.

    >>> shares(10, 3), shares(2, 4)
    ([4, 3, 3], [1, 1, 0, 0])
    """
    return [total // workers + (k < total % workers) for k in range(workers)]


class Workers:
    """The lead's side: start the workers, open and close their window, gather reports."""

    def __init__(self, jobs: list[Job]) -> None:
        self.setup = max(READY_TIMEOUT, sum(j.rooms for j in jobs) * SETUP_PER_ROOM + 60)
        context = multiprocessing.get_context("spawn")  # a fresh interpreter, no forked loop
        self.pipes: list[Connection] = []
        self.procs: list[multiprocessing.process.BaseProcess] = []
        for job in jobs:
            lead, theirs = context.Pipe()
            proc = context.Process(target=worker_main, args=(job, theirs), daemon=True)
            proc.start()
            theirs.close()
            self.pipes.append(lead)
            self.procs.append(proc)

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.procs if p.pid is not None]

    def receive(self, timeout: float) -> list[Any]:
        """One message from every worker (a worker's error report is raised)."""
        out = []
        for pipe, proc in zip(self.pipes, self.procs, strict=True):
            if not pipe.poll(timeout):
                raise TimeoutError(f"load worker {proc.pid} sent nothing in {timeout:g} s")
            got = pipe.recv()
            if isinstance(got, Report) and got.error:
                raise RuntimeError(f"load worker {proc.pid} failed:\n{got.error}")
            out.append(got)
        return out

    def send(self, word: str) -> None:
        for pipe in self.pipes:
            pipe.send(word)

    def window(
        self,
        warmup: float,
        seconds: float,
        on_window: Callable[[bool], None] | None = None,
        on_seated: Callable[[float], None] | None = None,
    ) -> list[Report]:
        """Wait until all have seated their rooms (``on_seated`` gets the longest seconds one
        took), start them together, warm up, measure ``seconds``; their reports."""
        seated = self.receive(self.setup)
        assert all(isinstance(s, tuple) and s[0] == "seated" for s in seated), seated
        if on_seated:
            on_seated(max(s[1] for s in seated))
        self.send("go")
        ready = self.receive(self.setup)
        assert all(r == "ready" for r in ready), ready
        time.sleep(warmup)
        self.send("open")
        if on_window:
            on_window(True)
        time.sleep(seconds)
        self.send("close")
        if on_window:
            on_window(False)
        reports: list[Report] = self.receive(READY_TIMEOUT)
        return reports

    def stop(self) -> None:
        for pipe in self.pipes:
            pipe.close()
        for proc in self.procs:
            proc.join(10)
            if proc.is_alive():
                proc.kill()
                proc.join()


def merged(reports: list[Report]) -> Counts:
    total = Counts()
    for r in reports:
        total = total.merged(r.counts)
    return total


def describe(reports: list[Report], busy: Mapping[int, float] | None = None) -> list[str]:
    """One line per worker (CPU, loop lag), one per CPU they share (their CPU summed), and the
    verdict on the generator (:mod:`server.tools.bench.verdict`; ``busy``: each CPU's busy
    share in the window, every process's, if read)."""
    out = []
    for r in reports:
        lag = r.lag
        out.append(
            f"  worker {r.index}: {r.connections:,} connections, CPU {r.cpu_share:.0%}, "
            f"loop lag p50 {1000 * lag.percentile(0.5):.2f} ms p99 "
            f"{1000 * lag.percentile(0.99):.2f} ms max {1000 * lag.percentile(1.0):.1f} ms, "
            f"{r.collections} collections" + ("  <- BUSY" if r.busy else "")
        )
    found = cores(reports, busy)
    out += ["  " + c.line() for c in found]
    out.append("  " + summary(found))
    return out


def was_bottleneck(reports: list[Report], busy: Mapping[int, float] | None = None) -> bool:
    """Whether the generator may have been the bottleneck, judged per CPU."""
    return any(c.verdict is not Verdict.FINE for c in cores(reports, busy))
