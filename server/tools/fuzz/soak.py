"""``cardroom soak --minutes M``: hours of churn in one process, then proof nothing piled up.

It starts a :class:`~server.net.server.CardroomServer` in this process (so it can look at the
rooms, the asyncio tasks and the heap) on 127.0.0.1, and keeps ``--rooms`` rooms alive at a
steady pace: hosts open rooms with bots and turn timers; simulated people (the Python client
library) join, play with a human's think time (sometimes slower than the timer, so stand-in
bots play for them), drop and resume with their token, leave, watch; hosts kick, add bots,
lock, start the next game; rooms are abandoned and idle-close, new ones open. At the end:

* no room stuck: a room ``playing`` whose version has not moved for longer than its turn
  timer allows (every soak room has one, so nobody may hold a game up);
* no leaked asyncio task and no connection or room left once everyone has gone and the idle
  timeout has passed;
* memory (RSS and tracemalloc) over the last minute within 10 % of its level over the minute
  after warm-up (means of samples every 5 s, both under the same steady load; a single
  instant swings with how many rooms happen to be mid-game), with the allocations that grew
  most printed.

Bots are ``random`` and ``basic`` (``strong`` thinks in a worker process and would measure
the machine, not the server). Exit status 1 when a check fails.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import random
import sys
import time
import tracemalloc
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from clients import CardroomClient, ClientError, ReplyTimeout
from protocol.messages import BotLevel, GameName
from server.net.server import CardroomServer, ServerConfig
from server.rooms.settings import RoomSettings, one_address

log = logging.getLogger(__name__)

TURN_TIMER = 3  # seconds per human turn in every soak room
# every churning person comes from 127.0.0.1: the room budgets of one address are lifted
SETTINGS = one_address(RoomSettings(grace=2.0, idle_timeout=4.0, bot_delay=0.05))
LEVELS: tuple[BotLevel, ...] = ("random", "basic")


def rss_bytes() -> int:
    """This process's resident set size (Linux ``/proc``; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


@dataclass
class Sample:
    at: float
    rss: int
    traced: int
    rooms: int
    connections: int
    tasks: int


@dataclass
class SoakReport:
    minutes: float = 0.0
    churn: Counter[str] = field(default_factory=Counter)
    samples: list[Sample] = field(default_factory=list)
    warm_at: float = 0.0
    end: Sample | None = None
    stuck: list[str] = field(default_factory=list)
    leaked_tasks: list[str] = field(default_factory=list)
    rooms_left: list[str] = field(default_factory=list)
    connections_left: int = 0
    members_left: int = 0
    top_growth: list[str] = field(default_factory=list)
    client_errors: Counter[str] = field(default_factory=Counter)
    unanswered: list[str] = field(default_factory=list)  # requests with no reply in 20 s
    actions: int = 0
    limit: float = 0.10

    def windows(self, span: float = 60.0) -> tuple[Sample, Sample] | None:
        """Mean samples over ``span`` s after warm-up and over the last ``span`` s of load."""
        if not self.samples or not self.warm_at:
            return None
        last = self.samples[-1].at
        first = [s for s in self.samples if self.warm_at <= s.at < self.warm_at + span]
        final = [s for s in self.samples if s.at > last - span and s.at >= self.warm_at]
        if not first or not final:
            return None
        return _mean(first), _mean(final)

    def memory_growth(self) -> tuple[float, float]:
        """(RSS, traced) growth from the window after warm-up to the last, as fractions."""
        pair = self.windows()
        if pair is None:
            return 0.0, 0.0
        warm, end = pair
        rss = (end.rss - warm.rss) / max(1, warm.rss)
        traced = (end.traced - warm.traced) / max(1, warm.traced)
        return rss, traced

    def failures(self) -> list[str]:
        out = []
        if self.unanswered:
            out.append(f"requests never answered: {len(self.unanswered)}")
        if self.stuck:
            out.append(f"stuck rooms: {len(self.stuck)}")
        if self.leaked_tasks:
            out.append(f"leaked tasks: {len(self.leaked_tasks)}")
        if self.rooms_left:
            out.append(f"rooms left open: {len(self.rooms_left)}")
        if self.connections_left or self.members_left:
            out.append(f"connections left: {self.connections_left} (+{self.members_left} members)")
        rss, traced = self.memory_growth()
        if rss > self.limit:
            out.append(f"RSS grew {rss:.1%} after warm-up")
        if traced > self.limit:
            out.append(f"traced memory grew {traced:.1%} after warm-up")
        return out


