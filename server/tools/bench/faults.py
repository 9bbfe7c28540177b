"""``cardroom bench faults``: faults under load over real processes, each run checked whole by
the history checker (:mod:`server.tools.bench.history`), with the figures it prints.

    cardroom bench faults failover --durability replicated --rooms 20 --seconds 20
    cardroom bench faults failover --durability local
    cardroom bench faults redis-pause --pause 2          # and --pause 20
    cardroom bench faults owner-pause --rooms 100

- ``failover``: ``cardroom serve --redis redis+sentinel://...`` on a primary, two replicas and
  a Sentinel; the primary is SIGKILLed mid-game; Sentinel promotes a replica, the process
  follows it by itself. Figures: acknowledged actions lost, seconds from the kill until play
  resumes (the first action acknowledged after it).
  ``--lag`` leaves the replicas behind first (stopped, their links cut) for that many seconds:
  what the primary took meanwhile dies with it, acknowledged under ``local``, refused under
  ``replicated``.
- ``redis-pause``: the one Redis SIGSTOPped for ``--pause`` seconds, then SIGCONTed. Players
  are answered ``store_unavailable``, never left hanging: the longest wait for an answer is
  printed; ``/healthz`` must say degraded while Redis is stopped; the seconds from the SIGCONT
  until play resumes.
- ``disk-full``: the append-only file's disk (a small tmpfs: needs root) filled under load for
  a third of the run, then freed. Players are refused (Redis answers ``MISCONF``: nothing it
  cannot write is acknowledged); the figures: acknowledged actions lost, seconds until play
  resumes once there is room again.
- ``owner-pause``: two processes A and B on one Redis, every room opened on A; A SIGSTOPped
  past its lease; its players' requests time out and they move to B, which takes the rooms over;
  then A is SIGCONTed. Figures: states shown by A that the store does not hold (frames written
  by a fenced owner: must be 0), rooms moved to B, seconds until every room plays again.

Every table is one scripted human (:func:`~server.tools.bench.players.choose`) against a
basic bot in a two-seat Shithead room, acting every ``--think`` seconds, on loopback; each run
is bounded by ``--seconds`` and stops its processes itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from clients import CardroomClient, CardroomError
from clients.client import ClientError, ReplyTimeout
from protocol.messages import State
from server.store.lease import LEASE_TTL
from server.store.redis_store import RedisStore
from server.tools.bench.history import ClientHistory, History, Stored, Verdict, check
from server.tools.bench.players import choose
from server.tools.bench.procs import free_port, serve_process

#: ``cardroom serve`` flags for a run: one address opens every table (and resumes them all on
#: another process at once), and bots move at once.
SERVE_FLAGS = (
    "--bot-delay",
    "0",
    "--rate",
    "1000",
    "--burst",
    "1000",
    "--max-per-address",
    "10000",
    "--rooms-per-address",
    "10000",
    "--rooms-burst",
    "10000",
    "--rooms-per-minute",
    "100000",
    "--max-handshakes-per-address",
    "10000",
    "--miss-rate",  # a room being taken over is not found for a moment: not a guess
    "1000",
    "--miss-burst",
    "1000",
)
#: Seconds a request waits for its answer before the player calls the process unreachable
#: (a server answers ``store_unavailable`` within about twice Redis's 2 s timeout).
ANSWER_TIMEOUT = 6.0


class Unseated(Exception):
    """The player's connection holds no seat (a resume that failed): take it back."""


def failure_code(exc: BaseException) -> str:
    """What a player's failure is called in the figures: the error code, or how it failed."""
    if isinstance(exc, CardroomError):
        return exc.code
    if isinstance(exc, ReplyTimeout):
        return "timeout"
    if isinstance(exc, ClientError | OSError):
        return "lost"
    return "unseated" if isinstance(exc, Unseated) else type(exc).__name__


def _recorded(msg: Any) -> State | None:
    return msg if isinstance(msg, State) else None


