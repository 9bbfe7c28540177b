"""``cardroom bench churn``: what strangers with a room's code cost its player.

One server in this process with its default budgets. A player (``127.0.0.2``) opens a Shithead
room against a bot, starts it and makes ``--acts`` swaps, one each ``--pause`` seconds, timing
each from its send to its ack. Meanwhile ``--attackers`` connections of one other address
(``127.0.0.1``) each send ``--rate`` frames a second: ``watch`` and ``leave`` of the room
(``--flood churn``), or ``ping`` (``--flood ping``: the same load with no room in it), or
nothing (``--flood none``). Prints the act latencies' p50, p99 and max, and the room frames the
player got a second (counted by a spectator of its address). Bounded: the swaps end it (a game
takes 200 at most), ``--timeout`` too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from typing import Any

from websockets.asyncio.client import connect

from clients import CardroomClient, CardroomError
from server.net.server import CardroomServer, ServerConfig

VICTIM = "127.0.0.2"
ATTACKER = "127.0.0.1"


async def _attacker(url: str, room: str, flood: str, rate: float, stop: asyncio.Event) -> None:
    async with connect(url, local_addr=(ATTACKER, 0)) as ws:
        await ws.send(json.dumps({"type": "hello", "id": 0, "protocol": 1}))
        await ws.recv()

        async def drain() -> None:
            async for _ in ws:
                pass

        reader = asyncio.create_task(drain())
        n = 0
        while not stop.is_set():
            n += 1
            msg: dict[str, Any] = {"type": "ping", "id": n}
            if flood == "churn":
                msg = {"type": "watch" if n % 2 else "leave", "id": n, "room": room}
            await ws.send(json.dumps(msg))
            await asyncio.sleep(1 / rate)
        reader.cancel()


async def run(args: argparse.Namespace) -> dict[str, float]:
    async with CardroomServer(ServerConfig(port=0, web_root=None)) as server:
        player = await CardroomClient.connect(server.url, local_addr=(VICTIM, 0))
        await player.create("shithead", seats=2, name="Vic")
        await player.host("fill_bots")
        await player.host("start")
        room = player.room
        assert room is not None
        # a spectator of the player's address, watching from before the flood, gets each room
        # frame the player gets: it counts them
        frames = [0]
        observer = await connect(server.url, local_addr=(VICTIM, 0))
        await observer.send(json.dumps({"type": "hello", "id": 0, "protocol": 1}))
        await observer.send(json.dumps({"type": "watch", "id": 1, "room": room}))

        async def count() -> None:
            async for raw in observer:
                if json.loads(raw).get("type") == "room":
                    frames[0] += 1

        counter = asyncio.create_task(count())
        stop = asyncio.Event()
        attackers = []
        if args.flood != "none":
            attackers = [
                asyncio.create_task(_attacker(server.url, room, args.flood, args.rate, stop))
                for _ in range(args.attackers)
            ]
        await asyncio.sleep(1.0)  # the flood under way
        rooms_before = frames[0]
        began = time.monotonic()
        times: list[float] = []
        while len(times) < args.acts:
            state = await player.wait_state()
            swaps = [a for a in state.view["legal"] if a["kind"] == "swap"]
            if not swaps:
                break
            sent = time.perf_counter()
            try:
                await player.act(swaps[0], version=state.version)
            except CardroomError as exc:
                if exc.code != "stale_version":
                    raise
                continue
            times.append(time.perf_counter() - sent)
            await asyncio.sleep(args.pause)
        seconds = time.monotonic() - began
        seen = frames[0] - rooms_before
        stop.set()
        await asyncio.gather(*attackers, return_exceptions=True)
        counter.cancel()
        await observer.close()
        await player.close()
    times.sort()

    def at(q: float) -> float:
        return times[min(len(times) - 1, int(q * len(times)))] * 1000

    return {
        "acts": len(times),
        "p50_ms": at(0.5),
        "p99_ms": at(0.99),
        "max_ms": times[-1] * 1000,
        "room_frames_per_s": seen / seconds,
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="cardroom bench churn")
    parser.add_argument("--flood", choices=["churn", "ping", "none"], default="churn")
    parser.add_argument("--attackers", type=int, default=50)
    parser.add_argument("--rate", type=float, default=20.0, help="frames a second each")
    parser.add_argument("--acts", type=int, default=120)
    parser.add_argument("--pause", type=float, default=0.05)
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args(argv)
    got = asyncio.run(asyncio.wait_for(run(args), args.timeout))
    print(
        f"flood {args.flood} ({args.attackers} x {args.rate:g}/s): {got['acts']:.0f} acts, "
        f"p50 {got['p50_ms']:.1f} ms, p99 {got['p99_ms']:.1f} ms, max {got['max_ms']:.1f} ms; "
        f"{got['room_frames_per_s']:.1f} room frames a second to the player"
    )
    return 0