class Soak:
    def __init__(self, server: CardroomServer, rooms: int, seed: int, end: float) -> None:
        self.server = server
        self.url = server.url
        self.rooms = rooms
        self.rng = random.Random(seed)
        self.end = end
        self.report = SoakReport()
        self.agents: set[asyncio.Task[None]] = set()
        self.seen: dict[str, tuple[int, str, float]] = {}  # code -> (version, status, since)

    # ------------------------------------------------------------------ people

    def spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self.agents.add(task)
        task.add_done_callback(self.agents.discard)

    async def _connect(self) -> CardroomClient:
        client = await CardroomClient.connect(self.url, timeout=20, history=200)
        self.report.churn["connections opened"] += 1
        return client

    async def _close(self, client: CardroomClient) -> None:
        await client.close()
        self.report.churn["connections closed"] += 1

    async def _play(self, client: CardroomClient, rng: random.Random, until: float) -> str:
        """Play this seat's turns like a person until ``until`` or the game is over.

        Returns ``"over"``, ``"time"`` or ``"gone"`` (removed, or the room closed)."""
        while time.monotonic() < until:
            try:
                state = await client.wait_turn(timeout=TURN_TIMER * 4)
            except ClientError:
                if client.closed or client.room is None:
                    return "gone"
                # no turn for a while: the game is paused, between games, or others are slow
                self.report.client_errors[f"waited {TURN_TIMER * 4} s for a turn"] += 1
                continue
            if state.view["phase"] == "over":
                return "over"
            # a person's think time: now and then slower than the turn timer
            await asyncio.sleep(rng.choice([0.05, 0.2, 0.5, 1.0, TURN_TIMER + 0.5]))
            if client.room is None or client.closed:
                return "gone"
            legal = client.legal
            if not legal:
                continue
            try:
                await client.act(rng.choice(legal))
                self.report.churn["human actions"] += 1
            except ClientError as exc:
                if isinstance(exc, ReplyTimeout):
                    self.report.unanswered.append(str(exc))
                code = getattr(exc, "code", type(exc).__name__)
                self.report.client_errors[code] += 1  # stale, or a stand-in moved first
                if client.closed:
                    return "gone"
        return "time"

    async def person(self, code: str, rng: random.Random) -> None:
        """A guest: joins (or watches when refused), plays, drops and resumes, leaves."""
        client = await self._connect()
        try:
            try:
                await client.join(code, name=f"P{rng.randrange(10**6)}")
                self.report.churn["joins"] += 1
            except ClientError:
                await client.watch(code)
                self.report.churn["watches"] += 1
                await asyncio.sleep(min(rng.uniform(1, 20), max(0.0, self.end - time.monotonic())))
                await client.leave()
                self.report.churn["leaves"] += 1
                return
            for _ in range(rng.randrange(1, 6)):
                until = min(self.end, time.monotonic() + rng.uniform(2, 30))
                outcome = await self._play(client, rng, until)
                if outcome == "gone" or time.monotonic() > self.end:
                    return
                roll = rng.random()
                if roll < 0.35 and client.token and client.room:
                    token, room = client.token, client.room
                    await self._close(client)  # a dropped connection
                    self.report.churn["drops"] += 1
                    await asyncio.sleep(rng.choice([0.5, 1.0, SETTINGS.grace + 1.0, 6.0]))
                    client = await self._connect()
                    try:
                        await client.resume(room, token)
                        self.report.churn["resumes"] += 1
                    except ClientError:
                        self.report.churn["resumes refused"] += 1
                        return
                elif roll < 0.5:
                    await client.leave()
                    self.report.churn["leaves"] += 1
                    return
        except ClientError as exc:
            self._request_failed(exc)
        finally:
            await self._close(client)

    async def room(self, rng: random.Random) -> None:
        """One room's life: a host, bots, guests, a few games, then everyone goes."""
        games: list[GameName] = ["shithead", "shithead", "sheepshead"]
        game = rng.choice(games)
        seats = 5 if game == "sheepshead" else rng.randrange(2, 6)
        host = await self._connect()
        try:
            await host.create(game, seats=seats, name="Host", turn_timer=TURN_TIMER)
            self.report.churn["rooms opened"] += 1
            code = host.room or ""
            for seat in range(1, seats):
                if rng.random() < 0.3:
                    await host.host("add_bot", seat=seat, level=rng.choice(LEVELS))
                    self.report.churn["bots added"] += 1
                    if rng.random() < 0.3:
                        await host.host("remove_bot", seat=seat)
                        self.report.churn["bots removed"] += 1
            for _ in range(rng.randrange(0, seats)):
                self.spawn(self.person(code, random.Random(rng.random())))
            await asyncio.sleep(rng.uniform(0.5, 3))
            if rng.random() < 0.3:
                await host.host("lock")
            await host.host("start")
            for _ in range(rng.randrange(1, 4)):
                if rng.random() < 0.3:
                    self.spawn(self.person(code, random.Random(rng.random())))  # a spectator
                outcome = await self._play(host, rng, min(self.end, time.monotonic() + 120))
                if outcome != "over" or time.monotonic() > self.end:
                    break
                self.report.churn["games finished"] += 1
                await self._between(host, rng, seats)
                try:
                    await host.host("next_game")
                except ClientError:
                    break  # a finished match
            if rng.random() < 0.5:
                await host.leave()
                self.report.churn["leaves"] += 1
        except ClientError as exc:
            self._request_failed(exc)
        finally:
            await self._close(host)

    def _request_failed(self, exc: ClientError) -> None:
        """A request refused (kicked meanwhile, a full room), or never answered: a defect."""
        if isinstance(exc, ReplyTimeout):
            self.report.unanswered.append(str(exc))
        self.report.client_errors[f"{type(exc).__name__} {getattr(exc, 'code', '')}".strip()] += 1

    async def _between(self, host: CardroomClient, rng: random.Random, seats: int) -> None:
        info = host.room_info
        if info is None:
            return
        humans = [s.seat for s in info.seats if s.kind == "human" and s.seat != host.seat]
        if humans and rng.random() < 0.3:
            await host.host("kick", seat=rng.choice(humans))
            self.report.churn["kicks"] += 1
        if rng.random() < 0.3:
            await host.host("unlock")
            self.spawn(self.person(host.room or "", random.Random(rng.random())))
        if rng.random() < 0.3:
            bots = [s.seat for s in info.seats if s.kind == "bot"]
            if bots:
                await host.host("set_bot_level", seat=rng.choice(bots), level=rng.choice(LEVELS))

    # ------------------------------------------------------------------ watching

    def check_stuck(self, now: float) -> None:
        """A room playing whose version has not moved for longer than its timers allow."""
        allowed = TURN_TIMER + SETTINGS.bot_delay + 10.0
        for code, actor in list(self.server.manager.rooms.items()):
            core = actor.core
            key = (core.version, core.status())
            old = self.seen.get(code)
            if old is None or (old[0], old[1]) != key:
                self.seen[code] = (*key, now)
            elif key[1] == "playing" and now - old[2] > allowed:
                self.report.stuck.append(f"{code} at version {key[0]} for {now - old[2]:.0f} s")
                self.seen[code] = (*key, now)  # report once per stall
        for code in set(self.seen) - set(self.server.manager.rooms):
            del self.seen[code]

    def sample(self) -> Sample:
        traced = tracemalloc.get_traced_memory()[0] if tracemalloc.is_tracing() else 0
        return Sample(
            time.monotonic(),
            rss_bytes(),
            traced,
            len(self.server.manager.rooms),
            len(self.server.connected.sockets),
            len(asyncio.all_tasks()),
        )

    async def run(self, warmup: float) -> None:
        start = time.monotonic()
        warm_at = start + warmup
        warm_snapshot: tracemalloc.Snapshot | None = None
        last_sample = 0.0
        while time.monotonic() < self.end:
            now = time.monotonic()
            live = sum(1 for t in self.agents if t.get_name().startswith("room"))
            for _ in range(self.rooms - live):
                task = asyncio.create_task(self.room(random.Random(self.rng.random())))
                task.set_name(f"room-life-{self.report.churn['rooms opened']}")
                self.agents.add(task)
                task.add_done_callback(self.agents.discard)
            self.check_stuck(now)
            if warm_snapshot is None and now >= warm_at:
                gc.collect()
                self.report.warm_at = now
                warm_snapshot = tracemalloc.take_snapshot() if tracemalloc.is_tracing() else None
            if now - last_sample >= 5:
                self.report.samples.append(self.sample())
                last_sample = now
            await asyncio.sleep(0.5)
        gc.collect()
        self.report.end = self.sample()
        if warm_snapshot is not None:
            stats = tracemalloc.take_snapshot().compare_to(warm_snapshot, "lineno")
            self.report.top_growth = [str(s) for s in stats[:10]]
        self.report.minutes = (time.monotonic() - start) / 60


