"""What one idle connection holds in the server: ``python -m server.tools.bench.idle_memory``.

The server runs in this process under ``tracemalloc``; a load worker process (so that the
clients' own memory is not traced) opens ``--connections`` idle connections (hello, then
nothing) after a warm-up round of the same size (caches and free lists filled first). The
difference of two snapshots, each after a full collection, divided by the number of
connections, is printed by allocation site: the bytes of Python objects each connection
keeps alive, and from where. (RSS per connection is larger: allocator overhead and
memory outside Python's allocator, such as the event loop's own buffers, are not traced.)

    python -m server.tools.bench.idle_memory --connections 2000 --top 25
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import tracemalloc
from dataclasses import dataclass

from server.net.server import CardroomServer, ServerConfig
from server.tools.bench import procs
from server.tools.bench.drive import RoomSpec
from server.tools.bench.workers import Job, Workers, run


async def _round(url: str, connections: int) -> Workers:
    workers = Workers([Job(0, url, RoomSpec("sheepshead", 5, 5), connections=connections)])
    held, failed, _ = (await asyncio.to_thread(workers.receive, 300.0))[0]
    if failed or held != connections:
        raise SystemExit(f"{failed} of {connections} connections failed")
    return workers


async def _release(workers: Workers) -> None:
    workers.send("stop")
    await asyncio.to_thread(workers.receive, 120.0)
    await asyncio.to_thread(workers.stop)


@dataclass
class Held:
    """What ``connections`` idle connections kept alive in the server."""

    connections: int
    traced: int  # bytes of Python objects, all connections
    blocks: int
    rss: int  # growth of the process's RSS (tracemalloc's own memory included)
    sites: list[tuple[str, int, int]]  # allocation site, bytes, blocks (largest first)
    left: int = 0  # bytes of Python objects still alive once they all closed (and a collection)
    rss_left: int = 0  # RSS growth still there then (what the allocator kept)

    @property
    def per_connection(self) -> float:
        return self.traced / self.connections

    def lines(self, top: int) -> list[str]:
        n = self.connections
        out = [
            f"{n:,} idle connections: {self.traced / n:,.0f} B of traced Python objects each, "
            f"{self.blocks / n:.1f} blocks; RSS {self.rss / n / 1024:.1f} KiB each "
            "(tracemalloc's own included)",
            f"after they closed: {self.left:,} B of traced objects left in all "
            f"({self.left / n:,.0f} B a connection), RSS {self.rss_left / 1024 / 1024:+.1f} MB",
            "  bytes per connection, by where they were allocated:",
        ]
        for site, size, count in self.sites[:top]:
            out.append(f"  {size / n:8.0f} B  {count / n:5.1f} blocks  {site}")
        return out


async def measure(connections: int, frames: int = 1) -> Held:
    config = ServerConfig(
        port=0,
        max_connections=connections + 100,
        max_per_address=connections + 100,
        max_handshakes_per_address=connections + 100,
    )
    async with CardroomServer(config) as server:
        await _release(await _round(server.url, connections))  # warm-up
        await asyncio.sleep(2.0)  # the closes' trim
        tracemalloc.start(frames)
        gc.collect()
        before = tracemalloc.take_snapshot()
        rss0 = procs.rss_bytes(os.getpid())
        workers = await _round(server.url, connections)
        gc.collect()
        after = tracemalloc.take_snapshot()
        rss1 = procs.rss_bytes(os.getpid())
        await _release(workers)
        for _ in range(1200):  # every close seen by the server (a minute at most)
            if not server.connected.sockets:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(2.0)  # the closes' trim
        gc.collect()
        closed = tracemalloc.take_snapshot()
        rss2 = procs.rss_bytes(os.getpid())
        tracemalloc.stop()
    keep = [tracemalloc.Filter(False, tracemalloc.__file__)]
    stats = after.filter_traces(keep).compare_to(before.filter_traces(keep), "lineno")
    left = closed.filter_traces(keep).compare_to(before.filter_traces(keep), "lineno")
    sites = [
        (
            f"{s.traceback[0].filename.rsplit('site-packages/', 1)[-1]}:{s.traceback[0].lineno}",
            s.size_diff,
            s.count_diff,
        )
        for s in stats
    ]
    return Held(
        connections,
        sum(s.size_diff for s in stats),
        sum(s.count_diff for s in stats),
        rss1 - rss0,
        sites,
        sum(s.size_diff for s in left),
        rss2 - rss0,
    )


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m server.tools.bench.idle_memory")
    p.add_argument("--connections", type=int, default=2000)
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--frames", type=int, default=1, help="traceback depth kept by tracemalloc")
    args = p.parse_args()
    for line in run(measure(args.connections, args.frames)).lines(args.top):
        print(line)


if __name__ == "__main__":
    main()
