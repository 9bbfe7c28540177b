"""``cardroom loadtest``: many rooms of scripted human clients against one server process, and, in
the same run, the ceiling a bare ``websockets`` server reaches with the same clients.

    cardroom loadtest --rooms 20 --humans 5 --seconds 10          # rooms of five humans
    cardroom loadtest --rooms 20 --humans 1 --level basic         # one human and four bots
    cardroom loadtest --connections 2000                          # idle connections: memory
    cardroom loadtest --rooms 2000 --think 0-2 --workers 4        # people's pace, 4 generators
    cardroom loadtest --url ws://127.0.0.1:8080/ --server-pid 41,42   # a running topology
    cardroom loadtest --connections 50000 --workers 4 --sources 127.0.0.2-127.0.0.9

By default it starts ``cardroom serve`` itself, pinned to one CPU with ``taskset``
(``--server-cpu``), with its public-server limits raised for the run (it prints the command);
the load comes from this process pinned to another CPU (``--load-cpu``), or from ``--workers``
processes there, each with its own event loop, their counts merged exactly
(:mod:`server.tools.bench.workers`). ``--port`` uses a server already running there instead
(start it with ``--bot-delay 0`` and raised limits); ``--url`` drives any running server or
proxy (``--server-pid`` names the processes whose CPU and memory to read from ``/proc``).
Clients offer permessage-deflate as browsers do (``--no-deflate`` turns it off) and act the
moment their state says they may, after ``--think`` seconds each, or at ``--pace`` actions/s
in all; ``--sources`` binds them to several loopback addresses. Loopback only, both ends;
bounded by ``--seconds``.

It prints accepted actions/s counted from the server's acks of the clients' own requests (never
from state versions), act → own-view latency (from sending an action to receiving the state it
produced), frames/s, connections held, server RSS per connection, refusals by code, and the
share of the echo ceiling (``server.tools.bench.echo``, same CPU, same clients, five frames out per
request).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

from server.bots import BOT_LEVELS
from server.rules.registry import GAME_NAMES
from server.tools.bench import peer, procs, profile, scrape, verdict
from server.tools.bench.drive import Dial, RoomSpec, Think, Window, hold_idle, run_echo, run_rooms
from server.tools.bench.scaleout import metric
from server.tools.bench.sources import Rotation, check_target, parse_sources
from server.tools.bench.tally import Counts, Tally
from server.tools.bench.workers import (
    Job,
    Report,
    Workers,
    affinity,
    describe,
    freeze_seated,
    merged,
    raise_fd_limit,
    shares,
    was_bottleneck,
)
from server.tools.bench.workers import run as run

ECHO_SIZE = 5  # frames out per request in the ceiling, as in a room of five


@dataclass
class Figures:
    """One measured window, as printed."""

    label: str
    seconds: float
    accepted_per_s: float
    accepted: int
    sent: int
    mean_ms: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    frames_per_s: float
    connections: int
    refused: dict[str, int]
    stalls: int = 0
    bot_moves_per_s: float = 0.0
    bot_p50_ms: float = 0.0
    bot_p99_ms: float = 0.0
    within_5ms: float = 0.0
    server_rss: int | None = None
    server_rss_base: int | None = None
    server_cpu: float | None = None  # share of one core in the window
    load_cpu: float = 0.0  # the load generator's, summed over its workers
    generator: list[str] = field(default_factory=list)  # each worker's CPU and loop lag
    generator_busy: bool = False  # whether a worker may have been the bottleneck
    failed_rooms: int = 0  # rooms that could not be opened (connections refused, timed out)
    setup_s: float = 0.0  # seconds until every room was seated, before any played
    setup_server_cpu: float | None = None  # the server's CPU seconds in those
    # the server's own share, from its /metrics around the window (None: not read)
    server_inputs: int | None = None  # inputs it timed from read to views queued
    server_view_p50_ms: float = 0.0
    server_view_p99_ms: float = 0.0
    server_lag_probes: int = 0
    server_lag_p50_ms: float = 0.0
    server_lag_p99_ms: float = 0.0

    @classmethod
    def of(
        cls, label: str, counts: Counts, seconds: float, connections: int, load_cpu: float
    ) -> Figures:
        lat, bots = counts.latency, counts.bot_times
        return cls(
            label=label,
            seconds=seconds,
            accepted_per_s=counts.accepted / seconds,
            accepted=counts.accepted,
            sent=counts.sent,
            mean_ms=1000 * lat.mean(),
            p50_ms=1000 * lat.percentile(0.5),
            p95_ms=1000 * lat.percentile(0.95),
            p99_ms=1000 * lat.percentile(0.99),
            frames_per_s=counts.frames / seconds,
            connections=connections,
            refused=dict(counts.refused),
            stalls=counts.stalls,
            bot_moves_per_s=counts.bot_moves / seconds,
            bot_p50_ms=1000 * bots.percentile(0.5),
            bot_p99_ms=1000 * bots.percentile(0.99),
            within_5ms=lat.within(0.005),
            load_cpu=load_cpu / seconds,
        )

    @classmethod
    def merged(
        cls, label: str, reports: list[Report], busy: Mapping[int, float] | None = None
    ) -> Figures:
        """The figures of several workers' reports of one window: counts summed, histograms
        merged, the window's length the longest worker's, CPU summed (``busy``: each CPU's
        busy share in the window, for the verdict on the generator)."""
        seconds = max(r.seconds for r in reports)
        connections = sum(r.connections for r in reports)
        figures = cls.of(label, merged(reports), seconds, connections, sum(r.cpu for r in reports))
        figures.failed_rooms = sum(r.failed for r in reports)
        figures.setup_s = max(r.setup for r in reports)
        figures.generator = describe(reports, busy)
        figures.generator_busy = was_bottleneck(reports, busy)
        return figures

    def lines(self) -> list[str]:
        out = [
            f"{self.label}:",
            f"  accepted actions   {self.accepted_per_s:>9,.0f}/s  ({self.accepted:,} acks of "
            f"{self.sent:,} act requests in {self.seconds:.1f} s)",
            f"  act -> own view    p50 {self.p50_ms:.1f} ms  p95 {self.p95_ms:.1f} ms  "
            f"p99 {self.p99_ms:.1f} ms  ({self.within_5ms:.0%} within 5 ms)",
        ]
        if self.server_inputs is not None:
            out.append(
                f"    the server's own share (its /metrics): read -> views queued p50 "
                f"{self.server_view_p50_ms:.2f} ms p99 {self.server_view_p99_ms:.2f} ms "
                f"({self.server_inputs:,} inputs); its loop lag p50 {self.server_lag_p50_ms:.2f} "
                f"ms p99 {self.server_lag_p99_ms:.2f} ms ({self.server_lag_probes:,} probes)"
            )
        if self.bot_moves_per_s:
            out.append(
                f"  bot moves          {self.bot_moves_per_s:>9,.0f}/s  (state naming the bot -> "
                f"state with its move: p50 {self.bot_p50_ms:.1f} ms, p99 {self.bot_p99_ms:.1f} ms)"
            )
        out.append(f"  frames received    {self.frames_per_s:>9,.0f}/s")
        out.append(f"  connections held   {self.connections:>9,}")
        if self.setup_s:
            server = ""
            if self.setup_server_cpu is not None:
                server = f"; server CPU {self.setup_server_cpu:.1f} s"
                if self.connections:
                    each = self.setup_server_cpu / self.connections * 1e3
                    server += f" ({each:.2f} ms per connection: handshake, hello, join)"
            out.append(
                f"  setup              {self.setup_s:9.1f} s  every room seated before any "
                f"played{server}"
            )
        if self.failed_rooms:
            out.append(f"  rooms not opened   {self.failed_rooms:>9,}  (refused or timed out)")
        if self.server_rss is not None:
            per = ""
            if self.server_rss_base is not None and self.connections:
                per = (
                    f"; {(self.server_rss - self.server_rss_base) / self.connections / 1024:,.0f}"
                    f" KiB per connection above the {self.server_rss_base / 2**20:.1f} MB at start"
                )
            out.append(f"  server RSS         {self.server_rss / 2**20:9.1f} MB{per}")
        cpu = f"load generator {self.load_cpu:.0%}"
        if self.server_cpu is not None:
            cpu = f"server {self.server_cpu:.0%}, " + cpu
            if self.accepted:
                # CPU time per action barely depends on how busy the machine is: it compares
                # versions of the server even when the throughput figures are noisy
                micros = self.server_cpu * self.seconds / self.accepted * 1e6
                cpu += f"; server CPU per accepted action {micros:,.0f} µs"
        out.append(f"  CPU (one core=100%) {cpu}")
        if self.generator:
            out.append("  load generator, per process (its CPU and event-loop lag in the window):")
            out += ["  " + line for line in self.generator]
        refused = ", ".join(f"{k} {v:,}" for k, v in sorted(self.refused.items())) or "none"
        out.append(f"  refusals           {refused}")
        if self.stalls:
            out.append(f"  stalled rooms      {self.stalls}")
        return out


@dataclass
class Watch:
    """Reads the server processes' CPU time and memory around the measured window (summed
    over ``pids``; none: nothing to read)."""

    pids: tuple[int, ...]
    profile: Path | None = None  # py-spy's collapsed stacks of the window go here
    metrics_port: int | None = None  # the server's HTTP port: its own latency is read there
    share: scrape.ServerShare | None = None  # the server's latency in the window
    _scraped: dict[str, scrape.Buckets] | None = None
    seconds: float = 0.0
    base_rss: int | None = None
    rss: int | None = None
    cpu: float | None = None
    setup_cpu: float | None = None  # CPU seconds from begin() until every room was seated
    _cpu0: float = 0.0
    _cpu_begin: float = 0.0
    _t0: float = 0.0
    _spy: subprocess.Popen[bytes] | None = None
    cpu_busy: dict[int, float] = field(default_factory=dict)  # each CPU's, every process's
    _ticks: dict[int, tuple[int, int]] = field(default_factory=dict)

    def _cpu(self) -> float:
        return sum(procs.cpu_seconds(p) for p in self.pids)

    def begin(self) -> None:
        if self.pids:
            self.base_rss = sum(procs.rss_bytes(p) for p in self.pids)
            self._cpu_begin = self._cpu()

    def seated(self, seconds: float) -> None:
        """Every room is seated (after ``seconds``): the server's CPU for setting them up."""
        if self.pids:
            self.setup_cpu = self._cpu() - self._cpu_begin

    def window(self, opening: bool) -> None:
        # how busy each CPU was in the window, whoever used it: the generator's verdict
        if opening:
            self._ticks = verdict.cpu_ticks()
        else:
            self.cpu_busy = verdict.busy_shares(self._ticks, verdict.cpu_ticks())
        self._scrape(opening)
        if not self.pids:
            return
        if opening:
            self._cpu0, self._t0 = self._cpu(), time.perf_counter()
            if self.profile is not None:
                self._spy = profile.start(self.pids[0], self.seconds, self.profile)
                if self._spy is None:
                    print("--profile: py-spy is not installed (pip install py-spy)")
        else:
            elapsed = time.perf_counter() - self._t0
            self.cpu = (self._cpu() - self._cpu0) / elapsed
            self.rss = sum(procs.rss_bytes(p) for p in self.pids)

    def _scrape(self, opening: bool) -> None:
        """The server's histograms as the window opens; at its close, their deltas."""
        if self.metrics_port is None:
            return
        try:
            now = scrape.read(self.metrics_port)
        except OSError:  # a server that does not answer: its share is not known, not fatal
            self._scraped = None
            return
        if opening:
            self._scraped = now
        elif self._scraped is not None:
            self.share = scrape.ServerShare.between(self._scraped, now)

    def finish(self) -> None:
        """Let the profiler write its samples (before the server stops)."""
        if self._spy is not None:
            try:
                self._spy.wait(timeout=self.seconds + 30)
            except subprocess.TimeoutExpired:
                self._spy.kill()

    def fill(self, figures: Figures) -> Figures:
        figures.server_rss, figures.server_rss_base = self.rss, self.base_rss
        figures.server_cpu = self.cpu
        figures.setup_server_cpu = self.setup_cpu
        if self.share is not None:
            views, lag = self.share.views, self.share.lag
            figures.server_inputs = views.count
            figures.server_view_p50_ms = 1000 * views.quantile(0.5)
            figures.server_view_p99_ms = 1000 * views.quantile(0.99)
            figures.server_lag_probes = lag.count
            figures.server_lag_p50_ms = 1000 * lag.quantile(0.5)
            figures.server_lag_p99_ms = 1000 * lag.quantile(0.99)
        return figures


