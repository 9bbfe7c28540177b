"""Scale-out, side by side in one run (rooms on the process their code hashes to): the same rooms of
scripted humans playing as fast as the rules allow against

- ``one``: one ``cardroom serve --redis``, clients straight to it (at ``/``);
- ``least_conn``: the repository's nginx in front of two ``--redis`` processes, every WebSocket
  to the process with the fewest connections, clients at ``/`` (the older deployment);
- ``by_room``: the same two processes behind ``deploy/nginx.conf`` as it is, clients at ``/ws``
  that follow their room to ``/ws/CODE`` (``moved``), as the web and Python clients do.

Each topology gets a fresh Redis. Printed per topology: accepted actions a second, act → own
view p50/p99, the fraction of frames relayed through Redis pub/sub (from the processes'
``/metrics``), the servers' CPU per accepted action summed over the processes, and create →
first state (a room made, filled with a bot and started; the host at the room's address).
The operating system places every process on the two cores (``--pin``: the servers one a core,
with ``taskset``; nginx, Redis and this load generator float either way). All traffic is on
loopback and the run stops by itself::

    python -m server.tools.bench.scaleout --rooms 20 --humans 5 --seconds 10
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clients import CardroomClient
from server.tools.bench import procs
from server.tools.bench.drive import RoomSpec, run_rooms
from server.tools.bench.proxy import Nginx, nginx_conf
from server.tools.bench.redis_server import RedisServer
from server.tools.bench.tally import Tally

ROOT = Path(__file__).resolve().parents[3]
TOPOLOGIES = ("one", "least_conn", "by_room")


@dataclass
class Figures:
    topology: str
    actions: float  # accepted a second
    p50_ms: float
    p99_ms: float
    relayed: float  # share of the frames sent that went through Redis pub/sub
    forwarded: int  # client messages forwarded to another process
    cpu_ms: float  # server CPU per accepted action, summed over the processes
    load_cpu: float  # this load generator's CPU share in the window
    create_p50_ms: float
    create_p99_ms: float
    stalls: int  # rooms that stopped moving for 10 s in the window

    def line(self) -> str:
        return (
            f"{self.topology:<10} {self.actions:8.0f} {self.p50_ms:7.1f} {self.p99_ms:7.1f} "
            f"{100 * self.relayed:8.1f} % {self.forwarded:9d} {self.cpu_ms:10.3f} "
            f"{100 * self.load_cpu:6.0f} % {self.create_p50_ms:8.1f} {self.create_p99_ms:8.1f} "
            f"{self.stalls:6d}"
        )


HEADER = (
    f"{'topology':<10} {'act/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'relayed':>10} "
    f"{'forwarded':>9} {'CPU ms/act':>10} {'load CPU':>8} {'create→state p50':>8} {'p99':>8} "
    f"{'stalls':>6}"
)


def metric(port: int, name: str) -> float:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        body = r.read().decode()
    found = re.search(rf"^{re.escape(name)} (\S+)$", body, re.M)
    return float(found[1]) if found else 0.0


class Counts:
    """The processes' CPU time and pub/sub counts at the start of the window, then its deltas."""

    NAMES = (
        "cardroom_frames_sent_total",
        "cardroom_relayed_frames_total",
        'cardroom_forwarded_messages_total{direction="out"}',
    )

    def __init__(self, servers: list[tuple[int, int]]) -> None:
        self.servers = servers  # (port, pid)
        self.start: list[float] = []
        self.delta: list[float] = []

    def read(self) -> list[float]:
        cpu = sum(procs.cpu_seconds(pid) for _, pid in self.servers)
        return [cpu, *(sum(metric(port, n) for port, _ in self.servers) for n in self.NAMES)]

    def window(self, opening: bool) -> None:
        if opening:
            self.start = self.read()
        else:
            self.delta = [b - a for a, b in zip(self.start, self.read(), strict=True)]


