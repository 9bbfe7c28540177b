"""``cardroom bench redis``: what persisting every action in Redis costs.

In one run, the same load as ``cardroom bench server`` (one scripted human and four bots per
room, bots moving at once) goes through ``cardroom serve`` with the in-memory store and with
``--redis`` on a local ``redis-server`` (append-only file on, ``appendfsync everysec``, as in
docker-compose.yml), alternating, so both stores see the same machine. It prints both
throughputs, their ratio run by run, the time one action's persist took in the server under
that load (its ``cardroom_persist_seconds`` histogram: p50 and p99, interpolated within
buckets; this includes waiting for the busy event loop), the server's CPU per action (bots'
moves included) with each store, the room writes per round trip to Redis
(``cardroom_store_batch_size``), run by run, and the same persist for one writer alone.
Everything runs on 127.0.0.1 and stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import tempfile
import time
import urllib.request
from pathlib import Path

from server.tools.bench.server import run_load

PERSIST = "cardroom_persist_seconds"
BATCH = "cardroom_store_batch_size"


def _scrape(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        text: str = r.read().decode()
        return text


def persist_buckets(port: int, text: str | None = None) -> list[tuple[float, float]]:
    """``(upper bound, cumulative count)`` of the server's persist-time histogram."""
    text = _scrape(port) if text is None else text
    out = []
    for m in re.finditer(rf'^{PERSIST}_bucket\{{[^}}]*le="([^"]+)"[^}}]*\}} (\S+)$', text, re.M):
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


async def _alone(url: str, writes: int) -> list[float]:
    """Seconds per append of one writer alone: the cost of a persist without the server."""
    from server.store.redis_store import RedisStore

    store = RedisStore(url)
    times = []
    try:
        code = "BENCH"
        await store.delete(code)
        await store.create(code, {"version": 0})
        for v in range(1, writes + 1):
            entry = {"v": v, "g": 0, "s": v % 5, "a": "play QC"}
            started = time.perf_counter()
            await store.append(code, entry)
            times.append(time.perf_counter() - started)
        await store.delete(code)
    finally:
        await store.close()
    return sorted(times)


async def _bench(args: argparse.Namespace) -> None:
    from server.tools.bench.redis_server import RedisServer

    memory: list[dict[str, float]] = []
    redis: list[dict[str, float]] = []
    histograms: list[list[tuple[float, float]]] = []
    batches: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        url = args.redis
        server = None
        if url is None:
            server = RedisServer(Path(tmp), fsync="everysec")
            server.start()
            url = server.url
        try:
            for _ in range(args.runs):  # alternating, so both see the same machine
                memory.append(await run_load(args.game, args.rooms, args.seconds, args.level))
                buckets: list[tuple[float, float]] = []

                def read(port: int, into: list[tuple[float, float]] = buckets) -> None:
                    text = _scrape(port)
                    into.extend(persist_buckets(port, text))
                    batches.append(mean_batch(text))

                redis.append(
                    await run_load(
                        args.game,
                        args.rooms,
                        args.seconds,
                        args.level,
                        extra=("--redis", url),
                        on_done=read,
                    )
                )
                histograms.append(buckets)
            alone = await _alone(url, 2000)
        finally:
            if server is not None:
                server.stop()
    best_memory = max(memory, key=lambda r: r["actions_per_s"])
    best_redis = max(redis, key=lambda r: r["actions_per_s"])
    ratios = [r["actions_per_s"] / m["actions_per_s"] for m, r in zip(memory, redis, strict=True)]
    pooled = _pool(histograms)
    runs = []
    for i, (m, r, h, b) in enumerate(zip(memory, redis, histograms, batches, strict=True)):
        runs.append(
            f"    run {i + 1}: Redis/memory {r['actions_per_s'] / m['actions_per_s']:.2f}; "
            f"persist p50 {1000 * quantile(h, 0.5):.3f} ms, p99 {1000 * quantile(h, 0.99):.3f} ms; "
            f"server CPU per action {_cpu_per_action(m):.0f} us in memory, "
            f"{_cpu_per_action(r):.0f} us on Redis; {b:.1f} writes per round trip"
        )
    print(
        f"redis, {args.game}: {args.rooms} rooms x (1 scripted human + 4 {args.level} bots), "
        f"{args.seconds:.0f} s per run, {args.runs} runs of each alternating, server in its own "
        "process:\n"
        f"  in memory: {best_memory['actions_per_s']:,.0f} actions/s (best), "
        f"mean action-to-view {best_memory['mean_latency_ms']:.2f} ms\n"
        f"  on Redis:  {best_redis['actions_per_s']:,.0f} actions/s (best), "
        f"mean action-to-view {best_redis['mean_latency_ms']:.2f} ms\n"
        f"  Redis/memory throughput, run by run: {', '.join(f'{r:.2f}' for r in ratios)}\n"
        + "\n".join(runs)
        + "\n"
        f"  persist per action in the server: p50 {1000 * quantile(pooled, 0.5):.3f} ms, "
        f"p99 {1000 * quantile(pooled, 0.99):.3f} ms "
        f"({pooled[-1][1] if pooled else 0:,.0f} writes)\n"
        f"  one writer alone: p50 {1000 * alone[len(alone) // 2]:.3f} ms, "
        f"p99 {1000 * alone[int(len(alone) * 0.99)]:.3f} ms ({len(alone)} appends)"
    )


def _cpu_per_action(run: dict[str, float]) -> float:
    """Microseconds of the server's CPU per game action (the human's and the bots')."""
    return 1e6 * run["server_cpu"] / run["actions_per_s"]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="cardroom bench redis")
    parser.add_argument("--game", choices=("shithead", "sheepshead"), default="sheepshead")
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--level", default="basic", help="level of the four bots per room")
    parser.add_argument("--runs", type=int, default=2, help="runs of each store, alternating")
    parser.add_argument(
        "--redis", help="a Redis to use (the bench writes rooms to it); default: start a local one"
    )
    asyncio.run(_bench(parser.parse_args(argv)))
    return 0