def _compression(args: argparse.Namespace) -> str | None:
    return None if args.no_deflate else "deflate"


def _serve_command(args: argparse.Namespace, port: int) -> list[str]:
    extra = [*procs.RAISED_LIMITS, "--compression", args.compression, *args.serve_arg]
    return procs.pinned(procs.serve_command(port, *extra), args.server_cpu)


def _show(command: list[str]) -> str:
    return " ".join(shlex.quote(c) for c in command)


def _server_pids(
    args: argparse.Namespace, proc: subprocess.Popen[bytes] | None, port: int | None
) -> tuple[int, ...]:
    """The server processes whose CPU and memory to read: ``--server-pid``, the one started
    (taskset execs it, so the child's pid is the server's), or the one listening on ``--port``."""
    if args.server_pid:
        return tuple(int(p) for p in args.server_pid.split(","))
    if proc is not None:
        return (proc.pid,)
    found = procs.listening_pid(port) if port else None
    return () if found is None else (found,)


def _target(
    args: argparse.Namespace, notes: list[str]
) -> tuple[str, int | None, subprocess.Popen[bytes] | None]:
    """The URL to load, its local port if known, and the server started for it (if any)."""
    if args.url:
        notes.append(f"target: {args.url} (already running; no server started)")
        return args.url, None, None
    if args.port:
        notes.append(
            f"server: already running on port {args.port} (it must have been started with "
            "--bot-delay 0 and raised limits)"
        )
        return f"ws://127.0.0.1:{args.port}/", args.port, None
    port = procs.free_port()
    command = _serve_command(args, port)
    notes.append(f"server: {_show(command)}")
    notes.append(
        "  (its rate limit and connection caps raised for a loopback load test: "
        + " ".join(procs.RAISED_LIMITS)
        + ")"
    )
    return f"ws://127.0.0.1:{port}/", port, procs.start(command)


