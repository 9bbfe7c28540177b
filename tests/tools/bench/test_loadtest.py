"""A small, quick load test over real WebSockets on loopback, checking its own counting against
what the server stored: every acknowledged action, no more (``start`` and ``next_game`` move
the version but are not actions), and a refused action is counted by code, not as an action.
Speed is not asserted here: the figures come from ``cardroom loadtest``."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator

import pytest

from server.net.server import CardroomServer, ServerConfig
from server.rooms.settings import RoomSettings
from server.store.memory import MemoryStore
from server.tools.bench.drive import Pacer, RoomSpec, hold_idle, run_rooms
from server.tools.bench.drive import Room as LoadRoom
from server.tools.bench.loadtest import closes_reached
from server.tools.bench.tally import Tally


@pytest.fixture
async def served() -> AsyncIterator[tuple[CardroomServer, MemoryStore]]:
    store = MemoryStore()
    config = ServerConfig(
        port=0, rate=1e6, burst=1e6, rooms=RoomSettings(bot_delay=0.0, grace=30, idle_timeout=60)
    )
    async with CardroomServer(config, store=store) as server:
        yield server, store


async def test_acks_counted_equal_the_actions_the_server_stored_and_refusals_are_apart(
    served: tuple[CardroomServer, MemoryStore],
) -> None:
    server, store = served
    tally = Tally()
    tally.start()  # count from the first frame, so the store can be compared with the tally
    room = LoadRoom(server.url, RoomSpec("sheepshead", 5, 5), tally, Pacer(None))
    await room.connect("deflate")
    stop = asyncio.Event()
    playing = asyncio.create_task(room.play(stop))
    try:
        await asyncio.wait_for(room.started.wait(), 20)
        # one refused action: a seat that is not to act sends an act anyway
        idle = next(
            c
            for c in room.conns
            if c.player.view and c.player.settled and c.player.seat not in c.player.view["to_act"]
        )
        idle.send(idle.player.act(time.perf_counter(), {"kind": "pass"}))
        async with asyncio.timeout(30):
            await room.until(lambda: sum(tally.refused.values()) == 1)
            # play past the end of at least one hand (next_game bumps the version)
            await room.until(lambda: tally.accepted >= 80)
            for c in room.conns:
                c.player.paused = True
            # every answer in, and the state of every acknowledged action
            await room.until(lambda: len(tally.latencies) == tally.accepted)
            await room.until(lambda: all(c.player.settled for c in room.conns))
    finally:
        stop.set()
        playing.cancel()
        await asyncio.gather(playing, return_exceptions=True)
    code = room.conns[0].player.room
    assert code is not None
    stored = await store.load(code)
    assert stored is not None
    assert tally.accepted == len(stored.actions) >= 80
    assert tally.sent == tally.accepted + sum(tally.refused.values())
    assert set(tally.refused) <= {"not_your_turn", "stale_version"}
    # versions moved further than the actions: start and next_game are not actions
    assert max(c.player.version for c in room.conns) > tally.accepted
    assert len(tally.latencies) == tally.accepted
    assert tally.stalls == 0
    await room.close()


@pytest.mark.slow
async def test_a_run_with_bots_counts_human_acks_and_bot_moves_apart(
    served: tuple[CardroomServer, MemoryStore],
) -> None:
    server, _ = served
    tally = Tally()
    window = await run_rooms(
        server.url,
        RoomSpec("sheepshead", 5, 1, "basic"),
        2,
        tally,
        warmup=0.2,
        seconds=1.0,
        compression=None,
    )
    assert window.connections == 2
    assert tally.accepted > 0 and tally.bot_moves > 0
    assert len(tally.bot_times) > 0
    assert sum(tally.refused.values()) == 0  # one human per room never races another


async def test_idle_connections_are_held_and_counted(
    served: tuple[CardroomServer, MemoryStore],
) -> None:
    server, _ = served
    held, failed = await hold_idle(server.url, 30, "deflate")
    try:
        assert (len(held), failed) == (30, 0)
        assert len(server.connected.sockets) == 30  # each was welcomed, so the server holds it
    finally:
        await asyncio.gather(*(ws.close() for ws in held))


@pytest.mark.slow
async def test_every_room_is_seated_before_any_plays(
    served: tuple[CardroomServer, MemoryStore],
) -> None:
    server, _ = served
    tally = Tally()
    tally.start()  # counted from the first frame: an action during the setup would show
    at_seated: list[tuple[int, int, int]] = []

    def seated(seconds: float) -> None:
        # the server's accepted actions, a host's start included
        started = sum(server.metrics.actions.values())
        at_seated.append((tally.sent, started, len(server.connected.sockets)))

    window = await run_rooms(
        server.url,
        RoomSpec("sheepshead", 5, 5),
        4,
        tally,
        seconds=0.5,
        on_seated=seated,
        from_start=True,
    )
    # all 20 people connected, no action sent, no game started, when the setup ended
    assert at_seated == [(0, 0, 20)]
    assert window.setup > 0
    assert tally.accepted > 0  # and then they played


@pytest.mark.slow
async def test_the_closes_of_a_round_are_waited_for_on_the_server(
    served: tuple[CardroomServer, MemoryStore],
) -> None:
    server, _ = served
    held, _ = await hold_idle(server.url, 3, None)
    # still open: not reached, and the bound says how many were left
    assert await closes_reached(server.port, bound=0.3) == 3
    await asyncio.gather(*(ws.close() for ws in held))
    assert await closes_reached(server.port) == 0
    assert await closes_reached(None) is None  # a server elsewhere: nothing to ask


@pytest.mark.slow
def test_the_command_runs_both_servers_and_prints_its_figures() -> None:
    command = [sys.executable, "-m", "server.cli", "loadtest", "--rooms", "2", "--seconds", "1"]
    command += ["--warmup", "0.3", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    assert "connection caps raised" in done.stdout
    result = json.loads(done.stdout.strip().splitlines()[-1])
    ours, ceiling = result["ours"], result["ceiling"]
    assert ours["connections"] == ceiling["connections"] == 10
    assert ours["accepted"] > 0 and ceiling["accepted"] > 0
    assert ours["server_rss"] > ours["server_rss_base"] > 0
    assert result["share"] > 0


@pytest.mark.slow
def test_bench_frames_prints_each_compression_setting() -> None:
    from server.tools.bench.frames import SETTINGS

    command = [sys.executable, "-m", "server.cli", "bench", "frames", "--hands", "1"]
    command += ["--repeat", "1", "--cpu", "-1"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    for name in SETTINGS:
        assert name in done.stdout


@pytest.mark.slow
async def test_a_paced_run_never_goes_faster_than_its_pace(
    served: tuple[CardroomServer, MemoryStore],
) -> None:
    server, _ = served
    tally = Tally()
    pace = 40.0  # actions per second across both rooms
    window = await run_rooms(
        server.url,
        RoomSpec("sheepshead", 5, 5),
        2,
        tally,
        warmup=0.2,
        seconds=1.0,
        compression=None,
        pace=pace,
    )
    assert 0 < tally.accepted <= pace * window.seconds + 2  # one slot per room at the edges
