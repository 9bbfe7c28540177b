"""``cardroom bench redis``: what persisting every action in Redis costs.

In one run, the same load as ``cardroom bench server`` (one scripted human and four bots per
room, bots moving at once) goes through ``cardroom serve`` with the in-memory store and with
``--redis`` on a local ``redis-server`` (append-only file on, ``appendfsync everysec``, as in
docker-compose.yml), alternating, so both stores see the same machine. It prints both
throughputs, their ratio run by run, the time one action's persist took in the server under
that load (its ``cardroom_persist_seconds`` histogram: p50 and p99, interpolated within
buckets; this includes waiting for the busy event loop), a write's wait for its batch to be
written (``cardroom_store_queue_seconds``) and the round trips of its batches
alone (``cardroom_store_round_trip_seconds``, from the write to the last reply read), the
server's CPU per action (bots' moves included) with each store, the room writes per round
trip to Redis (``cardroom_store_batch_size``), run by run, and the same persist for one
writer alone.
With ``--cluster`` a local three-master Redis Cluster (:mod:`server.tools.bench.redis_cluster`,
the same settings) takes its turn too, so one Redis and the cluster are measured side by side.
The server runs on CPU 0 and the load generator on CPU 1 (``cardroom loadtest``'s defaults); a
started ``redis-server`` on the server's CPU unless ``--redis-cpu`` says otherwise (the output's
``placed:`` line says where each ran).
Everything runs on 127.0.0.1 and stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import tempfile
import time
import urllib.request
from pathlib import Path

from server.tools.bench.server import run_load

PERSIST = "cardroom_persist_seconds"
BATCH = "cardroom_store_batch_size"
ROUND_TRIP = "cardroom_store_round_trip_seconds"
QUEUE = "cardroom_store_queue_seconds"
#: Rooms stored for the listing's timing.
LISTED = 5000
#: Where the load's server and generator run (``cardroom loadtest``'s defaults).
SERVER_CPU, LOAD_CPU = 0, 1


def _scrape(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        text: str = r.read().decode()
        return text


def persist_buckets(
    port: int, text: str | None = None, name: str = PERSIST
) -> list[tuple[float, float]]:
    """``(upper bound, cumulative count)`` of the server's persist-time histogram (or of
    another histogram in seconds: ``name``)."""
    text = _scrape(port) if text is None else text
    out = []
    for m in re.finditer(rf'^{name}_bucket\{{[^}}]*le="([^"]+)"[^}}]*\}} (\S+)$', text, re.M):
        out.append((float(m.group(1)), float(m.group(2))))
    return sorted(out)


def mean_batch(text: str) -> float:
    """Writes per round trip to Redis on average (NaN for a server that does not batch)."""
    found = {
        m.group(1): float(m.group(2))
        for m in re.finditer(rf"^{BATCH}_(sum|count) (\S+)$", text, re.M)
    }
    count = found.get("count", 0.0)
    return found["sum"] / count if count else float("nan")


def quantile(buckets: list[tuple[float, float]], q: float) -> float:
    """The ``q`` quantile of a cumulative histogram, linear within its bucket.

    >>> quantile([(0.001, 50.0), (0.002, 100.0), (float("inf"), 100.0)], 0.75)
    0.0015
    """
    total = buckets[-1][1] if buckets else 0.0
    if total == 0:
        return float("nan")
    rank = q * total
    low, below = 0.0, 0.0
    for bound, count in buckets:
        if count >= rank:
            if bound == float("inf"):
                return low
            return low + (bound - low) * (rank - below) / max(count - below, 1e-9)
        low, below = bound, count
    return low


def _pool(runs: list[list[tuple[float, float]]]) -> list[tuple[float, float]]:
    """Histograms of several server processes added up, bucket by bucket."""
    total: dict[float, float] = {}
    for buckets in runs:
        for bound, count in buckets:
            total[bound] = total.get(bound, 0.0) + count
    return sorted(total.items())


async def _alone(url: str, writes: int) -> tuple[list[float], float]:
    """Seconds per append of one writer alone: the cost of a persist without the server; and
    the writer's own CPU seconds per append (the Redis client's share of a server's CPU)."""
    from server.store.redis_store import RedisStore

    store = RedisStore(url)
    times = []
    try:
        code = "BENCH"
        await store.delete(code)
        await store.create(code, {"version": 0})
        cpu = time.process_time()
        for v in range(1, writes + 1):
            entry = {"v": v, "g": 0, "s": v % 5, "a": "play QC"}
            started = time.perf_counter()
            await store.append(code, entry)
            times.append(time.perf_counter() - started)
        cpu = (time.process_time() - cpu) / writes
        await store.delete(code)
    finally:
        await store.close()
    return sorted(times), cpu


