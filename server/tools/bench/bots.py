"""``cardroom bench bots``: does one room's slow bots hurt another's, and do closed rooms leave
bot memory behind? Against one real ``cardroom serve`` process on loopback.

Fairness: ``--flood`` Sheepshead rooms whose four bots are ``expert`` (their creator sits idle:
a one-second turn timer lets a stand-in play for them) run beside one victim room of four
``strong`` bots whose human acts at once. The victim's bot latency is timed from the state that
asks a bot to move to the state after its move (bots move at once: ``--bot-delay 0``);
fallbacks are the server's own "basic answers" warnings, by level. A flood room's creator fills
as many expert seats as the server allows (``expert_limit``), the rest ``basic``.

Memory: ``--rooms`` rooms of four ``strong`` bots each play until every bot has moved, and
close (``--idle-timeout``); the bot workers' resident memory (every child of the server) before
and after, and the bot states the open rooms hold (``/metrics``, where the server has them).

Everything runs on 127.0.0.1 and stops by itself (``--seconds``, and a bound per wait); the
load generator's own CPU time is printed with the figures. ``--server-arg`` passes arguments to
``cardroom serve``; ``--code DIR`` runs the server from another checkout (``PYTHONPATH``), to
measure an older version with the same load.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import subprocess
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from clients import CardroomClient, CardroomError
from protocol.messages import State
from server.tools.bench.procs import (
    RAISED_LIMITS,
    cpu_seconds,
    free_port,
    rss_bytes,
    serve_command,
    start,
    wait_http,
)
from server.tools.bench.procs import stop as stop_proc

_FALLBACK = re.compile(r"\b(random|basic|strong|expert)\b.*basic answers")


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def _tree_cpu(pid: int) -> float:
    return cpu_seconds(pid) + sum(cpu_seconds(c) for c in _children(pid))


def _wait_quantiles(port: int, level: str) -> tuple[float, float] | None:
    """The p50 and p99 bounds (ms) of ``cardroom_bot_wait_seconds``: how long requests waited
    for a worker, apart from how long they thought (``None``: a server without it)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        text = r.read().decode()
    buckets = [
        (float(m.group(1)), float(m.group(2)))
        for m in re.finditer(
            r'cardroom_bot_wait_seconds_bucket\{le="([^"]+)",level="' + level + r'"\} (\S+)', text
        )
    ]
    if not buckets or buckets[-1][1] == 0:
        return None
    total = buckets[-1][1]
    p50 = next(b for b, n in buckets if n >= 0.5 * total)
    p99 = next(b for b, n in buckets if n >= 0.99 * total)
    return 1000 * p50, 1000 * p99


def _metric(port: int, name: str) -> float | None:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        for line in r.read().decode().splitlines():
            if line.startswith(name + " ") or line.startswith(name + "{"):
                return float(line.rsplit(" ", 1)[1])
    return None


async def _fill(client: CardroomClient, level: str) -> None:
    """Every empty seat a ``level`` bot, or as many as the room allows and the rest basic."""
    try:
        await client.host("fill_bots", level=level)  # type: ignore[arg-type]
    except CardroomError as exc:
        if exc.code != "expert_limit":
            raise
        for seat in range(1, 5):
            try:
                await client.host("add_bot", seat=seat, level=level)  # type: ignore[arg-type]
            except CardroomError as refused:
                if refused.code != "expert_limit":
                    raise
                await client.host("add_bot", seat=seat, level="basic")


async def play_room(
    url: str,
    level: str,
    stop: Callable[[], bool],
    *,
    act: bool,
    turn_timer: int | None = None,
    on_state: Callable[[State, float], None] | None = None,
    until_version: int | None = None,
    local: str | None = None,
) -> None:
    """One Sheepshead room of four ``level`` bots and its creator, hands dealt one after
    another until ``stop()`` (or ``until_version``); the creator acts at once if ``act``
    (``local``: the loopback address its connection comes from, such as ``127.0.0.2``)."""
    options: dict[str, Any] = {} if local is None else {"local_addr": (local, 0)}
    async with CardroomClient.connect(url, timeout=60, **options) as client:
        await client.create("sheepshead", seats=5, name="P", turn_timer=turn_timer)
        await _fill(client, level)
        await client.host("start")
        async for msg in client.messages():
            if not isinstance(msg, State):
                continue
            if on_state is not None:
                on_state(msg, time.monotonic())
            if stop() or (until_version is not None and msg.version >= until_version):
                return
            view = msg.view
            try:
                if view["phase"] == "over":
                    await client.host("next_game")
                elif act and 0 in view["to_act"] and view["legal"]:
                    await client.act(view["legal"][0], version=msg.version)
            except CardroomError as exc:
                if exc.code in ("match_over", "not_between_games"):
                    return
                # stale_version: a newer state is on its way


class _Victim:
    """Times each bot move of the victim room from the state that asked for it."""

    def __init__(self) -> None:
        self.asked: tuple[int, float] | None = None
        self.latencies: list[float] = []

    def on_state(self, state: State, now: float) -> None:
        if self.asked is not None and state.version > self.asked[0]:
            self.latencies.append(now - self.asked[1])
            self.asked = None
        to_act = state.view["to_act"]
        if state.view["phase"] != "over" and to_act and to_act[0] != 0:
            self.asked = (state.version, now)