def _jobs(args: argparse.Namespace, url: str, spec: RoomSpec, total: int, idle: bool) -> list[Job]:
    """Each worker's share of ``total`` rooms (or idle connections)."""
    out = []
    for k, n in enumerate(shares(total, args.workers)):
        if not n:
            continue
        out.append(
            Job(
                index=k,
                url=url,
                spec=spec,
                rooms=0 if idle else n,
                connections=n if idle else 0,
                rounds=args.rounds,
                compression=_compression(args),
                pace=args.pace * n / total if args.pace else None,
                think=args.think,
                sources=args.sources,
                seed=args.seed,
                from_start=args.warmup == 0,
                cpu=args.load_cpu,
            )
        )
    return out


async def _drive_rooms(
    args: argparse.Namespace, url: str, spec: RoomSpec, watch: Watch
) -> tuple[list[Report], list[str]]:
    """Play the rooms from this process or from ``--workers`` processes: their reports."""
    if args.workers > 1:
        workers = Workers(_jobs(args, url, spec, args.rooms, idle=False))
        try:
            reports = await asyncio.to_thread(
                workers.window, args.warmup, args.seconds, watch.window, watch.seated
            )
        finally:
            await asyncio.to_thread(workers.stop)
        return reports, [s for r in reports for s in r.samples]
    tally = Tally()
    low, high = args.think or (0.0, 0.0)
    think = Think(low, high, random.Random(args.seed)) if args.think else None
    sources = Rotation(parse_sources(args.sources) if args.sources else [])

    def seated(seconds: float) -> None:
        watch.seated(seconds)
        freeze_seated()

    window: Window = await run_rooms(
        url,
        spec,
        args.rooms,
        tally,
        warmup=args.warmup,
        seconds=args.seconds,
        pace=args.pace,
        on_window=watch.window,
        think=think,
        dial=Dial(_compression(args), sources),
        from_start=args.warmup == 0,
        on_seated=seated,
    )
    report = Report(0, tally.counts(), window.seconds, window.connections, window.load_cpu)
    report.lag, report.failed, report.setup = window.lag, window.failed, window.setup
    report.cpus = affinity()
    return [report], tally.samples