async def soak(minutes: float, rooms: int, seed: int, warmup: float | None = None) -> SoakReport:
    # every simulated person connects from 127.0.0.1: the per-address cap is raised
    config = ServerConfig(
        host="127.0.0.1",
        port=0,
        rooms=SETTINGS,
        max_per_address=100_000,
        max_handshakes_per_address=100_000,
    )
    async with CardroomServer(config) as server:
        baseline = {t.get_name() for t in asyncio.all_tasks()}
        end = time.monotonic() + minutes * 60
        runner = Soak(server, rooms, seed, end)
        await runner.run(warmup if warmup is not None else min(300.0, minutes * 60 / 5))
        # everyone goes: the agents finish (they stop once past the end), rooms idle-close
        async with asyncio.timeout(180):
            while runner.agents:
                await asyncio.wait(set(runner.agents), timeout=5)
        quiet_by = time.monotonic() + SETTINGS.grace + SETTINGS.idle_timeout + 10
        # the server exposes no event for "everything closed": poll
        while time.monotonic() < quiet_by and (server.manager.rooms or server.connected.sockets):  # noqa: ASYNC110
            await asyncio.sleep(0.5)
        await asyncio.sleep(1)
        report = runner.report
        report.actions = int(
            sum(
                sample.value
                for metric in server.metrics.registry.collect()
                for sample in metric.samples
                if sample.name == "cardroom_actions_total"
            )
        )
        report.rooms_left = [f"{c} ({a.core.status()})" for c, a in server.manager.rooms.items()]
        report.connections_left = len(server.connected.sockets)
        report.members_left = server.connected.tracked()
        current = asyncio.current_task()
        report.leaked_tasks = [
            f"{t.get_name()}: {t.get_coro()!r}"[:160]
            for t in asyncio.all_tasks()
            if t is not current and t.get_name() not in baseline
        ]
        return report


