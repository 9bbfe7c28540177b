"""The server's own share of a load test's latency, read from its ``/metrics`` around the window:
its act → views queued and its event loop's lag, over real WebSockets against a real server on
loopback. The counts must be exactly those of the window, and a loop held busy must show."""

from __future__ import annotations

import asyncio
import time

import pytest

from clients import CardroomClient
from server.net.server import CardroomServer, ServerConfig
from server.rooms.settings import RoomSettings
from server.store.memory import MemoryStore
from server.tools.bench import procs
from server.tools.bench.drive import RoomSpec, run_rooms
from server.tools.bench.loadtest import Figures, Watch
from server.tools.bench.scrape import LAG, VIEW, Buckets, read
from server.tools.bench.tally import Counts, Tally

HELD = 0.06  # seconds the test holds the server's loop


def _hold_loop(seconds: float) -> None:
    """Keep the event loop (this thread) busy for ``seconds``, as a long handler would."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def _config() -> ServerConfig:
    return ServerConfig(
        port=0,
        rate=1e6,
        burst=1e6,
        # seven chat lines from one seat at once: past one sender's chat burst
        rooms=RoomSettings(bot_delay=0.0, grace=30, idle_timeout=60, chat_each_burst=100),
    )


@pytest.mark.slow
async def test_the_window_counts_each_input_the_server_read_in_it_and_its_loops_lag() -> None:
    async with (
        CardroomServer(_config(), store=MemoryStore()) as server,
        CardroomClient.connect(server.url) as client,
    ):
        await client.hello()
        await client.create(game="shithead", seats=2, name="Ann")
        watch = Watch((), metrics_port=server.port)
        await asyncio.to_thread(watch.window, True)
        for k in range(7):  # seven room inputs, each timed from its read to its views
            await client.chat(f"line {k}")
        # the loop held: the probe due meanwhile runs this late, before the scrape below is
        # read (the timer is overdue when the loop comes back, the request is not)
        _hold_loop(HELD)
        await asyncio.to_thread(watch.window, False)
    assert watch.share is not None
    assert watch.share.views.count == 7  # only the window's inputs: not the create before it
    lag = watch.share.lag
    assert lag.count >= 1
    assert lag.quantile(1.0) >= 0.05  # the hold is seen in the loop-lag histogram
    figures = watch.fill(Figures.of("x", Counts(), 1.0, 1, 0.0))
    assert figures.server_inputs == 7 and figures.server_lag_probes == lag.count
    assert any("the server's own share" in line for line in figures.lines())


@pytest.mark.slow
async def test_a_load_window_reads_the_servers_share_beside_its_own() -> None:
    # a server process of its own: the single-process generator reads /metrics from its loop
    port = procs.free_port()
    async with procs.serve_process(port, *procs.RAISED_LIMITS, "--loop-lag-interval", "0.005"):
        watch = Watch((), metrics_port=port)
        tally = Tally()
        await run_rooms(
            f"ws://127.0.0.1:{port}/",
            RoomSpec("sheepshead", 5, 5),
            1,
            tally,
            warmup=0.3,
            seconds=1.0,
            on_window=watch.window,
        )
        after = await asyncio.to_thread(read, port)
    assert watch.share is not None
    acked = tally.counts().accepted
    assert acked > 0
    # each action acked in the window was read by the server in it, but for the five players'
    # requests already on their way as it opened; the server also times the host's requests
    assert watch.share.views.count >= acked - 5
    assert watch.share.views.count <= after[VIEW].count
    assert watch.share.lag.count > 0 and after[LAG].count >= watch.share.lag.count


def test_a_percentile_is_read_inside_its_bucket_from_the_deltas() -> None:
    bounds = (0.001, 0.005, 0.01, float("inf"))
    before = Buckets(bounds, (50, 60, 60, 60))
    after = Buckets(bounds, (50, 150, 159, 160))  # 100 new: 90 in 1-5 ms, 9 in 5-10, 1 above
    d = after.since(before)
    assert d.count == 100
    assert d.quantile(0.5) == pytest.approx(0.001 + 0.004 * 50 / 90)
    assert 0.005 < d.quantile(0.99) <= 0.01
    assert d.quantile(1.0) == 0.01  # above the last bound: the last bound is all one can say
    assert Buckets(bounds, (0, 0, 0, 0)).quantile(0.99) == 0.0