async def measure_rooms(
    args: argparse.Namespace, on_done: Callable[[int], object] | None = None
) -> tuple[Figures, list[str], list[str]]:
    """Our server under rooms of scripted humans; returns figures, notes and state samples.
    ``on_done(port)`` runs (in a thread) after the window, before a started server stops."""
    notes: list[str] = []
    spec = RoomSpec(args.game, args.seats, args.humans, args.level)
    url, port, proc = _target(args, notes)
    try:
        if port is not None:
            await asyncio.to_thread(procs.wait_http, port)
        watch = Watch(
            _server_pids(args, proc, port), args.profile, seconds=args.seconds, metrics_port=port
        )
        watch.begin()
        reports, samples = await _drive_rooms(args, url, spec, watch)
        await asyncio.to_thread(watch.finish)
        if on_done is not None and port is not None:
            await asyncio.to_thread(on_done, port)
    finally:
        if proc is not None:
            procs.stop(proc)
    if args.profile is not None and args.profile.exists():
        notes += profile.summarize(args.profile)
    bots = spec.seats - spec.humans
    label = (
        f"Cardroom, {args.game}: {args.rooms} rooms x {spec.humans} humans"
        + (f" + {bots} {spec.level} bots" if bots else "")
        + f", {args.rooms * spec.humans} clients"
    )
    return watch.fill(Figures.merged(label, reports, watch.cpu_busy)), notes, samples


