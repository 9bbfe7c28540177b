"""``cardroom bench queue``: Play now under load. Simulated people arrive at an even pace
(``--people`` over ``--seconds``), each on a WebSocket of its own from one of
``--addresses`` loopback addresses (127.0.0.2 and on: two identities of one address never sit
at one table, so the people need addresses), say ``hello`` and ``queue`` for Shithead, and
wait for ``seated``; then they hang up (the time to a table is what is measured, not the game).

Two topologies, one after the other:

- ``one``: one ``cardroom serve`` process, the queue in its memory, people straight to it;
- ``two``: two ``cardroom serve --redis`` processes behind the repository's nginx
  (``deploy/nginx.conf``), the queue in Redis shared by both, people at ``/ws``.

Printed per topology: people seated, time to a table (``queue`` sent to ``seated`` received)
p50 and p99, the servers' CPU per person seated (summed over the processes), tables opened,
people seated twice and seats given twice (both must be 0), refusals, and this generator's
own CPU. Every limit per address is raised for the run (the people share a few addresses)
and the command says which. All traffic is on loopback; the run is bounded in people and
time::

    python -m server.tools.bench.queue --people 2000 --seconds 20
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import resource
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from server.tools.bench import procs
from server.tools.bench.histogram import Histogram
from server.tools.bench.scaleout import ROOT, topology
from server.tools.bench.wsclient import WsClient

MAX_PEOPLE = 20_000
#: What the run raises besides procs.RAISED_LIMITS: the people share a few addresses.
QUEUE_LIMITS = (
    "--queue-per-minute",
    "1000000",
    "--queue-burst",
    "1000000",
    "--queue-max",
    "100000",
    "--devices-per-address",
    "1000000",
    "--miss-rate",
    "1000000",
    "--miss-burst",
    "1000000",
    # nginx passes each person's address on (X-Forwarded-For) from 127.0.0.1
    "--trusted-proxy",
    "127.0.0.1/32",
)


@dataclass
class Run:
    """What the people of one topology saw."""

    waits: list[float] = field(default_factory=list)
    seats: Counter[tuple[str, int]] = field(default_factory=Counter)
    twice: int = 0  # people told ``seated`` more than once
    refused: Counter[str] = field(default_factory=Counter)
    lost: int = 0  # no seat in time, or the connection failed


async def person(url: str, address: str, game: str, wait: float, run: Run) -> None:
    """One person: connect, hello, queue, and wait for a seat (at most ``wait`` seconds)."""
    done = asyncio.get_running_loop().create_future()
    sent = 0.0
    seated = 0

    def on_text(data: bytes) -> None:
        nonlocal sent, seated
        msg: dict[str, Any] = orjson.loads(data)
        kind = msg.get("type")
        if kind == "welcome":
            sent = time.perf_counter()
            frame = {"type": "queue", "id": "q", "game": game, "name": "P"}
            client.send_text(orjson.dumps(frame).decode())
        elif kind == "seated":
            seated += 1
            if seated == 1:
                run.waits.append(time.perf_counter() - sent)
                run.seats[(msg["room"], msg["seat"])] += 1
            else:
                run.twice += 1
            if not done.done():
                done.set_result(None)
        elif kind == "error":
            run.refused[str(msg.get("code"))] += 1
            if not done.done():
                done.set_result(None)

    try:
        client = WsClient(url, None, on_text, (address, 0))
        await client.start(30.0)
        client.send_text('{"type":"hello","id":"h","protocol":1}')
        await asyncio.wait_for(done, wait)
        await asyncio.sleep(0.2)  # a second ``seated`` for the same person would come now
        await client.close(2.0)
    except (OSError, TimeoutError):
        run.lost += 1


async def crowd(url: str, people: int, seconds: float, addresses: int, wait: float) -> Run:
    run = Run()
    start = time.perf_counter()
    tasks = []
    for i in range(people):
        due = start + seconds * i / people
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        address = f"127.0.0.{2 + i % addresses}"
        tasks.append(asyncio.create_task(person(url, address, "shithead", wait, run)))
    await asyncio.gather(*tasks)
    return run


def cpu(processes: list[Any]) -> float:
    return sum(procs.cpu_seconds(proc.pid) for _, proc in processes)


@contextlib.contextmanager
def one_process(directory: Path, extra: tuple[str, ...]) -> Any:
    port = procs.free_port()
    command = procs.serve_command(port, *procs.RAISED_LIMITS, *extra)
    with open(directory / "serve-one.log", "wb") as log:
        proc = procs.start(command, stderr=log, cwd=str(ROOT))
        try:
            procs.wait_http(port, proc=proc)
            yield f"ws://127.0.0.1:{port}/", [(port, proc)]
        finally:
            procs.stop(proc)


def report(name: str, run: Run, people: int, server_cpu: float, load_cpu: float) -> str:
    seated = len(run.waits)
    waits = Histogram.of(run.waits)
    given_twice = sum(1 for n in run.seats.values() if n > 1)
    per = 1000 * server_cpu / seated if seated else float("nan")
    refused = ", ".join(f"{k} {v}" for k, v in sorted(run.refused.items())) or "none"
    return (
        f"{name:<4} seated {seated}/{people}, time to a table p50 "
        f"{1000 * waits.percentile(0.5):.0f} ms p99 {1000 * waits.percentile(0.99):.0f} ms, "
        f"server CPU {server_cpu:.1f} s = {per:.2f} ms a person seated, tables "
        f"{len({room for room, _ in run.seats})}, seated twice {run.twice}, seats given twice "
        f"{given_twice}, refused {refused}, lost {run.lost}, generator CPU {load_cpu:.1f} s"
    )


async def measure(name: str, url: str, processes: list[Any], args: argparse.Namespace) -> str:
    before, mine = cpu(processes), resource.getrusage(resource.RUSAGE_SELF)
    wait = args.fill_wait + 30.0
    run = await crowd(url, args.people, args.seconds, args.addresses, wait)
    after, used = cpu(processes), resource.getrusage(resource.RUSAGE_SELF)
    load = (used.ru_utime + used.ru_stime) - (mine.ru_utime + mine.ru_stime)
    return report(name, run, args.people, after - before, load)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cardroom bench queue", description=__doc__)
    parser.add_argument("--people", type=int, default=10_000, help=f"at most {MAX_PEOPLE}")
    parser.add_argument("--seconds", type=float, default=60.0, help="the arrivals' spread")
    parser.add_argument("--addresses", type=int, default=200, help="loopback sources, ≤ 250")
    parser.add_argument("--fill-wait", type=float, default=20.0, help="--queue-fill-wait")
    parser.add_argument("--topologies", nargs="+", choices=("one", "two"), default=["one", "two"])
    args = parser.parse_args(argv)
    if not 1 <= args.people <= MAX_PEOPLE or not 1 <= args.addresses <= 250:
        parser.error(f"--people is 1 to {MAX_PEOPLE}, --addresses 1 to 250")
    extra = (*QUEUE_LIMITS, "--queue-fill-wait", str(args.fill_wait))
    print(f"per-address limits raised for the run: {' '.join(procs.RAISED_LIMITS + extra)}")
    print(
        f"{args.people} people over {args.seconds:g} s from {args.addresses} loopback "
        f"addresses, Shithead tables of 4, fill wait {args.fill_wait:g} s"
    )
    with tempfile.TemporaryDirectory(prefix="queue-bench-") as tmp:
        for name in args.topologies:
            directory = Path(tmp) / name
            directory.mkdir()
            if name == "one":
                with one_process(directory, extra) as (url, running):
                    print(asyncio.run(measure(name, url, running, args)), flush=True)
            else:
                with topology("by_room", directory, 2, extra=extra) as (base, running):
                    print(asyncio.run(measure(name, base + "/ws", running, args)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