async def _listing(url: str, rooms: int) -> float:
    """Seconds to list ``rooms`` stored rooms (a restart's first step; a cluster scans)."""
    from server.store.redis_store import RedisStore

    store = RedisStore(url)
    codes = [f"L{i:04d}" for i in range(rooms)]
    try:
        for at in range(0, rooms, 100):
            await asyncio.gather(*(store.create(c, {"version": 0}) for c in codes[at : at + 100]))
        started = time.perf_counter()
        listed = await store.list()
        took = time.perf_counter() - started
        assert set(codes) <= set(listed)
        for at in range(0, rooms, 100):
            await asyncio.gather(*(store.delete(c) for c in codes[at : at + 100]))
    finally:
        await store.close()
    return took


async def _run_redis(
    args: argparse.Namespace,
    url: str,
    histograms: list[list[tuple[float, float]]],
    trips: list[list[tuple[float, float]]],
    queues: list[list[tuple[float, float]]],
) -> dict[str, float]:
    """One run of the load on ``cardroom serve --redis url``; its persist, round-trip and
    queue histograms are kept, and its writes per round trip go in the result (``batch``)."""
    buckets: list[tuple[float, float]] = []
    round_trips: list[tuple[float, float]] = []
    waits: list[tuple[float, float]] = []
    batch: list[float] = []

    def read(port: int) -> None:
        text = _scrape(port)
        buckets.extend(persist_buckets(port, text))
        round_trips.extend(persist_buckets(port, text, ROUND_TRIP))
        waits.extend(persist_buckets(port, text, QUEUE))
        batch.append(mean_batch(text))

    result = await run_load(
        args.game,
        args.rooms,
        args.seconds,
        args.level,
        extra=("--redis", url),
        on_done=read,
        pace=args.pace,
    )
    histograms.append(buckets)
    trips.append(round_trips)
    queues.append(waits)
    return {**result, "batch": batch[0] if batch else float("nan")}


def _redis_cpu(args: argparse.Namespace) -> int | None:
    """The CPU a started redis-server runs on: the load generator's, the server's, or any."""
    match args.redis_cpu:
        case "load":
            return LOAD_CPU
        case "server":
            return SERVER_CPU
        case _:
            return None


def _cpu(runs: list[dict[str, float]]) -> str:
    """The server's CPU per action, run by run: steadier than actions/s on busy cores."""
    return ", ".join(f"{1e6 * r['server_cpu_per_action']:.0f}" for r in runs) + " µs"