async def measure_echo(
    args: argparse.Namespace, clients: int, samples: list[str], path: Path
) -> tuple[Figures, list[str]]:
    """The ceiling: the echo server on the same CPU with the same number of clients, sending
    ``samples`` (written to ``path``)."""
    groups = max(1, math.ceil(clients / ECHO_SIZE))
    port = procs.free_port()
    echo = [sys.executable, "-m", "server.tools.bench.echo", "--port", str(port)]
    echo += ["--samples", str(path), "--compression", args.compression]
    command = procs.pinned(
        echo,
        args.server_cpu,
    )
    notes = [f"ceiling: {_show(command)} ({len(samples)} sampled state frames)"]
    proc = procs.start(command)
    try:
        await asyncio.to_thread(procs.wait_port, port)
        watch = Watch((proc.pid,))
        watch.begin()
        tally = Tally()
        window = await run_echo(
            f"ws://127.0.0.1:{port}/",
            groups,
            ECHO_SIZE,
            tally,
            warmup=args.warmup,
            seconds=args.seconds,
            compression=_compression(args),
            on_window=watch.window,
        )
    finally:
        procs.stop(proc)
    label = (
        f"ceiling, bare websockets server: {groups} groups x {ECHO_SIZE} clients, "
        f"{ECHO_SIZE} frames out per request"
    )
    figures = Figures.of(label, tally.counts(), window.seconds, window.connections, window.load_cpu)
    return watch.fill(figures), notes


