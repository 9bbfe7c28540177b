"""A server on Redis with many rooms playing at once sends the writes of rooms that persist in
the same turn together: ``/metrics`` counts them (``cardroom_store_batch_size``), batches carry
more than one room's write, and every room's stored log is whole and in order."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
import urllib.request
from dataclasses import replace

import pytest

from clients import CardroomClient, CardroomError
from server.net.server import CardroomServer
from server.store.redis_store import RedisStore
from server.tools.bench.redis_server import RedisServer
from tests.support.server import choose, make_config

pytestmark = pytest.mark.slow

ROOMS = 8


def metrics_text(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        text: str = r.read().decode()
        return text


def batch_figures(port: int) -> tuple[float, float, float]:
    """Round trips, writes they carried, and round trips of a single write, from /metrics."""
    text = metrics_text(port)

    def sample(suffix: str) -> float:
        found = re.search(rf"^cardroom_store_batch_size_{suffix} (\S+)$", text, re.M)
        assert found is not None, f"no cardroom_store_batch_size_{suffix} in /metrics"
        return float(found.group(1))

    return sample("count"), sample("sum"), sample(r'bucket\{le="1\.0"\}')


async def play_on(host: CardroomClient) -> None:
    """The host's moves, as soon as it is her turn, until her game is over."""
    while host.view is None or host.view["phase"] != "over":
        state = await host.wait_turn(timeout=30)
        if state.view["phase"] == "over":
            return
        try:
            await host.act(choose(state.view), version=state.version)
        except CardroomError as exc:
            assert exc.code == "stale_version"  # a bot moved first: look again


async def test_rooms_persisting_together_share_round_trips(redis_server: RedisServer) -> None:
    config = replace(make_config(), redis_url=redis_server.url)
    async with CardroomServer(config) as server, contextlib.AsyncExitStack() as stack:
        hosts = [
            await stack.enter_async_context(CardroomClient.connect(server.url))
            for _ in range(ROOMS)
        ]
        playing: list[asyncio.Task[None]] = []
        try:
            rooms = []
            for host in hosts:  # a host and three bots, who move at once
                await host.create("shithead", seats=4, name="Host")
                rooms.append(host.room)
            await asyncio.gather(*(host.host("start") for host in hosts))
            playing += [asyncio.create_task(play_on(host)) for host in hosts]
            deadline = time.monotonic() + 20
            while True:  # eight rooms at once
                trips, writes, single = await asyncio.to_thread(batch_figures, server.port)
                if trips > single and writes > 100:
                    break  # a round trip carried several rooms' writes
                assert time.monotonic() < deadline, (trips, writes, single)
                assert not all(task.done() for task in playing), (trips, writes, single)
                await asyncio.sleep(0.05)
            assert writes > trips  # fewer round trips than writes
            text = await asyncio.to_thread(metrics_text, server.port)
            timed = re.search(r"^cardroom_store_round_trip_seconds_count (\S+)$", text, re.M)
            assert timed is not None and float(timed.group(1)) >= trips  # each one timed
            waited = re.search(r"^cardroom_store_queue_seconds_count (\S+)$", text, re.M)
            assert waited is not None and float(waited.group(1)) >= writes  # each write's wait
        finally:
            for task in playing:
                task.cancel()
            await asyncio.gather(*playing, return_exceptions=True)
    store = RedisStore(redis_server.url)
    try:
        for code in rooms:
            assert code is not None
            stored = await store.load(code)
            assert stored is not None
            versions = [e["v"] for e in stored.actions]
            assert versions == list(range(versions[0], versions[0] + len(versions))), code
    finally:
        await store.close()