@contextlib.contextmanager
def topology(
    name: str, directory: Path, servers: int, pin: bool = False, extra: Sequence[str] = ()
) -> Iterator[tuple[str, list[Any]]]:
    """Redis, ``servers`` processes (``pin``: one a core; ``extra``: more ``cardroom serve``
    flags), and nginx for two: the base URL of the clients and the server processes."""
    (directory / "redis").mkdir(parents=True)
    with contextlib.ExitStack() as stack, RedisServer(directory / "redis", fsync="everysec") as r:
        running = []
        for i in range(servers):
            port = procs.free_port()
            command = procs.serve_command(port, "--redis", r.url, *procs.RAISED_LIMITS, *extra)
            log = stack.enter_context(open(directory / f"serve-{i}.log", "wb"))
            command = procs.pinned(command, i % 2 if pin else None)
            proc = procs.start(command, stderr=log, cwd=str(ROOT))
            stack.callback(procs.stop, proc)
            procs.wait_http(port, proc=proc)
            running.append((port, proc))
        if servers == 1:
            yield f"ws://127.0.0.1:{running[0][0]}", running
            return
        site = (ROOT / "deploy" / "nginx.conf").read_text()
        if name == "least_conn":  # every request to the least_conn upstream: as before
            site = site.replace("proxy_pass http://$cardroom;", "proxy_pass http://cardroom;")
        listen = procs.free_port()
        conf = nginx_conf(site, directory / "nginx", listen, [p for p, _ in running])
        stack.enter_context(Nginx(directory / "nginx", conf))
        procs.wait_http(listen)
        yield f"ws://127.0.0.1:{listen}", running


async def creates(base: str, follow: bool, count: int) -> list[float]:
    """Seconds from sending ``create`` to the first ``state`` of the started room, for
    ``count`` rooms made one after another."""
    took = []
    for _ in range(count):
        async with CardroomClient.connect(f"{base}/ws" if follow else f"{base}/") as host:
            start = time.perf_counter()
            await host.create("shithead", seats=2, name="Ann")  # resumed there if moved
            await host.host("fill_bots", level="random")
            await host.host("start")
            await host.wait_state()
            took.append(time.perf_counter() - start)
    return took


async def measure(name: str, args: argparse.Namespace, directory: Path) -> Figures:
    follow = name == "by_room"
    with topology(name, directory, 1 if name == "one" else 2, args.pin) as (base, running):
        counts = Counts([(port, proc.pid) for port, proc in running])
        spec = RoomSpec("shithead", args.humans, args.humans)
        tally = Tally()
        # by room: hosts create at /ws (the room is let go for its address, and each host
        # follows it there: drive.Room); otherwise the bare / as before room addresses
        window = await run_rooms(
            f"{base}/ws" if follow else f"{base}/",
            spec,
            args.rooms,
            tally,
            warmup=args.warmup,
            seconds=args.seconds,
            compression=None,
            on_window=counts.window,
        )
        # after the window: these rooms play on with bots, which would count in the window
        create_times = await creates(base, follow, args.creates)
    cpu, sent, relayed, forwarded = counts.delta
    accepted = max(tally.accepted, 1)
    return Figures(
        name,
        tally.accepted / window.seconds,
        1000 * tally.percentile(tally.latencies, 0.5),
        1000 * tally.percentile(tally.latencies, 0.99),
        relayed / sent if sent else 0.0,
        int(forwarded),
        1000 * cpu / accepted,
        window.load_cpu / window.seconds,
        1000 * Tally.percentile(create_times, 0.5),
        1000 * Tally.percentile(create_times, 0.99),
        tally.stalls,
    )


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m server.tools.bench.scaleout")
    p.add_argument("--rooms", type=int, default=20)
    p.add_argument("--humans", type=int, default=5, help="scripted humans a room (2-5)")
    p.add_argument("--warmup", type=float, default=3.0)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--only", choices=TOPOLOGIES, action="append", help="run just these")
    p.add_argument("--creates", type=int, default=20, help="rooms made for create → state")
    p.add_argument("--rounds", type=int, default=1, help="every topology again, in turn")
    p.add_argument("--pin", action="store_true", help="the servers one a core (taskset)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    print(HEADER)
    with tempfile.TemporaryDirectory(prefix="scaleout-") as tmp:
        for round_ in range(args.rounds):
            for name in args.only or TOPOLOGIES:
                figures = asyncio.run(measure(name, args, Path(tmp) / f"{name}-{round_}"))
                print(figures.line(), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
