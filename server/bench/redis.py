"""``cardroom bench redis``: what persisting every action in Redis costs.

In one run, the same load as ``cardroom bench server`` (one scripted human and four bots per
room, bots moving at once) goes through ``cardroom serve`` twice: first with the in-memory store,
then with ``--redis`` on a local ``redis-server`` (append-only file on, ``appendfsync everysec``,
as in docker-compose.yml). It prints both throughputs, their ratio, and the time one action's
persist took in the server (from its ``cardroom_persist_seconds`` histogram: p50 and p99,
interpolated within buckets). Everything runs on 127.0.0.1 and stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import tempfile
import urllib.request
from pathlib import Path

from server.bench.server import run_load

PERSIST = "cardroom_persist_seconds"


def persist_buckets(port: int) -> list[tuple[float, float]]:
    """``(upper bound, cumulative count)`` of the server's persist-time histogram."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        text = r.read().decode()
    out = []
    for m in re.finditer(rf'^{PERSIST}_bucket\{{[^}}]*le="([^"]+)"[^}}]*\}} (\S+)$', text, re.M):
        out.append((float(m.group(1)), float(m.group(2))))
    return sorted(out)


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


async def _bench(args: argparse.Namespace) -> None:
    from server.bench.redis_server import RedisServer

    memory = await run_load(args.game, args.rooms, args.seconds, args.level)
    with tempfile.TemporaryDirectory() as tmp:
        url = args.redis
        server = None
        if url is None:
            server = RedisServer(Path(tmp), fsync="everysec")
            server.start()
            url = server.url
        try:
            buckets: list[tuple[float, float]] = []
            redis = await run_load(
                args.game,
                args.rooms,
                args.seconds,
                args.level,
                extra=("--redis", url),
                on_done=lambda port: buckets.extend(persist_buckets(port)),
            )
        finally:
            if server is not None:
                server.stop()
    ratio = redis["actions_per_s"] / memory["actions_per_s"]
    print(
        f"redis, {args.game}: {args.rooms} rooms x (1 scripted human + 4 {args.level} bots), "
        f"{args.seconds:.0f} s each, server in its own process:\n"
        f"  in memory: {memory['actions_per_s']:,.0f} actions/s, "
        f"mean action-to-view {memory['mean_latency_ms']:.2f} ms\n"
        f"  on Redis:  {redis['actions_per_s']:,.0f} actions/s, "
        f"mean action-to-view {redis['mean_latency_ms']:.2f} ms\n"
        f"  Redis/memory throughput: {ratio:.2f}\n"
        f"  persist per action: p50 {1000 * quantile(buckets, 0.5):.3f} ms, "
        f"p99 {1000 * quantile(buckets, 0.99):.3f} ms "
        f"({buckets[-1][1] if buckets else 0:,.0f} writes)"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="cardroom bench redis")
    parser.add_argument("--game", choices=("shithead", "sheepshead"), default="sheepshead")
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--level", default="basic", help="level of the four bots per room")
    parser.add_argument(
        "--redis", help="a Redis to use (the bench writes rooms to it); default: start a local one"
    )
    asyncio.run(_bench(parser.parse_args(argv)))
    return 0