class Table:
    """One player's room, played until ``stop``: every request, answer and state recorded."""

    def __init__(self, name: str, urls: Sequence[str], history: History, think: float) -> None:
        self.name = name
        self.urls = list(urls)
        self.history = history
        self.think = think
        self.at = 0  # the index in ``urls`` of the process it talks to
        self.client: CardroomClient | None = None
        self.record: ClientHistory | None = None
        self.room: str | None = None
        self.token: str | None = None
        self.acks: list[tuple[float, str]] = []  # (monotonic time, url) of each ack
        self.latencies: list[float] = []  # seconds from each act sent to its ack
        self.longest_wait = 0.0  # seconds, the longest any request waited for its answer
        self.codes: dict[str, int] = {}  # refusals by code
        self._recorders: list[asyncio.Task[None]] = []
        self._clients: list[CardroomClient] = []
        self._refs = itertools.count(1)

    async def _open(self) -> CardroomClient:
        url = self.urls[self.at]
        client = await CardroomClient.connect(url, timeout=ANSWER_TIMEOUT, history=100_000)
        record = self.history.client(self.name, url)
        self._recorders.append(asyncio.create_task(self._keep(client, record)))
        self._clients.append(client)
        self.client, self.record = client, record
        return client

    @staticmethod
    async def _keep(client: CardroomClient, record: ClientHistory) -> None:
        """Record every state this connection is shown, for as long as it is open."""
        async for msg in client.messages(start=0):
            state = _recorded(msg)
            if state is None:
                continue
            events = cast(list[dict[str, Any]], state.events)
            mover = events[0].get("seat") if events else None
            view = cast(dict[str, Any], state.view)
            record.seen(state.room, state.seat, state.version, view, mover=mover)

    async def start(self) -> None:
        client = await self._open()
        await client.create("shithead", seats=2, name=self.name)
        self.room, self.token = client.room, client.token
        await client.host("start")  # a basic bot in the other seat

    async def _move(self) -> None:
        """Talk to the next process (the old connection stays open: what it shows is still
        recorded) and take the seat back there."""
        self.at = (self.at + 1) % len(self.urls)
        assert self.room is not None and self.token is not None
        client = await self._open()
        await client.resume(self.room, self.token, timeout=ANSWER_TIMEOUT)

    async def play(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self._turn()
            except (ClientError, OSError, Unseated) as exc:
                code = failure_code(exc)
                self.codes[code] = self.codes.get(code, 0) + 1
                if stop.is_set():
                    return
                await asyncio.sleep(0.2)
                await self._recover(code)
            await asyncio.sleep(self.think)

    async def _recover(self, code: str) -> None:
        """After a failure: the next process if this one does not answer, the seat taken back
        if the room moved or was reloaded, nothing if the store was away or the state old."""
        try:
            if code in ("timeout", "lost"):
                await self._move()
            elif code not in ("store_unavailable", "stale_version"):
                await self._resume()
        except (ClientError, OSError) as exc:
            again = f"recovery: {failure_code(exc)}"
            self.codes[again] = self.codes.get(again, 0) + 1
            if failure_code(exc) in ("timeout", "lost"):
                with contextlib.suppress(ClientError, OSError):
                    await self._move()

    async def _resume(self) -> None:
        assert self.client is not None and self.room is not None and self.token is not None
        await self.client.resume(self.room, self.token, timeout=ANSWER_TIMEOUT)

    async def _turn(self) -> None:
        client, record = self.client, self.record
        assert client is not None and record is not None
        if client.seat is None or client.closed:
            raise Unseated(self.name)
        state = await client.wait_turn(timeout=ANSWER_TIMEOUT)
        if state.view["phase"] == "over":
            await client.host("next_game")
            return
        action = choose(state.view)
        ref = f"r{next(self._refs)}"
        assert client.seat is not None
        record.sent(ref, state.room, state.version, action, seat=client.seat)
        sent = time.monotonic()
        try:
            ack = await client.act(action, version=state.version)
        except CardroomError as exc:
            record.refused(ref, exc.code)
            raise
        except ReplyTimeout:
            record.refused(ref, "timeout")
            raise
        except ClientError:
            record.refused(ref, "lost")
            raise
        finally:
            self.longest_wait = max(self.longest_wait, time.monotonic() - sent)
        assert ack.version is not None
        record.acked(ref, ack.version)
        now = time.monotonic()
        self.acks.append((now, self.urls[self.at]))
        self.latencies.append(now - sent)

    async def close(self) -> None:
        await asyncio.gather(*(c.close() for c in self._clients), return_exceptions=True)
        for task in self._recorders:
            task.cancel()
        await asyncio.gather(*self._recorders, return_exceptions=True)


@dataclass
class Run:
    """The tables of one run, and when the fault happened."""

    tables: list[Table]
    history: History
    fault_at: float = 0.0  # monotonic: the fault began (the kill, the SIGSTOP)
    healed_at: float = 0.0  # monotonic: the fault ended (the SIGCONT; for a kill: the kill)
    ended_at: float = 0.0  # monotonic: the players stopped
    health: list[tuple[float, int]] = field(default_factory=list)  # (time, /healthz status)

    def resumed_after(self) -> float | None:
        """Seconds from the end of the fault to the first action acknowledged after it."""
        after = [t for table in self.tables for t, _ in table.acks if t > self.healed_at]
        return min(after) - self.healed_at if after else None

    def all_resumed_after(self) -> float | None:
        """Seconds from the end of the fault until every table had an action acknowledged."""
        firsts = []
        for table in self.tables:
            after = [t for t, _ in table.acks if t > self.healed_at]
            if not after:
                return None
            firsts.append(min(after))
        return max(firsts) - self.healed_at if firsts else None

    def stall(self) -> float:
        """The longest time from the fault's start with no action acknowledged anywhere."""
        times = sorted(t for table in self.tables for t, _ in table.acks if t > self.fault_at)
        marks = [self.fault_at, *times, self.ended_at or time.monotonic()]
        return max((b - a for a, b in itertools.pairwise(marks)), default=0.0)

    @property
    def longest_wait(self) -> float:
        return max((t.longest_wait for t in self.tables), default=0.0)

    def stuck(self) -> list[str]:
        """The tables with no action acknowledged since the fault ended, and what they show."""
        out = []
        for table in self.tables:
            if not any(t > self.healed_at for t, _ in table.acks):
                state = table.client.state if table.client is not None else None
                shown = None
                if state is not None:
                    shown = (state.version, state.view["phase"], state.view["to_act"])
                out.append(f"{table.name} {table.room}: {shown}, {table.codes}")
        return out

    def refusals(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for table in self.tables:
            for code, n in table.codes.items():
                out[code] = out.get(code, 0) + n
        return out


@asynccontextmanager
async def tables(urls: Sequence[str], rooms: int, think: float) -> AsyncIterator[Run]:
    """``rooms`` tables opened on ``urls[0]`` (a few at a time), closed at the end."""
    history = History(time.monotonic)
    run = Run([Table(f"p{i}", urls, history, think) for i in range(rooms)], history)
    try:
        for at in range(0, rooms, 20):
            await asyncio.gather(*(t.start() for t in run.tables[at : at + 20]))
        yield run
    finally:
        await asyncio.gather(*(t.close() for t in run.tables), return_exceptions=True)


@asynccontextmanager
async def playing(run: Run) -> AsyncIterator[asyncio.Event]:
    """Every table playing until the block ends."""
    stop = asyncio.Event()
    tasks = [asyncio.create_task(t.play(stop)) for t in run.tables]
    try:
        yield stop
    finally:
        run.ended_at = time.monotonic()
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)


def healthz(port: int) -> int:
    """The status ``/healthz`` answers (0: no answer in time)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
            return int(r.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except OSError:
        return 0


async def watch_health(run: Run, port: int, stop: asyncio.Event) -> None:
    while not stop.is_set():
        run.health.append((time.monotonic(), await asyncio.to_thread(healthz, port)))
        await asyncio.sleep(0.25)


async def stored(url: str, rooms: set[str]) -> dict[str, Stored]:
    """What the store holds of ``rooms`` now."""
    store = RedisStore(url)
    try:
        out = {}
        for room in rooms:
            got = await store.load(room)
            if got is not None:
                out[room] = Stored(int(got.record.get("version", 0)), got.actions)
        return out
    finally:
        await store.close()


@dataclass
class Figures:
    """One run's figures."""

    scenario: str
    verdict: Verdict
    rooms: int
    stall: float  # seconds, the longest time from the fault's start with no action acknowledged
    resumed: float | None  # seconds from the fault's end to the first action acknowledged
    all_resumed: float | None  # ... until every room had one
    longest_wait: float  # seconds, the longest a request waited for its answer
    refusals: dict[str, int]
    extra: dict[str, Any] = field(default_factory=dict)

    def lines(self) -> list[str]:
        def secs(x: float | None) -> str:
            return "never" if x is None else f"{x:.2f} s"

        out = [
            f"{self.scenario}, {self.rooms} rooms",
            f"  checker: {self.verdict.summary()}",
            f"  acknowledged actions lost: {self.verdict.lost}",
            f"  no action acknowledged anywhere for {self.stall:.2f} s at most; play resumed "
            f"{secs(self.resumed)} after the fault ended, in every room {secs(self.all_resumed)}",
            f"  longest wait for an answer: {self.longest_wait:.2f} s",
            f"  refusals: {dict(sorted(self.refusals.items()))}",
        ]
        out += [f"  {k}: {v}" for k, v in self.extra.items()]
        out += [f"  finding: {f}" for f in self.verdict.findings[:5]]
        return out


def _figures(scenario: str, run: Run, verdict: Verdict, **extra: Any) -> Figures:
    return Figures(
        scenario,
        verdict,
        len(run.tables),
        run.stall(),
        run.resumed_after(),
        run.all_resumed_after(),
        run.longest_wait,
        run.refusals(),
        {**extra, **({"stuck": run.stuck()} if run.stuck() else {})},
    )


async def failover(
    durability: str,
    rooms: int,
    seconds: float,
    think: float,
    directory: Path,
    lag: float = 0.0,
) -> Figures:
    """The primary SIGKILLed under load; Sentinel promotes a replica. With ``lag``, the
    replicas are left behind for that many seconds first (stopped, their links cut), so what
    the primary takes meanwhile dies with it: ``local`` acknowledged it, ``replicated`` not."""
    from server.tools.bench.redis_replicated import ReplicatedRedis

    with ReplicatedRedis(directory, sentinels=1, replicas=2) as redis:
        port = free_port()
        flags = ("--redis", redis.url, "--durability", durability, *SERVE_FLAGS)
        async with serve_process(port, *flags):
            url = f"ws://127.0.0.1:{port}/"
            async with tables([url], rooms, think) as run, playing(run):
                await asyncio.sleep(seconds / 3)
                primary = redis.primary.process
                assert primary is not None
                if lag:
                    redis.cut_replicas()
                    await asyncio.sleep(lag)
                primary.send_signal(signal.SIGKILL)
                run.fault_at = run.healed_at = time.monotonic()
                redis.resume_replicas()
                promoted = await asyncio.to_thread(redis.wait_failover)
                await asyncio.sleep(seconds * 2 / 3)
            held = await stored(redis.url, run.history.rooms())
    verdict = check(run.history, held)
    behind = f", the replicas {lag:g} s behind" if lag else ""
    return _figures(
        f"primary SIGKILLed{behind}, --durability {durability}",
        run,
        verdict,
        sentinel_promoted_after=f"{promoted:.2f} s",
    )


async def redis_pause(
    rooms: int, pause: float, seconds: float, think: float, directory: Path
) -> Figures:
    """The one Redis SIGSTOPped for ``pause`` seconds under load."""
    from server.tools.bench.redis_server import RedisServer

    with RedisServer(directory, fsync="everysec") as redis:
        port = free_port()
        async with serve_process(port, "--redis", redis.url, *SERVE_FLAGS):
            url = f"ws://127.0.0.1:{port}/"
            async with tables([url], rooms, think) as run, playing(run) as stop:
                watcher = asyncio.create_task(watch_health(run, port, stop))
                await asyncio.sleep(seconds / 3)
                assert redis.process is not None
                redis.process.send_signal(signal.SIGSTOP)
                run.fault_at = time.monotonic()
                try:
                    await asyncio.sleep(pause)
                finally:
                    redis.process.send_signal(signal.SIGCONT)
                run.healed_at = time.monotonic()
                await asyncio.sleep(seconds * 2 / 3)
                stop.set()
                await watcher
            held = await stored(redis.url, run.history.rooms())
    during = [s for t, s in run.health if run.fault_at < t < run.healed_at]
    after = [s for t, s in run.health if t > run.healed_at + 3]
    verdict = check(run.history, held)
    return _figures(
        f"Redis SIGSTOPped {pause:g} s",
        run,
        verdict,
        healthz_while_stopped=sorted(set(during)),
        healthz_after=sorted(set(after)),
    )


async def owner_pause(rooms: int, seconds: float, think: float, directory: Path) -> Figures:
    """A process owning every room SIGSTOPped past its lease; the rooms move to another."""
    from server.tools.bench.redis_server import RedisServer

    with RedisServer(directory, fsync="everysec") as redis:
        port_a, port_b = free_port(), free_port()
        flags = ("--redis", redis.url, "--no-place-rooms", *SERVE_FLAGS)
        async with serve_process(port_a, *flags) as a, serve_process(port_b, *flags):
            url_a, url_b = f"ws://127.0.0.1:{port_a}/", f"ws://127.0.0.1:{port_b}/"
            async with tables([url_a, url_b], rooms, think) as run, playing(run):
                await asyncio.sleep(seconds / 3)
                a.send_signal(signal.SIGSTOP)
                run.fault_at = time.monotonic()
                try:
                    await asyncio.sleep(LEASE_TTL + ANSWER_TIMEOUT + 2)
                finally:
                    a.send_signal(signal.SIGCONT)
                run.healed_at = time.monotonic()
                await asyncio.sleep(seconds * 2 / 3)
            held = await stored(redis.url, run.history.rooms())
    verdict = check(run.history, held)
    fenced = [s for s in verdict.bad_states if s.origin == url_a and s.at > run.fault_at]
    late_from_a = sum(
        1
        for c in run.history.clients
        if c.origin == url_a
        for s in c.states
        if s.at > run.healed_at
    )
    moved = sum(1 for t in run.tables if any(u == url_b for _, u in t.acks))
    on_b = [[t for t, u in table.acks if u == url_b] for table in run.tables]
    every = max(min(ts) for ts in on_b) - run.fault_at if all(on_b) else None
    return _figures(
        "owner SIGSTOPped past its lease, then SIGCONTed",
        run,
        verdict,
        frames_written_by_a_fenced_owner=len(fenced),
        states_from_the_old_owner_after_sigcont_all_checked=late_from_a,
        rooms_moved_to_the_new_owner=moved,
        every_room_playing_on_the_new_owner_after_the_sigstop=(
            "never" if every is None else f"{every:.2f} s"
        ),
    )


#: Bytes the append-only file's disk keeps free once it is filled: a few actions' worth.
LEFT_FREE = 16 * 1024


@contextlib.contextmanager
def small_disk(where: Path, size: str = "8m") -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``where`` for the run (needs root: ``mount``)."""
    where.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(disk: Path, leave: int = LEFT_FREE) -> Path:
    """Fill ``disk`` but ``leave`` bytes with one file; its path (remove it to free them)."""
    filler = disk / "filler"
    stat = os.statvfs(disk)
    free = stat.f_bavail * stat.f_frsize
    with filler.open("wb") as f:
        f.truncate(0)
        chunk = b"\0" * (1 << 16)
        left = max(0, free - leave)
        while left > 0:
            written = f.write(chunk[: min(len(chunk), left)])
            left -= written
    return filler


async def disk_full(rooms: int, seconds: float, think: float, directory: Path) -> Figures:
    """The disk of Redis's append-only file full for a while under load, then freed."""
    from server.tools.bench.redis_server import RedisServer

    if os.geteuid() != 0:
        raise SystemExit("disk-full mounts a small tmpfs: it needs root")
    with small_disk(directory / "disk") as disk, RedisServer(disk, fsync="everysec") as redis:
        port = free_port()
        async with serve_process(port, "--redis", redis.url, *SERVE_FLAGS):
            url = f"ws://127.0.0.1:{port}/"
            async with tables([url], rooms, think) as run, playing(run) as stop:
                watcher = asyncio.create_task(watch_health(run, port, stop))
                await asyncio.sleep(seconds / 3)
                filler = await asyncio.to_thread(fill, disk)
                run.fault_at = time.monotonic()
                await asyncio.sleep(seconds / 3)
                filler.unlink()
                run.healed_at = time.monotonic()
                await asyncio.sleep(seconds / 3)
                stop.set()
                await watcher
            held = await stored(redis.url, run.history.rooms())
    during = [s for t, s in run.health if run.fault_at < t < run.healed_at]
    verdict = check(run.history, held)
    return _figures(
        "the append-only file's disk full",
        run,
        verdict,
        healthz_while_full=sorted(set(during)),
    )


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cardroom bench faults", description=__doc__)
    p.add_argument("scenario", choices=("failover", "redis-pause", "owner-pause", "disk-full"))
    p.add_argument("--rooms", type=int, default=20)
    p.add_argument("--seconds", type=float, default=15.0, help="play besides the fault")
    p.add_argument("--think", type=float, default=0.2, help="seconds between a player's acts")
    p.add_argument("--durability", choices=("local", "replicated"), default="replicated")
    p.add_argument("--pause", type=float, default=2.0, help="redis-pause: seconds stopped")
    p.add_argument(
        "--lag",
        type=float,
        default=0.0,
        help="failover: seconds the replicas are left behind before the primary dies",
    )
    return p


async def run_scenario(args: argparse.Namespace, directory: Path) -> Figures:
    match args.scenario:
        case "failover":
            return await failover(
                args.durability, args.rooms, args.seconds, args.think, directory, args.lag
            )
        case "redis-pause":
            return await redis_pause(args.rooms, args.pause, args.seconds, args.think, directory)
        case "disk-full":
            return await disk_full(args.rooms, args.seconds, args.think, directory)
        case _:
            return await owner_pause(args.rooms, args.seconds, args.think, directory)


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        figures = asyncio.run(run_scenario(args, Path(tmp)))
    print("\n".join(figures.lines()))
    return 0 if figures.verdict.ok or args.durability == "local" else 1
