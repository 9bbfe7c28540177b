"""The load generator's own counting when it is spread over worker processes, paced by thinking
times and bound to several source addresses: over real WebSockets on loopback against a real
server. Its merged counts must equal what the server accepted, its percentiles must be those of
all samples (not an average of each worker's), and it must refuse to send load anywhere but
loopback. Speed is not asserted here."""

from __future__ import annotations

import asyncio
import random
import re
import subprocess
import sys
from collections.abc import AsyncIterator

import pytest

from clients.client import room_url
from server.net.server import CardroomServer, ServerConfig
from server.rooms.settings import RoomSettings
from server.store.memory import MemoryStore
from server.tools.bench.drive import Dial, Pacer, RoomSpec, Think, hold_idle, run_rooms
from server.tools.bench.drive import Room as LoadRoom
from server.tools.bench.histogram import Histogram
from server.tools.bench.sources import NotLoopback, Rotation, check_target, parse_sources
from server.tools.bench.tally import Tally
from server.tools.bench.workers import Job, Report, Workers, describe, merged
from tests.support.http import http_get


@pytest.fixture
async def served() -> AsyncIterator[CardroomServer]:
    config = ServerConfig(
        port=0,
        rate=1e6,
        burst=1e6,
        max_per_address=1000,
        max_handshakes_per_address=1000,
        rooms=RoomSettings(bot_delay=0.0, grace=30, idle_timeout=60),
    )
    async with CardroomServer(config, store=MemoryStore()) as server:
        yield server


async def _player_actions(server: CardroomServer) -> int:
    """The server's own count of accepted player actions, read from ``/metrics``."""
    status, body = await asyncio.to_thread(http_get, server.port, "/metrics")
    assert status == 200
    found = re.findall(r'cardroom_actions_total\{by="player",game="[a-z]+"\} ([0-9.]+)', body)
    return int(sum(float(n) for n in found))


@pytest.mark.slow
async def test_two_workers_count_exactly_the_actions_the_server_accepted(
    served: CardroomServer,
) -> None:
    before = await _player_actions(served)
    spec = RoomSpec("sheepshead", 5, 5)
    # warm-up 0: each worker counts from its first frame, so the server's counter read before
    # the run and after it (every request in flight answered first) must agree with the sum
    jobs = [
        Job(index=k, url=served.url, spec=spec, rooms=2, from_start=True, seed=1, cpu=0)
        for k in range(2)
    ]
    workers = Workers(jobs)
    try:
        # 3 s: a loaded machine may spend the first of them starting the rooms
        reports = await asyncio.to_thread(workers.window, 0.0, 3.0)
    finally:
        await asyncio.to_thread(workers.stop)
    after = await _player_actions(served)
    total = merged(reports)
    assert [r.index for r in reports] == [0, 1]
    assert all(r.counts.accepted > 0 and r.connections == 10 for r in reports), [
        (r.connections, r.counts.accepted, dict(r.counts.refused)) for r in reports
    ]
    assert total.accepted == sum(r.counts.accepted for r in reports)
    assert total.accepted == after - before  # acks counted = the server's accepted actions
    assert total.sent == total.accepted + sum(total.refused.values())
    assert total.latency.count == total.accepted  # each acked action's state arrived
    assert all(r.cpu > 0 and r.lag.count > 0 for r in reports)
    assert all(r.cpus == (0,) for r in reports)  # where each ran, for the verdict per CPU
    # what the seated rooms hold is out of the collector's sight, and it did not run meanwhile
    assert all(r.frozen > 1000 and r.collections == 0 for r in reports), [
        (r.frozen, r.collections) for r in reports
    ]


def test_merged_latency_percentiles_are_those_of_all_samples_not_an_average() -> None:
    rng = random.Random(7)
    quick = [rng.uniform(0.0005, 0.002) for _ in range(990)]  # a worker that saw no tail
    slow = [rng.uniform(0.020, 0.080) for _ in range(10)] + quick[:90]  # one that saw it all
    both = sorted(quick + slow)
    m = Histogram.of(quick).merged(Histogram.of(slow))
    assert m.count == len(both)
    for q in (0.5, 0.9, 0.99, 0.999):
        exact = both[min(len(both) - 1, int(q * len(both)))]
        assert exact * 0.99 - 1e-6 <= m.percentile(q) <= exact + 1e-6  # three digits
    assert m.mean() == pytest.approx(sum(both) / len(both))
    # the average of the two workers' p99s is far from the p99 of all samples
    averaged = (Histogram.of(quick).percentile(0.99) + Histogram.of(slow).percentile(0.99)) / 2
    assert averaged > 5 * m.percentile(0.99) or m.percentile(0.99) > 5 * averaged
    assert Histogram().percentile(0.99) == 0.0 and Histogram().within(0.005) == 0.0


