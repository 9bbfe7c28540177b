"""What the history API costs a server, measured on loopback: why the API has budgets.

One closed 2-seat Shithead room whose history holds ``--games`` finished games (about 680
actions each, like a long series of 14 games of 9,506 actions) is written straight into a
throwaway Redis; one ``cardroom serve --redis`` process serves it. The script reports the
biggest history response a client can ask for, then sends ``--concurrent`` requests for one
game's steps each (spread over the room's games, all but the longest not yet replayed) at once
while it polls ``/healthz`` every 10 ms, and reports how long the server stayed
busy, the ``/healthz`` latencies, the statuses the requests got and the server's RSS growth;
then how many room codes one address can walk through the API in 3 s.

Bounded: every request has a timeout and the whole run stops after ``--deadline`` seconds.
Run it against another checkout with ``--root`` (its ``cardroom serve``, this script's games)::

    python -m server.tools.bench.history_cost                  # this checkout, default limits
    python -m server.tools.bench.history_cost --root /work/main
    python -m server.tools.bench.history_cost -- --history-rate 1000 --history-burst 1000
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from server.rules.base import Action
from server.rules.shithead import MAX_PLAY_ACTIONS, Shithead
from server.store.history import history_item
from server.tools.bench.procs import RAISED_LIMITS, free_port, rss_bytes, start, stop, wait_http
from server.tools.bench.redis_server import RedisServer

CODE = "HCOST"


def long_games(count: int, seed: int = 0) -> list[dict[str, Any]]:
    """``count`` finished 2-seat games of 500 to 900 actions each, random play (seeded); each
    ends by SH-6.4, so it replays the same under rules with or without SH-6.6."""
    rng = random.Random(seed)
    items: list[dict[str, Any]] = []
    while len(items) < count:
        game = Shithead.new(2, dealer=0, seed=rng.getrandbits(32))
        for seat in (0, 1):
            game.apply(seat, Action("ready"))
        while not game.is_over() and len(game.log) < MAX_PLAY_ACTIONS:
            seat = game.turn
            game.apply(seat, rng.choice(game.legal_actions(seat)))
        outcome = game.outcome()
        if outcome is not None and outcome.ended == "last_player" and 500 <= len(game.log) <= 900:
            items.append(history_item(len(items), game, ["Ann", "Bob"]))
    return items


def _longest_first(items: list[dict[str, Any]]) -> list[int]:
    return sorted(range(len(items)), key=lambda i: -len(items[i]["log"]))


async def _fetch(port: int, path: str, timeout: float) -> tuple[int, int]:
    """(status, body bytes) of one GET over a fresh connection, on this event loop (no
    threads: the load generator's own GIL stays out of the latencies); status 0: dropped."""
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            body = await reader.readexactly(length)
            writer.close()
            return status, len(body)
    except (OSError, TimeoutError, asyncio.IncompleteReadError, ValueError, IndexError):
        return 0, 0


async def _measure(port: int, pid: int, paths: list[str], concurrent: int, deadline: float) -> None:
    sizes = {p: await _fetch(port, p, deadline) for p in paths[:3]}
    for path, (status, size) in sizes.items():
        print(f"  {path}: HTTP {status}, {size / 1e6:.2f} MB")
    biggest = max(sizes, key=lambda p: sizes[p][1] if sizes[p][0] == 200 else -1)
    print(f"biggest response: {sizes[biggest][1] / 1e6:.2f} MB ({biggest})")
    await asyncio.sleep(2.0)  # the refill of the budget the probes used
    rss0 = rss_bytes(pid)
    latencies: list[float] = []
    peak = rss0
    done = asyncio.Event()

    async def poll() -> None:
        nonlocal peak
        while not done.is_set():
            t0 = time.perf_counter()
            await _fetch(port, "/healthz", deadline)
            latencies.append(time.perf_counter() - t0)
            peak = max(peak, rss_bytes(pid))
            await asyncio.sleep(0.01)

    poller = asyncio.create_task(poll())
    t0 = time.perf_counter()
    # the requests spread over every game (an old server answers each with all of them)
    games = [p for p in paths if "game=" in p]
    spread = [games[i % len(games)] for i in range(concurrent)]
    answers = await asyncio.gather(*(_fetch(port, path, deadline) for path in spread))
    busy = time.perf_counter() - t0
    done.set()
    await poller
    statuses: dict[int, int] = {}
    for status, _ in answers:
        statuses[status] = statuses.get(status, 0) + 1
    print(
        f"{concurrent} concurrent requests: all back in {busy:.2f} s, "
        f"statuses {statuses} (0: dropped unanswered)"
    )
    print(
        f"/healthz while they ran: {len(latencies)} polls, "
        f"p50 {statistics.median(latencies) * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms"
    )
    grew = (peak - rss0) / 1e6
    print(f"RSS: {rss0 / 1e6:.1f} MB before, peak {peak / 1e6:.1f} MB (+{grew:.1f} MB)")


async def _enumerate(port: int, seconds: float) -> None:
    """How fast one address can walk room codes through the history API (the rate limit bounds
    the walk)."""
    await asyncio.sleep(10.0)  # the budget the measurement above used refills
    statuses: dict[int, int] = {}
    t0 = time.perf_counter()
    n = 0
    while time.perf_counter() - t0 < seconds:
        status, _ = await _fetch(port, f"/api/rooms/Z{n:04d}/history", 5.0)
        statuses[status] = statuses.get(status, 0) + 1
        n += 1
    took = time.perf_counter() - t0
    told = sum(c for s, c in statuses.items() if s in (403, 404))
    print(
        f"codes walked from one address: {n} in {took:.1f} s, statuses {statuses}; "
        f"{told / took:.0f} codes/s answered"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=None, help="checkout whose server to run")
    parser.add_argument("--games", type=int, default=14)
    parser.add_argument("--concurrent", type=int, default=40)
    parser.add_argument("--deadline", type=float, default=120.0)
    parser.add_argument("serve_args", nargs="*", help="more `cardroom serve` flags (after --)")
    args = parser.parse_args(argv)
    items = long_games(args.games)
    actions = sum(len(i["log"]) for i in items)
    print(f"room {CODE}: {len(items)} games, {actions} actions")
    with tempfile.TemporaryDirectory() as tmp, RedisServer(Path(tmp)) as redis:
        import redis as redis_lib

        r = redis_lib.Redis.from_url(redis.url)
        r.hset(f"cr:{{{CODE}}}:hist", mapping={str(i["g"]): orjson.dumps(i) for i in items})
        r.close()
        port = free_port()
        cwd = str(args.root) if args.root else None
        env = {"PYTHONPATH": cwd} if cwd else {}
        command = [
            sys.executable, "-m", "server.cli", "serve", "--port", str(port),
            "--log-level", "WARNING", "--redis", redis.url, *RAISED_LIMITS, *args.serve_args,
        ]  # fmt: skip
        proc = start(command, env=env, cwd=cwd)
        try:
            wait_http(port)
            paths = [f"/api/rooms/{CODE}/history", f"/api/rooms/{CODE}/history?steps=1"]
            # the longest game is probed (and so cached); the others stay cold
            paths += [f"/api/rooms/{CODE}/history?game={i}&steps=1" for i in _longest_first(items)]
            asyncio.run(_measure(port, proc.pid, paths, args.concurrent, args.deadline))
            asyncio.run(_enumerate(port, 3.0))
        finally:
            stop(proc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
