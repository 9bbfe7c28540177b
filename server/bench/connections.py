"""Memory of a server holding many idle connections, and after they close.

Starts ``cardroom serve`` on a free loopback port (caps raised, hello deadline long), then, for
each round, opens ``--connections`` WebSockets that never say hello, closes them, and prints the
server's resident memory (VmRSS) at each step. ``--no-trim-memory`` runs the server without its
``malloc_trim`` after bursts of closes, to compare.

    python -m server.bench.connections --connections 3000 --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from websockets.asyncio.client import ClientConnection, connect

from server.bench.server import serve_command


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def wait_listening(port: int) -> None:
    async with asyncio.timeout(20):
        while True:
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                await asyncio.sleep(0.05)  # the server process is still starting
                continue
            writer.close()
            return


async def settle(pid: int) -> float:
    """RSS once it has not moved for two seconds (the server trims a second after closes)."""
    last, still = rss_mb(pid), 0
    for _ in range(60):
        await asyncio.sleep(0.5)
        now = rss_mb(pid)
        still = still + 1 if abs(now - last) < 0.5 else 0
        last = now
        if still >= 4:
            break
    return last


async def run(count: int, rounds: int, trim: bool) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 2 * count + 100)), hard))
    port = free_port()
    extra = ["--max-connections", str(2 * count), "--max-per-address", str(2 * count)]
    extra += ["--hello-timeout", "600"]
    if not trim:
        extra.append("--no-trim-memory")
    # Popen returns at once; the server's readiness is awaited below
    proc = subprocess.Popen(  # noqa: ASYNC220
        serve_command(port, *extra), stdout=subprocess.DEVNULL
    )
    try:
        await wait_listening(port)
        url = f"ws://127.0.0.1:{port}/"
        state = "on" if trim else "off"
        print(f"memory trim (gc + malloc_trim): {state}; {count} idle connections a round")
        print(f"baseline           {await settle(proc.pid):7.1f} MB")
        for r in range(1, rounds + 1):
            started = time.perf_counter()
            held: list[ClientConnection] = []
            for i in range(0, count, 200):
                batch = min(200, count - i)
                held += await asyncio.gather(*(connect(url) for _ in range(batch)))
            opened = time.perf_counter() - started
            print(f"round {r}: {len(held)} open  {await settle(proc.pid):7.1f} MB ({opened:.1f} s)")
            await asyncio.gather(*(ws.close() for ws in held))
            held.clear()
            print(f"round {r}: closed     {await settle(proc.pid):7.1f} MB")
    finally:
        proc.terminate()
        proc.wait(10)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.bench.connections")
    parser.add_argument("--connections", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-trim-memory", dest="trim", action="store_false")
    args = parser.parse_args(argv)
    asyncio.run(run(args.connections, args.rounds, args.trim))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
