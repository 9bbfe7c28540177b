"""``cardroom bench durability``: what ``--durability replicated`` costs against ``local``, in
one run on one primary with one replica (and a Sentinel: the ``redis+sentinel://`` URL).

    cardroom bench durability --rooms 20 --seconds 8 --rounds 2

Each round runs one ``cardroom serve`` per setting in turn, the same load each time (``--rooms``
tables of :mod:`server.tools.bench.faults`: a scripted human against a basic bot, acting as
soon as it may, ``--think`` seconds apart), and prints actions acknowledged a second, the act →
ack latency's p50 and p99, the server's CPU per action, and the load generator's own CPU share
(a generator near 100 % of its core measures itself, not the server). Loopback only; every
process stops at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from server.tools.bench.faults import SERVE_FLAGS, playing, tables
from server.tools.bench.procs import cpu_seconds, free_port, serve_process
from server.tools.bench.redis_replicated import ReplicatedRedis


@dataclass(frozen=True, slots=True)
class Round:
    """One setting's measured window."""

    durability: str
    actions: int
    seconds: float
    p50_ms: float
    p99_ms: float
    server_cpu_ms_per_action: float
    generator_cpu: float  # share of one core this process used

    @property
    def per_second(self) -> float:
        return self.actions / self.seconds

    def line(self) -> str:
        return (
            f"{self.durability:>10}: {self.per_second:7.1f} actions/s, act->ack p50 "
            f"{self.p50_ms:6.2f} ms, p99 {self.p99_ms:6.2f} ms, server CPU "
            f"{self.server_cpu_ms_per_action:5.2f} ms/action, generator CPU "
            f"{self.generator_cpu:4.0%}"
        )


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def one(url: str, durability: str, rooms: int, seconds: float, think: float) -> Round:
    port = free_port()
    flags = ("--redis", url, "--durability", durability, *SERVE_FLAGS)
    async with serve_process(port, *flags) as server:
        async with tables([f"ws://127.0.0.1:{port}/"], rooms, think) as run, playing(run):
            await asyncio.sleep(1.0)  # warm up: every room dealt and playing
            begin = time.monotonic()
            cpu0, mine0 = cpu_seconds(server.pid), sum(os.times()[:2])
            await asyncio.sleep(seconds)
            end = time.monotonic()
            cpu1, mine1 = cpu_seconds(server.pid), sum(os.times()[:2])
        # acks and their latencies inside the window (an act's latency ends at its ack)
        late: list[float] = []
        for table in run.tables:
            for (at, _), took in zip(table.acks, table.latencies, strict=True):
                if begin <= at <= end:
                    late.append(took)
    actions = len(late)
    return Round(
        durability,
        actions,
        end - begin,
        _p(late, 0.5) * 1000,
        _p(late, 0.99) * 1000,
        (cpu1 - cpu0) * 1000 / max(1, actions),
        (mine1 - mine0) / (end - begin),
    )


async def bench(rooms: int, seconds: float, think: float, rounds: int) -> list[Round]:
    with (
        tempfile.TemporaryDirectory() as tmp,
        ReplicatedRedis(Path(tmp), sentinels=1, replicas=1) as redis,
    ):
        out = []
        for _ in range(rounds):
            for durability in ("local", "replicated"):
                out.append(await one(redis.url, durability, rooms, seconds, think))
        return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="cardroom bench durability")
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=8.0, help="each setting's window")
    parser.add_argument("--think", type=float, default=0.0, help="seconds between acts")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    results = asyncio.run(bench(args.rooms, args.seconds, args.think, args.rounds))
    print(
        f"--durability local against replicated: {args.rooms} rooms, {args.seconds:g} s a "
        f"setting, {args.rounds} rounds, one primary and one replica on loopback (appendfsync "
        f"everysec), load average {load:.1f} at the start"
    )
    for result in results:
        print(result.line())
    for durability in ("local", "replicated"):
        mine = [r for r in results if r.durability == durability]
        print(
            f"{durability:>10} median: {statistics.median(r.per_second for r in mine):.1f} "
            f"actions/s, p99 {statistics.median(r.p99_ms for r in mine):.2f} ms"
        )
    return 0
