"""boardgame.io measured in the same run as Cardroom (``cardroom loadtest --bgio DIR``).

``DIR`` is a folder holding the boardgame.io peer (its ``server.js`` and ``load.js``, with
``npm install`` done there; the peer is not part of this repository). Its server runs pinned to
the same CPU as ours and its load generator to the same CPU as ours, with the same rooms of five
and the same measured seconds; its server's RSS is read while the load runs.
"""

from __future__ import annotations

import asyncio
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from server.tools.bench import procs

_LINE = re.compile(
    r"rooms=(?P<rooms>\d+) clients=(?P<clients>\d+): (?P<moves>[\d.]+) moves/s, "
    r"move->view p50 (?P<p50>[\d.]+) ms p99 (?P<p99>[\d.]+) ms"
)


@dataclass
class PeerFigures:
    rooms: int
    clients: int
    moves_per_s: float
    p50_ms: float
    p99_ms: float
    server_rss: int
    server_cpu: float  # share of one core over the load's run
    line: str

    def lines(self) -> list[str]:
        return [
            f"boardgame.io (peer), {self.rooms} rooms x 5 clients, {self.clients} clients:",
            f"  accepted moves     {self.moves_per_s:>9,.0f}/s",
            f"  move -> own view   p50 {self.p50_ms:.1f} ms  p99 {self.p99_ms:.1f} ms",
            f"  server RSS         {self.server_rss / 2**20:9.1f} MB (largest seen in the run)",
            f"  CPU (one core=100%) server {self.server_cpu:.0%} over the whole load run, about "
            f"{self.server_cpu / max(self.moves_per_s, 1e-9) * 1e6:,.0f} µs per move",
        ]


async def measure(
    folder: Path, rooms: int, seconds: float, server_cpu: int | None, load_cpu: int | None
) -> tuple[PeerFigures, list[str]]:
    node = shutil.which("node")
    if node is None:
        raise SystemExit("--bgio: node is not installed")
    port = procs.free_port()
    serve = procs.pinned([node, "server.js", str(port)], server_cpu)
    load = procs.pinned([node, "load.js", str(port), str(rooms), f"{seconds:g}"], load_cpu)
    notes = [f"peer: (cd {folder} && {' '.join(serve)}) and {' '.join(load)}"]
    server = await asyncio.create_subprocess_exec(
        *serve, cwd=folder, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL
    )
    try:
        await asyncio.to_thread(procs.wait_port, port)
        cpu0 = procs.cpu_seconds(server.pid)
        clock = asyncio.get_running_loop().time
        start = clock()
        loader = await asyncio.create_subprocess_exec(
            *load, cwd=folder, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
        )
        done = asyncio.ensure_future(loader.communicate())
        rss = 0
        while not done.done():
            rss = max(rss, procs.rss_bytes(server.pid))
            await asyncio.wait({done}, timeout=0.5)
        output, _ = done.result()
        cpu = (procs.cpu_seconds(server.pid) - cpu0) / (clock() - start)
    finally:
        if server.returncode is None:
            server.terminate()
            await server.wait()
    text = output.decode(errors="replace")
    found = _LINE.search(text)
    if found is None:
        raise SystemExit(f"--bgio: unexpected output from load.js: {text[-500:]}")
    figures = PeerFigures(
        rooms=int(found["rooms"]),
        clients=int(found["clients"]),
        moves_per_s=float(found["moves"]),
        p50_ms=float(found["p50"]),
        p99_ms=float(found["p99"]),
        server_rss=rss,
        server_cpu=cpu,
        line=found.group(0),
    )
    return figures, notes
