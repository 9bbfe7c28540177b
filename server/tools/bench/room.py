"""``cardroom bench room``: a room's own work per accepted action, without sockets.

A Sheepshead room of five humans (connections 1 to 5, as the load test's) plays a whole match
of ten hands, each seat acting the moment it may as the load test's clients do (the first legal
play), the host asking for the next hand after each. The match is recorded once as the
requests' JSON and then replayed, timed:

- ``request``: each frame's JSON parsed and checked against the protocol's schema, as the
  server does before a room sees it;
- ``core``: :meth:`~server.rooms.core.RoomCore.handle` (its outputs computed: views, frames);
- ``actor``: the same requests through the room's actor and manager as in the server (the
  core, the outputs performed against the in-memory store, metrics, finished games), with each
  frame handed to a connection stub that keeps it.

CPU time of this process, per accepted action (every input of the match, the host's included,
over its acts), best of ``--repeat``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections.abc import Callable
from typing import Any

import orjson

from protocol import messages as m
from server.metrics import Metrics
from server.rooms.core import RoomCore
from server.rooms.inputs import CreateHost, Request, RoomRequest
from server.rooms.settings import RoomSettings
from server.runtime.connected import Connected
from server.runtime.manager import RoomManager
from server.store.memory import MemoryStore
from server.tools.bench.players import choose

CODE = "BENCH"
HUMANS = 5
SETTINGS = RoomSettings(bot_delay=0.0)

#: One recorded frame: the connection that sent it and its text.
Frame = tuple[int, str]


def _room(seed: int) -> RoomCore:
    return RoomCore(CODE, "sheepshead", HUMANS, seed=seed, settings=SETTINGS)


def record(seed: int) -> tuple[list[Frame], int]:
    """The frames of a whole match played by five humans (after the room is set up and its
    match started), and how many of them are acts."""
    core = _room(seed)
    now = 0.0
    create = m.Create(id=0, game="sheepshead", seats=HUMANS, name="P1")
    core.handle(CreateHost(1, create), now)
    for conn in range(2, HUMANS + 1):
        core.handle(Request(conn, m.Join(id=0, room=CODE, name=f"P{conn}")), now)
    core.handle(Request(1, m.Host(id=0, room=CODE, op="start")), now)
    frames: list[Frame] = []
    acts = 0
    ids = 0

    def send(conn: int, data: dict[str, Any]) -> None:
        nonlocal ids
        ids += 1
        text = orjson.dumps({**data, "id": ids, "room": CODE}).decode()
        frames.append((conn, text))
        msg = m.CLIENT_ADAPTER.validate_json(text)
        assert isinstance(msg, RoomRequest)
        core.handle(Request(conn, msg), now)

    while core.match is not None:
        game = core.match.current
        if game.is_over():
            if core.match.is_over():
                break
            send(1, {"type": "host", "op": "next_game"})
            continue
        seat = game.to_act()[0]
        action = choose(game.view(seat))
        send(seat + 1, {"type": "act", "version": core.version, "action": action})
        acts += 1
    return frames, acts


def _cpu(work: Callable[[], None], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def _messages(frames: list[Frame]) -> list[tuple[int, RoomRequest]]:
    out = []
    for conn, text in frames:
        msg = m.CLIENT_ADAPTER.validate_python(orjson.loads(text))
        assert isinstance(msg, RoomRequest)
        out.append((conn, msg))
    return out


def bench_request(frames: list[Frame], repeat: int) -> float:
    def work() -> None:
        for _, text in frames:
            m.CLIENT_ADAPTER.validate_python(orjson.loads(text))

    return _cpu(work, repeat)


def _ready_core(seed: int) -> RoomCore:
    core = _room(seed)
    core.handle(CreateHost(1, m.Create(id=0, game="sheepshead", seats=HUMANS, name="P1")), 0.0)
    for conn in range(2, HUMANS + 1):
        core.handle(Request(conn, m.Join(id=0, room=CODE, name=f"P{conn}")), 0.0)
    core.handle(Request(1, m.Host(id=0, room=CODE, op="start")), 0.0)
    return core


def bench_core(frames: list[Frame], seed: int, repeat: int) -> float:
    msgs = _messages(frames)
    best = float("inf")
    for _ in range(repeat):
        core = _ready_core(seed)
        inputs = [Request(conn, msg) for conn, msg in msgs]
        now = time.time()
        start = time.process_time()
        for item in inputs:
            core.handle(item, now)
        best = min(best, time.process_time() - start)
    return best


class _Outbox:
    """A connection stub: keeps the frames it is sent (dropped after each repeat)."""

    def __init__(self) -> None:
        self.frames: list[str] = []

    def send(self, text: str) -> None:
        self.frames.append(text)


async def _actor_once(frames: list[Frame], seed: int) -> float:
    clients: Connected[_Outbox] = Connected()
    manager = RoomManager(MemoryStore(), Metrics(), SETTINGS, clients=clients)
    for conn in range(1, HUMANS + 1):
        clients.open(conn, _Outbox())
    # the room opened as the server opens it, under a known code and seed
    create = m.Create(id=0, game="sheepshead", seats=HUMANS, name="P1")
    core = _room(seed)
    await manager.store.create(CODE, core.meta())
    actor = manager.actor_for(core)
    manager.rooms[CODE] = actor
    actor.start()
    await asyncio.sleep(0)  # its task is waiting: inputs are handled at once
    clients.enter(1, CODE)
    actor.submit(CreateHost(1, create))
    for conn in range(2, HUMANS + 1):
        manager.route_now(conn, m.Join(id=0, room=CODE, name=f"P{conn}"), 0.0)
    manager.route_now(1, m.Host(id=0, room=CODE, op="start"), 0.0)
    msgs = _messages(frames)
    received = time.perf_counter()
    start = time.process_time()
    for conn, msg in msgs:
        manager.route_now(conn, msg, received)
    spent = time.process_time() - start
    await actor.stop()
    return spent


def bench_actor(frames: list[Frame], seed: int, repeat: int) -> float:
    async def run() -> float:
        best = float("inf")
        for _ in range(repeat):
            best = min(best, await _actor_once(frames, seed))
        return best

    try:
        import uvloop  # the loop cardroom serve uses when it is installed
    except ImportError:
        return asyncio.run(run())
    return uvloop.run(run())


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="cardroom bench room", description=__doc__)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--matches", type=int, default=4, help="matches (seeds) measured")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--cpu", type=int, default=None, help="pin this process to a CPU")
    parser.add_argument(
        "--only", choices=("request", "core", "actor"), action="append", help="parts to run"
    )
    args = parser.parse_args(argv)
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    parts = args.only or ["request", "core", "actor"]
    seeds = range(args.seed, args.seed + args.matches)
    recorded = [record(seed) for seed in seeds]
    acts = sum(a for _, a in recorded)
    inputs = sum(len(f) for f, _ in recorded)
    print(
        f"{args.matches} Sheepshead matches of five humans: {acts:,} accepted actions, "
        f"{inputs:,} requests; CPU time per accepted action, best of {args.repeat}:"
    )
    for part in parts:
        total = 0.0
        for seed, (frames, _) in zip(seeds, recorded, strict=True):
            if part == "request":
                total += bench_request(frames, args.repeat)
            elif part == "core":
                total += bench_core(frames, seed, args.repeat)
            else:
                total += bench_actor(frames, seed, args.repeat)
        print(f"  {part:<8} {total / acts * 1e6:7.1f} µs")
    return 0