async def _bench(args: argparse.Namespace) -> None:
    from server.tools.bench.redis_cluster import RedisCluster
    from server.tools.bench.redis_server import RedisServer

    memory: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        stores: dict[str, str] = {}  # label -> Redis URL
        redis_cpu = _redis_cpu(args)
        if args.redis is None:
            server = stack.enter_context(RedisServer(Path(tmp), fsync="everysec", cpu=redis_cpu))
            stores["on Redis"] = server.url
        else:
            stores["on Redis"] = args.redis
        if args.cluster:
            cluster = stack.enter_context(RedisCluster(Path(tmp) / "cluster", fsync="everysec"))
            stores["on a Redis Cluster (3 masters)"] = cluster.url
        runs: dict[str, list[dict[str, float]]] = {label: [] for label in stores}
        histograms: dict[str, list[list[tuple[float, float]]]] = {label: [] for label in stores}
        trips: dict[str, list[list[tuple[float, float]]]] = {label: [] for label in stores}
        queues: dict[str, list[list[tuple[float, float]]]] = {label: [] for label in stores}
        for _ in range(args.runs):  # alternating, so every store sees the same machine
            memory.append(
                await run_load(args.game, args.rooms, args.seconds, args.level, pace=args.pace)
            )
            for label, url in stores.items():
                runs[label].append(
                    await _run_redis(args, url, histograms[label], trips[label], queues[label])
                )
        alone = {label: await _alone(url, 2000) for label, url in stores.items()}
        listing = {label: await _listing(url, LISTED) for label, url in stores.items()}
    best_memory = max(memory, key=lambda r: r["actions_per_s"])
    pace = f"the humans at {args.pace:g} actions/s in all" if args.pace else "as fast as they may"
    lines = [
        f"redis, {args.game}: {args.rooms} rooms x (1 scripted human + 4 {args.level} bots), "
        f"{pace}, {args.seconds:.0f} s per run, {args.runs} runs of each alternating, server in "
        "its own process:",
        f"  placed: server on CPU {SERVER_CPU}, load generator on CPU {LOAD_CPU}, "
        + (
            "redis-server given (--redis)"
            if args.redis is not None
            else "redis-server not pinned"
            if redis_cpu is None
            else f"redis-server on CPU {redis_cpu} (beside the {args.redis_cpu})"
        ),
        f"  in memory: {best_memory['actions_per_s']:,.0f} actions/s (best), "
        f"mean action-to-view {best_memory['mean_latency_ms']:.2f} ms, "
        f"server CPU per action {_cpu(memory)}",
    ]
    for label, results in runs.items():
        best = max(results, key=lambda r: r["actions_per_s"])
        ratios = [
            r["actions_per_s"] / m["actions_per_s"] for m, r in zip(memory, results, strict=True)
        ]
        pooled, round_trips = _pool(histograms[label]), _pool(trips[label])
        waits = _pool(queues[label])
        times, cpu = alone[label]
        lines += [
            f"  {label}: {best['actions_per_s']:,.0f} actions/s (best), "
            f"mean action-to-view {best['mean_latency_ms']:.2f} ms, "
            f"server CPU per action {_cpu(results)}",
            f"    / memory throughput, run by run: {', '.join(f'{r:.2f}' for r in ratios)}",
            "    writes per round trip, run by run: "
            + ", ".join(f"{r['batch']:.1f}" for r in results),
            f"    persist per action in the server: p50 {1000 * quantile(pooled, 0.5):.3f} ms, "
            f"p99 {1000 * quantile(pooled, 0.99):.3f} ms "
            f"({pooled[-1][1] if pooled else 0:,.0f} writes)",
            f"    a write's wait for its batch (call to write): "
            f"p50 {1000 * quantile(waits, 0.5):.3f} ms, p99 {1000 * quantile(waits, 0.99):.3f} ms",
            f"    its batches' round trips (write to last reply): "
            f"p50 {1000 * quantile(round_trips, 0.5):.3f} ms, "
            f"p99 {1000 * quantile(round_trips, 0.99):.3f} ms",
            f"    one writer alone: p50 {1000 * times[len(times) // 2]:.3f} ms, "
            f"p99 {1000 * times[int(len(times) * 0.99)]:.3f} ms ({len(times)} appends), "
            f"its CPU {1e6 * cpu:.0f} µs an append",
            f"    listing {LISTED:,} stored rooms: {1000 * listing[label]:.1f} ms",
        ]
    print("\n".join(lines))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="cardroom bench redis")
    parser.add_argument("--game", choices=("shithead", "sheepshead"), default="sheepshead")
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--level", default="basic", help="level of the four bots per room")
    parser.add_argument("--runs", type=int, default=2, help="runs of each store, alternating")
    parser.add_argument(
        "--pace",
        type=float,
        help="the humans' actions/s in all, the bots answering at once (default: as fast as "
        "they may, a saturated server, whose persist counts the loop's queue)",
    )
    parser.add_argument(
        "--redis",
        help="a Redis to use (the bench writes rooms to it; redis+cluster://host:port,... for "
        "a cluster); default: start a local one",
    )
    parser.add_argument(
        "--redis-cpu",
        choices=("load", "server", "any"),
        default="server",
        help="the CPU a started redis-server runs on: the server's (default: on two cores the "
        "generator fills the other, and Redis there slows the load it drives), the load "
        "generator's, or any",
    )
    parser.add_argument(
        "--cluster",
        action="store_true",
        help="also run on a local three-master Redis Cluster, alternating with the rest",
    )
    asyncio.run(_bench(parser.parse_args(argv)))
    return 0
