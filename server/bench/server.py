"""``cardroom bench server``: game actions per second through one real server process.

Starts ``cardroom serve`` as a child process on a loopback port (bots move at once), opens
``--rooms`` rooms, each with one scripted human (a :class:`clients.CardroomClient` in this
process) and bots in the other seats, plays for ``--seconds`` (starting the next game whenever
one ends), then reads the server's own ``/metrics``: accepted actions (human and bot) per second
and the action-to-view latency. Traffic goes to 127.0.0.1 only, and everything stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Sequence
from typing import Any

from clients import CardroomClient, CardroomError
from protocol.messages import GameName


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def serve_command(port: int, *extra: str) -> list[str]:
    """The command line of a quiet ``cardroom serve`` on ``port`` whose bots move at once."""
    return [
        sys.executable,
        "-m",
        "server.cli",
        "serve",
        "--port",
        str(port),
        "--bot-delay",
        "0",
        "--log-level",
        "WARNING",
        *extra,
    ]


def _choose(view: dict[str, Any]) -> dict[str, Any]:
    legal = view["legal"]
    if view["phase"] == "swap":
        return {"kind": "ready"}
    plays = [a for a in legal if a["kind"] == "play"]
    chosen: dict[str, Any] = plays[0] if plays else legal[0]
    return chosen


async def _human(url: str, game: GameName, seats: int, level: str, stop: float) -> int:
    """One room: create, fill with bots, play this seat until ``stop``; return own actions."""
    acted = 0
    async with CardroomClient.connect(url, timeout=30) as me:
        await me.create(game, seats=seats, name="Bench")
        await me.host("fill_bots", level=level)  # type: ignore[arg-type]
        await me.host("start")
        while time.monotonic() < stop:
            state = await me.wait_turn(timeout=30)
            if state.view["phase"] == "over":
                try:
                    await me.host("next_game")
                except CardroomError:  # a finished ten-hand match: open a new room
                    await me.leave()
                    await me.create(game, seats=seats, name="Bench")
                    await me.host("fill_bots", level=level)  # type: ignore[arg-type]
                    await me.host("start")
                await me.wait_state(lambda s: s.view["phase"] != "over", timeout=30)
                continue
            try:
                await me.act(_choose(state.view), version=state.version)
                acted += 1
            except CardroomError as exc:
                if exc.code != "stale_version":
                    raise
    return acted


def _metrics(port: int) -> dict[str, float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        text = r.read().decode()
    out: dict[str, float] = {"actions": 0.0}
    for line in text.splitlines():
        if line.startswith("cardroom_actions_total"):
            out["actions"] += float(line.rsplit(" ", 1)[1])
        m = re.match(r"cardroom_action_to_view_seconds_(sum|count) (\S+)", line)
        if m:
            out[f"latency_{m.group(1)}"] = float(m.group(2))
        m = re.match(r'cardroom_action_to_view_seconds_bucket\{le="([^"]+)"\} (\S+)', line)
        if m:
            out[f"le_{m.group(1)}"] = float(m.group(2))
    return out


async def run_load(
    game: GameName,
    rooms: int,
    seconds: float,
    level: str,
    port: int | None = None,
    *,
    extra: Sequence[str] = (),
    on_done: Callable[[int], object] | None = None,
) -> dict[str, float]:
    """Play the load against a server (``port``: one already running; else one started here
    with ``extra`` arguments); ``on_done(port)`` runs before a started server is stopped."""
    own = port is None
    port = port or free_port()
    # a loopback load test raises the limits that protect a public server
    command = serve_command(
        port,
        "--rate",
        "1000",
        "--burst",
        "1000",
        "--max-per-address",
        str(10 * rooms + 100),
        *extra,
    )
    proc = subprocess.Popen(  # noqa: ASYNC220  # starts at once; the bench waits on its port
        command if own else ["true"],
        stdout=subprocess.DEVNULL,
        preexec_fn=lambda: os.sched_setaffinity(0, {0}),  # the server on CPU 0
    )
    os.sched_setaffinity(0, {1} if (os.cpu_count() or 1) > 1 else {0})
    try:
        url = f"ws://127.0.0.1:{port}/"
        for _ in range(100):
            try:
                await asyncio.to_thread(_metrics, port)
                break
            except OSError:
                await asyncio.sleep(0.1)
        seats = 5
        before = await asyncio.to_thread(_metrics, port)
        start = time.monotonic()
        stop = start + seconds
        humans = await asyncio.gather(
            *(_human(url, game, seats, level, stop) for _ in range(rooms))
        )
        elapsed = time.monotonic() - start
        after = await asyncio.to_thread(_metrics, port)
        if on_done is not None:
            await asyncio.to_thread(on_done, port)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
    count = after.get("latency_count", 0) - before.get("latency_count", 0)
    return {
        "actions_per_s": (after["actions"] - before["actions"]) / elapsed,
        "human_actions_per_s": sum(humans) / elapsed,
        "mean_latency_ms": 1000
        * (after.get("latency_sum", 0) - before.get("latency_sum", 0))
        / max(count, 1),
        "within_5ms": after.get("le_0.005", 0) / max(after.get("latency_count", 1), 1),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="cardroom bench server")
    parser.add_argument("--game", choices=("shithead", "sheepshead"), default="sheepshead")
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--level", default="basic", help="level of the four bots per room")
    parser.add_argument(
        "--port",
        type=int,
        help="use a server already running here "
        "(started with --bot-delay 0) instead of starting one",
    )
    args = parser.parse_args(argv)
    r = asyncio.run(run_load(args.game, args.rooms, args.seconds, args.level, args.port))
    print(
        f"server, {args.game}: {args.rooms} rooms x (1 scripted human + 4 {args.level} bots), "
        f"{args.seconds:.0f} s, server in its own process:\n"
        f"  {r['actions_per_s']:,.0f} actions/s accepted ({r['human_actions_per_s']:,.0f}/s "
        f"by the humans), mean action-to-view {r['mean_latency_ms']:.2f} ms, "
        f"{r['within_5ms']:.0%} within 5 ms"
    )
    return 0