def _mean(samples: list[Sample]) -> Sample:
    n = len(samples)
    return Sample(
        samples[-1].at,
        sum(s.rss for s in samples) // n,
        sum(s.traced for s in samples) // n,
        sum(s.rooms for s in samples) // n,
        sum(s.connections for s in samples) // n,
        sum(s.tasks for s in samples) // n,
    )


def print_report(report: SoakReport, rooms: int) -> None:
    minutes = max(report.minutes, 1e-9)
    print(f"cardroom soak: {report.minutes:.1f} min, {rooms} rooms kept alive, in-process server")
    print("  connections per address: uncapped (default 50; every person is on 127.0.0.1)")
    print(
        f"  turn timer {TURN_TIMER} s, grace {SETTINGS.grace} s, idle timeout "
        f"{SETTINGS.idle_timeout} s, bot delay {SETTINGS.bot_delay} s (all lowered for churn)"
    )
    print(
        "churn per minute: "
        + ", ".join(f"{k} {v / minutes:,.1f}" for k, v in sorted(report.churn.items()))
    )
    print(
        f"game actions accepted (people and bots): {report.actions:,} "
        f"({report.actions / minutes:,.0f}/min)"
    )
    print(
        "client-side refusals and errors: "
        + (", ".join(f"{k} {v}" for k, v in report.client_errors.most_common()) or "none")
    )
    print("memory (MB):  minute  RSS     traced  rooms conns tasks")
    t0 = report.samples[0].at if report.samples else 0.0
    rows = [*report.samples[:: max(1, len(report.samples) // 12)]]
    if report.end is not None:
        rows.append(report.end)
    for s in rows:
        print(
            f"             {(s.at - t0) / 60:6.1f}  {s.rss / 2**20:6.1f}  {s.traced / 2**20:6.1f}"
            f"  {s.rooms:5} {s.connections:5} {s.tasks:5}"
        )
    pair = report.windows()
    if pair is not None:
        warm, end = pair
        rss, traced = report.memory_growth()
        print(
            f"minute after warm-up (mean): RSS {warm.rss / 2**20:.1f} MB, traced "
            f"{warm.traced / 2**20:.1f} MB; last minute: RSS {end.rss / 2**20:.1f} MB "
            f"({rss:+.1%}), traced {end.traced / 2**20:.1f} MB ({traced:+.1%})"
        )
    print("tracemalloc, largest growth since warm-up:")
    for line in report.top_growth:
        print("  " + line)
    print(
        f"stuck rooms: {len(report.stuck)}; leaked tasks: {len(report.leaked_tasks)}; "
        f"rooms left: {len(report.rooms_left)}; connections left: {report.connections_left}"
    )
    lines = report.stuck[:5] + report.leaked_tasks[:5] + report.rooms_left[:5]
    for line in lines + report.unanswered[:5]:
        print("  ! " + line)
    failures = report.failures()
    print("FAILED: " + "; ".join(failures) if failures else "all checks passed")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="cardroom soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--rooms", type=int, default=40, help="rooms kept alive at once")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--warmup", type=float, help="seconds before the memory baseline")
    parser.add_argument("--no-tracemalloc", action="store_true", help="RSS only (faster)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("websockets").setLevel(logging.CRITICAL)
    if not args.no_tracemalloc:
        tracemalloc.start(1)
    report = asyncio.run(soak(args.minutes, args.rooms, args.seed, args.warmup))
    print_report(report, args.rooms)
    return 1 if report.failures() else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