async def settled_rss(pids: tuple[int, ...], quiet: float = 2.0, limit: float = 30.0) -> int:
    """The processes' RSS (summed) once it has not moved (by 512 KiB) for ``quiet`` seconds:
    the server hands freed memory back a moment after a burst of closes."""

    def rss() -> int:
        return sum(procs.rss_bytes(p) for p in pids)

    last = rss()
    still = 0.0
    for _ in range(int(limit / 0.25)):
        await asyncio.sleep(0.25)
        now = rss()
        still = still + 0.25 if abs(now - last) < 512 * 1024 else 0.0
        last = now
        if still >= quiet:
            break
    return last


#: Seconds the closes of a round may take to reach the server before its RSS is read anyway.
CLOSES_BOUND = 60.0


async def closes_reached(port: int | None, bound: float = CLOSES_BOUND) -> int | None:
    """Wait (bounded) until the server on ``port`` counts no open connection: its memory after
    the closes means nothing while some are still being closed. The connections still open
    (0 once all closes reached it; None: no port to ask)."""
    if port is None:
        return None
    left = 0
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        left = round(await asyncio.to_thread(metric, port, "cardroom_connections"))
        if not left:
            return 0
        await asyncio.sleep(0.25)
    return left


class _Idle:
    """Idle connections held from this process or from ``--workers`` processes, round by
    round: :meth:`open` gives (held, failed, seconds to open), :meth:`close` closes them."""

    def __init__(self, args: argparse.Namespace, url: str) -> None:
        self.args, self.url = args, url
        self.workers: Workers | None = None
        if args.workers > 1:
            spec = RoomSpec(args.game, args.seats, args.humans, args.level)
            self.workers = Workers(_jobs(args, url, spec, args.connections, idle=True))
        self.rotation = Rotation(parse_sources(args.sources) if args.sources else [])
        self.held: list[Any] = []

    async def open(self) -> tuple[int, int, float]:
        if self.workers is not None:
            got = await asyncio.to_thread(self.workers.receive, 600.0)
            return sum(g[0] for g in got), sum(g[1] for g in got), max(g[2] for g in got)
        start = time.perf_counter()
        self.held, failed = await hold_idle(
            self.url, self.args.connections, _compression(self.args), self.rotation
        )
        return len(self.held), failed, time.perf_counter() - start

    async def close(self, last: bool) -> None:
        if self.workers is not None:
            self.workers.send("stop" if last else "close")
            await asyncio.to_thread(self.workers.receive, 120.0)
            if last:
                await asyncio.to_thread(self.workers.stop)
            return
        await asyncio.gather(*(c.close() for c in self.held), return_exceptions=True)
        self.held = []

    def stop(self) -> None:
        if self.workers is not None:
            self.workers.stop()


