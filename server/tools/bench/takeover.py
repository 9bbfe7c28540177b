"""``cardroom bench takeover``: how long a room is unreachable after its owner process dies.

Two ``cardroom serve --redis`` processes share a local ``redis-server`` (``--cluster``: a local
three-master Redis Cluster). Each run: a player on
process A opens a Shithead room and starts it (A owns the room), a player on process B joins it
(B forwards to A); A is killed with SIGKILL; the player on B resumes with its token as soon as B
tells it to, and the time from the kill to the ``joined`` answer is the takeover time (A's
lease must run out first: at most ``LEASE_TTL``). A fresh A is started for the next run.
Everything runs on 127.0.0.1 and stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import tempfile
import time
from pathlib import Path

from clients import CardroomClient
from server.store.lease import LEASE_TTL
from server.tools.bench.procs import free_port, serve_process


async def _one(url: str, port_b: int) -> float:
    port_a = free_port()
    async with (
        serve_process(port_a, "--redis", url) as a,
        CardroomClient.connect(f"ws://127.0.0.1:{port_a}/") as ann,
        CardroomClient.connect(f"ws://127.0.0.1:{port_b}/") as bob,
    ):
        await ann.create("shithead", seats=3, name="Ann")
        assert ann.room is not None
        await bob.join(ann.room, name="Bob")
        await ann.host("start")
        await bob.wait_state(timeout=10)
        token = bob.token
        assert token is not None
        a.kill()
        killed = time.monotonic()
        await bob.wait_for(lambda msg: msg.type == "closing", timeout=30)
        await bob.resume(ann.room, token, timeout=30)
        return time.monotonic() - killed


async def _bench(runs: int, cluster: bool) -> list[float]:
    from server.tools.bench.redis_cluster import RedisCluster
    from server.tools.bench.redis_server import RedisServer

    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        redis: RedisServer | RedisCluster
        if cluster:
            redis = stack.enter_context(RedisCluster(Path(tmp), fsync="everysec"))
        else:
            redis = stack.enter_context(RedisServer(Path(tmp), fsync="everysec"))
        port_b = free_port()
        async with serve_process(port_b, "--redis", redis.url) as b:
            try:
                return [await _one(redis.url, port_b) for _ in range(runs)]
            finally:
                b.terminate()
                await b.wait()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="cardroom bench takeover")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument(
        "--cluster", action="store_true", help="on a local three-master Redis Cluster"
    )
    args = parser.parse_args(argv)
    times = asyncio.run(_bench(args.runs, args.cluster))
    where = "a three-master Redis Cluster" if args.cluster else "one Redis"
    print(
        f"takeover after SIGKILL of a room's owner on {where} (lease {LEASE_TTL:.0f} s, "
        f"renewed every {LEASE_TTL / 3:.1f} s), {len(times)} runs: "
        f"median {statistics.median(times):.2f} s, best {min(times):.2f} s, "
        f"worst {max(times):.2f} s"
    )
    return 0