@pytest.mark.slow
def test_targets_and_sources_outside_loopback_are_refused() -> None:
    for url in ("ws://192.0.2.7:8080/", "ws://[2001:db8::1]:80/", "ws://10.1.2.3/"):
        with pytest.raises(NotLoopback):
            check_target(url)
    with pytest.raises(NotLoopback):
        check_target("ws://no-such-host.invalid:8080/")  # a name that does not resolve
    check_target("ws://localhost:8080/")
    for spec in ("10.0.0.1", "127.0.0.250-128.0.0.2", "127.0.0.2,192.168.1.1"):
        with pytest.raises(ValueError):
            parse_sources(spec)
    with pytest.raises(ValueError):
        parse_sources("127.0.0.9-127.0.0.2")  # reversed
    with pytest.raises(ValueError):
        parse_sources("127.0.0.1-127.0.255.255")  # more addresses than a run may bind
    # the command refuses before it starts anything or opens a connection
    for argv in (["--url", "ws://192.0.2.7:8080/"], ["--sources", "10.0.0.1-10.0.0.4"]):
        done = subprocess.run(
            [sys.executable, "-m", "server.cli", "loadtest", *argv, "--no-ceiling"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode != 0
        assert "refused" in done.stderr and "loopback" in done.stderr
        assert "server:" not in done.stdout


async def test_clients_bound_to_several_source_addresses_arrive_from_them(
    served: CardroomServer,
) -> None:
    sources = parse_sources("127.0.0.2-127.0.0.4")
    held, failed = await hold_idle(served.url, 9, None, Rotation(sources, 1))
    try:
        assert (len(held), failed) == (9, 0)
        for address in ("127.0.0.2", "127.0.0.3", "127.0.0.4"):
            assert served.connected.from_address(address) == 3
        assert served.connected.from_address("127.0.0.1") == 0
    finally:
        await asyncio.gather(*(c.close() for c in held))


@pytest.mark.slow
async def test_thinking_times_bound_the_pace(
    served: CardroomServer,
) -> None:
    tally = Tally()
    low, high, seconds = 0.15, 0.25, 1.5
    window = await run_rooms(
        served.url,
        RoomSpec("sheepshead", 5, 5),
        1,
        tally,
        warmup=0.3,
        seconds=seconds,
        think=Think(low, high, random.Random(3)),
        dial=Dial(None),
    )
    # one seat acts at a time in Sheepshead, each after thinking low..high seconds: never more
    # than one action per `low` seconds (an action in flight at the start counts once more),
    # and some at least one per `high` plus the server's answer
    assert 0 < tally.accepted <= window.seconds / low + 2
    assert tally.accepted >= window.seconds / (high + 0.1) - 2


async def test_guests_connect_to_the_url_of_the_room_they_join(served: CardroomServer) -> None:
    room = LoadRoom(served.url, RoomSpec("sheepshead", 5, 5), Tally(), Pacer(None))
    await room.connect(None)
    stop = asyncio.Event()
    playing = asyncio.create_task(room.play(stop))
    try:
        await asyncio.wait_for(room.started.wait(), 20)
        code = room.conns[0].player.room
        assert code is not None
        urls = [c.client.url for c in room.conns if c.client is not None]
        assert urls == [served.url] + [room_url(served.url, code)] * 4
        assert all(c.player.room == code for c in room.conns)
    finally:
        stop.set()
        playing.cancel()
        await asyncio.gather(playing, return_exceptions=True)
        await room.close()


def test_the_verdict_names_a_busy_or_a_starved_generator() -> None:
    # CPUs not known: each worker is judged alone (tests/tools/bench/test_verdict.py: per CPU)
    lag = Histogram.of([0.0001] * 99 + [0.05])  # p99 at 50 ms
    calm = Histogram.of([0.0001] * 100)
    busy = Report(0, seconds=10.0, cpu=9.0, lag=calm)  # 90 % of a core
    starved = Report(1, seconds=10.0, cpu=1.0, lag=lag)  # 10 %, yet late
    quiet = Report(2, seconds=10.0, cpu=1.0, lag=calm)
    assert busy.busy and starved.busy and not quiet.busy
    assert "BOTTLENECK (full)" in describe([busy, quiet])[-1]
    assert "did not run it" in describe([starved, quiet])[-1]
    assert "not the bottleneck" in describe([quiet])[-1]


def test_one_watcher_wakes_a_stalled_room_and_counts_it_but_not_a_live_one() -> None:
    tally = Tally()
    tally.start()
    live, stalled, idle = (
        LoadRoom("ws://127.0.0.1:1/", RoomSpec("sheepshead", 5, 5), tally, Pacer(None))
        for _ in range(3)
    )
    now = 1000.0
    for room, heard in ((live, now - 1.0), (stalled, now - 11.0), (idle, now - 11.0)):
        conn = room._conn(True)
        conn.last_frame = heard
        room.conns.append(conn)
    live.playing = stalled.playing = True  # idle: between two matches, not watched
    for room in (live, stalled, idle):
        room.check(now, stopping=False)
    assert [r.conns[0].match_over.is_set() for r in (live, stalled, idle)] == [False, True, False]
    assert tally.stalls == 1
    live.check(now, stopping=True)  # the run stops: a live room is woken, not counted
    assert live.conns[0].match_over.is_set() and tally.stalls == 1