async def measure_connections(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Rounds of ``--connections`` idle connections (each says hello, then nothing): the server's
    memory per connection while they are held, and once they have closed."""
    notes: list[str] = []
    url, port, proc = _target(args, notes)
    if proc is not None:
        print(notes[0])
    rounds: list[dict[str, Any]] = []
    try:
        if port is not None:
            await asyncio.to_thread(procs.wait_http, port)
        pids = _server_pids(args, proc, port)
        if not pids:
            raise SystemExit("cannot find the server's process to read its memory: --server-pid")
        base = await settled_rss(pids)
        idle = _Idle(args, url)
        try:
            for k in range(args.rounds):
                held, failed, opened_in = await idle.open()
                loaded = await settled_rss(pids)
                await idle.close(last=k == args.rounds - 1)
                left = await closes_reached(port)
                after = await settled_rss(pids)
                rounds.append(
                    {
                        "connections": held,
                        "failed": failed,
                        "opened_in_s": opened_in,
                        "rss_start": base,
                        "rss_held": loaded,
                        "rss_after": after,
                        "open_after": left,
                        "per_connection": (loaded - base) / max(held, 1),
                    }
                )
        finally:
            idle.stop()
    finally:
        if proc is not None:
            procs.stop(proc)
    return rounds


def _think(text: str) -> tuple[float, float]:
    low, _, high = text.partition("-")
    try:
        think = (float(low), float(high or low))
        Think(*think, random.Random())
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"want MIN-MAX seconds, 0 <= MIN <= MAX: {exc}") from None
    return think


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cardroom loadtest", description=__doc__.split("\n\n")[0])
    p.add_argument("--game", choices=GAME_NAMES, default="sheepshead")
    p.add_argument("--seats", type=int, default=5, help="seats per room (Sheepshead: 5)")
    p.add_argument("--rooms", type=int, default=20)
    p.add_argument(
        "--humans", type=int, default=5, help="scripted humans per room; bots fill the rest"
    )
    p.add_argument("--level", choices=BOT_LEVELS, default="basic", help="level of the bots")
    p.add_argument("--seconds", type=float, default=10.0, help="length of the measured window")
    p.add_argument("--warmup", type=float, default=2.0, help="seconds played before it")
    p.add_argument("--pace", type=float, help="actions/s in all (default: as fast as possible)")
    p.add_argument("--no-deflate", action="store_true", help="clients do not offer compression")
    p.add_argument(
        "--compression",
        choices=("off", "deflate"),
        default="off",
        help="the servers' permessage-deflate policy (cardroom serve's and the echo's); "
        "off is cardroom serve's default",
    )
    p.add_argument(
        "--think",
        type=_think,
        metavar="MIN-MAX",
        help="each player thinks this many seconds before each action (uniform; e.g. 0-2)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the thinking times")
    p.add_argument("--port", type=int, help="use a server already running on this port")
    p.add_argument(
        "--url",
        help="drive a server or proxy already running here (ws://HOST:PORT/, loopback only): "
        "no server is started; rooms are joined at /ws/CODE under it",
    )
    p.add_argument(
        "--server-pid",
        metavar="PID[,PID]",
        help="server processes whose CPU and memory to read from /proc (with --url)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="load generator processes, the rooms (or connections) spread over them",
    )
    p.add_argument(
        "--sources",
        metavar="A-B|N",
        help="bind the clients to these loopback addresses in turn (127.0.0.2-127.0.0.9, or a "
        "count from 127.0.0.1), for more connections than one address has ports",
    )
    p.add_argument("--server-cpu", type=int, default=0, help="CPU the started servers run on")
    p.add_argument("--load-cpu", type=int, default=1, help="CPU this load generator runs on")
    p.add_argument("--no-ceiling", action="store_true", help="skip the echo ceiling")
    p.add_argument(
        "--serve-arg",
        action="append",
        default=[],
        help="one more argument for the started `cardroom serve` (repeat; a flag as "
        "--serve-arg=--no-trim-memory)",
    )
    p.add_argument("--connections", type=int, help="hold this many idle connections instead")
    p.add_argument("--rounds", type=int, default=1, help="rounds of opening and closing them")
    p.add_argument("--json", action="store_true", help="print the figures as JSON too")
    p.add_argument(
        "--bgio",
        type=Path,
        help="also measure the boardgame.io peer set up in this folder (npm install done), "
        "with the same rooms of five",
    )
    p.add_argument(
        "--profile",
        type=Path,
        help="sample our server with py-spy during the window into this file and summarise it",
    )
    return p


def prepare(args: argparse.Namespace) -> argparse.Namespace:
    """Check the options and pin this process to the load generator's CPU."""
    if args.game == "sheepshead" and args.seats != 5:
        raise SystemExit("Sheepshead is played by five: --seats 5")
    if not 1 <= args.humans <= args.seats:
        raise SystemExit("--humans must be between 1 and --seats")
    if not 1 <= args.workers <= 64:
        raise SystemExit("--workers must be between 1 and 64")
    if args.url and args.port:
        raise SystemExit("--url or --port, not both")
    try:  # load goes to loopback only, and comes from it
        if args.url:
            check_target(args.url)
        if args.sources:
            parse_sources(args.sources)
    except ValueError as exc:
        raise SystemExit(f"refused: {exc}") from None
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    if cpus < 2:
        args.load_cpu = args.server_cpu = None  # one CPU: nothing to pin apart
    procs.pin_self(args.load_cpu)
    return args


def main(argv: list[str]) -> int:
    args = prepare(parser().parse_args(argv))
    if args.connections:
        # the server started here inherits it, and the workers too (root may raise the hard one)
        limit = raise_fd_limit(args.connections + 2000)
        capped = limit < args.connections + 2000
        print(
            f"open files allowed per process (this one, its workers, a server it starts): "
            f"{limit:,}"
            + (
                f"; the hard limit caps a server started here below {args.connections:,} "
                "connections (it refuses the rest)"
                if capped
                else ""
            )
        )
        rounds = run(measure_connections(args))
        offer = "offering permessage-deflate" if not args.no_deflate else "without compression"
        print(
            f"idle connections (hello, then nothing), clients {offer}; server RSS once it "
            f"settles: {rounds[0]['rss_start'] / 2**20:.1f} MB at start"
        )
        for i, r in enumerate(rounds, 1):
            print(
                f"  round {i}: {r['connections']:,} held ({r['failed']:,} refused or failed, "
                f"opened in {r['opened_in_s']:.1f} s): {r['rss_held'] / 2**20:.1f} MB holding "
                f"them ({r['per_connection'] / 1024:.1f} KiB per connection over the start), "
                f"{r['rss_after'] / 2**20:.1f} MB after they closed"
                + (
                    ""
                    if r["open_after"] is None
                    else " (every close had reached the server)"
                    if r["open_after"] == 0
                    else f" ({r['open_after']:,} still open on the server when it was read)"
                )
            )
        if args.json:
            print(json.dumps(rounds))
        return 0
    mode = f"at {args.pace:g} actions/s in all" if args.pace else "as fast as the rules allow"
    if args.think:
        mode += f", each player thinking {args.think[0]:g}-{args.think[1]:g} s (uniform) first"
    print(
        f"cardroom loadtest: {mode}, {args.warmup:g} s warm-up then {args.seconds:g} s measured; "
        f"clients {'do not offer compression' if args.no_deflate else 'offer permessage-deflate'}"
        f" and the servers {'accept' if args.compression == 'deflate' else 'decline'} it"
        f"; load generator: {args.workers} process(es) on CPU {args.load_cpu}"
        + (f", clients from {args.sources}" if args.sources else "")
    )
    ours, notes, samples = run(measure_rooms(args))
    for line in notes:
        print(line)
    print("\n".join(ours.lines()))
    result: dict[str, Any] = {"ours": asdict(ours)}
    if not args.no_ceiling:
        clients = args.rooms * args.humans
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "samples.json"
            path.write_bytes(orjson.dumps(samples))
            echo, notes = run(measure_echo(args, clients, samples, path))
        for line in notes:
            print(line)
        print("\n".join(echo.lines()))
        share = ours.accepted_per_s / echo.accepted_per_s if echo.accepted_per_s else 0.0
        print(f"ours / ceiling: {share:.0%} of the bare server's requests/s")
        result["ceiling"] = asdict(echo)
        result["share"] = share
    if args.bgio is not None:
        bgio, notes = run(
            peer.measure(args.bgio, args.rooms, args.seconds, args.server_cpu, args.load_cpu)
        )
        for line in notes:
            print(line)
        print("\n".join(bgio.lines()))
        print(
            f"ours / boardgame.io: {ours.accepted_per_s / max(bgio.moves_per_s, 1e-9):.2f}x the "
            f"actions/s; p99 {ours.p99_ms:.1f} ms vs {bgio.p99_ms:.1f} ms"
        )
        result["bgio"] = asdict(bgio)
    if args.json:
        print(json.dumps(result))
    return 0