def _start_server(
    port: int, extra: list[str], code: str | None, log: Path
) -> subprocess.Popen[bytes]:
    env = {} if code is None else {"PYTHONPATH": code}
    with open(log, "wb") as err:
        proc = start(serve_command(port, *RAISED_LIMITS, *extra), stderr=err, env=env, cwd=code)
    wait_http(port)
    return proc


async def fairness(args: argparse.Namespace) -> dict[str, Any]:
    port = free_port()
    url = f"ws://127.0.0.1:{port}/"
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "server.log"
        proc = _start_server(port, list(args.server_arg), args.code, log)
        try:
            # warm the workers first: a worker's start is not a decision's wait
            await asyncio.wait_for(
                play_room(url, "strong", lambda: False, act=True, until_version=6), 60
            )
            log.write_bytes(b"")
            victim = _Victim()
            ends: float = time.monotonic() + float(args.seconds)

            def over() -> bool:
                return time.monotonic() > ends

            cpu0, server0 = time.process_time(), _tree_cpu(proc.pid)
            floods = [
                play_room(url, "expert", over, act=False, turn_timer=1) for _ in range(args.flood)
            ]
            mine = play_room(url, "strong", over, act=True, on_state=victim.on_state)
            await asyncio.wait_for(asyncio.gather(*floods, mine), args.seconds + 120)
            cpu, server_cpu = time.process_time() - cpu0, _tree_cpu(proc.pid) - server0
            waits = _wait_quantiles(port, "strong")
        finally:
            stop_proc(proc)
        fallbacks = Counter(
            m.group(1) for line in log.read_text().splitlines() if (m := _FALLBACK.search(line))
        )
    lat = sorted(victim.latencies)
    return {
        "victim_moves": len(lat),
        "victim_p50_ms": 1000 * statistics.median(lat) if lat else float("nan"),
        "victim_p99_ms": 1000 * lat[min(len(lat) - 1, int(0.99 * len(lat)))]
        if lat
        else float("nan"),
        "victim_max_ms": 1000 * lat[-1] if lat else float("nan"),
        "strong_wait_p50_ms_at_most": waits[0] if waits else None,
        "strong_wait_p99_ms_at_most": waits[1] if waits else None,
        "fallbacks_strong": fallbacks["strong"],
        "fallbacks_expert": fallbacks["expert"],
        "server_cpu_s": server_cpu,
        "generator_cpu_s": cpu,
    }


async def memory(args: argparse.Namespace) -> dict[str, Any]:
    port = free_port()
    url = f"ws://127.0.0.1:{port}/"
    with tempfile.TemporaryDirectory() as tmp:
        extra = ["--idle-timeout", "0.5", *args.server_arg]
        proc = _start_server(port, extra, args.code, Path(tmp) / "server.log")
        try:
            await asyncio.wait_for(
                play_room(url, "strong", lambda: False, act=True, until_version=8), 60
            )
            await _rooms_closed(port)
            before = sum(rss_bytes(c) for c in _children(proc.pid))
            cpu0 = time.process_time()
            gate = asyncio.Semaphore(args.parallel)

            async def one() -> None:
                async with gate:
                    await play_room(url, "strong", lambda: False, act=True, until_version=8)

            await asyncio.wait_for(asyncio.gather(*(one() for _ in range(args.rooms))), 600)
            await _rooms_closed(port)
            after = sum(rss_bytes(c) for c in _children(proc.pid))
            states = _metric(port, "cardroom_bot_states")
            state_bytes = _metric(port, "cardroom_bot_state_bytes")
            cpu = time.process_time() - cpu0
        finally:
            stop_proc(proc)
    return {
        "rooms": args.rooms,
        "workers_rss_before_mb": before / 2**20,
        "workers_rss_after_mb": after / 2**20,
        "workers_rss_growth_kb_per_room": (after - before) / 1024 / args.rooms,
        "states_held_after_close": states,
        "state_bytes_held_after_close": state_bytes,
        "generator_cpu_s": cpu,
    }


async def _rooms_closed(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while _metric(port, "cardroom_rooms") != 0:
        if time.monotonic() > deadline:
            raise TimeoutError("rooms did not close")
        await asyncio.sleep(0.2)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="cardroom bench bots", description=__doc__)
    parser.add_argument("what", choices=("fairness", "memory", "both"), nargs="?", default="both")
    parser.add_argument("--flood", type=int, default=3, help="rooms of expert bots")
    parser.add_argument("--seconds", type=float, default=40.0, help="length of the fairness run")
    parser.add_argument("--rooms", type=int, default=60, help="rooms opened and closed (memory)")
    parser.add_argument("--parallel", type=int, default=6, help="rooms open at once (memory)")
    parser.add_argument("--server-arg", action="append", default=[], help="for cardroom serve")
    parser.add_argument("--code", default=None, help="run the server from this checkout")
    args = parser.parse_args(argv)
    print(f"cardroom serve {' '.join(args.server_arg)} (code: {args.code or 'this checkout'})")
    parts = {"fairness": fairness, "memory": memory}
    for name, part in parts.items():
        if args.what in (name, "both"):
            for key, value in asyncio.run(part(args)).items():
                shown = f"{value:.3f}" if isinstance(value, float) else str(value)
                print(f"{name:9}{key:32} {shown}")
    return 0
