"""Play now in tests: servers with short queue settings, people from distinct loopback
addresses (two identities of one address never sit at one table), and waiting for a seat."""

from __future__ import annotations

import asyncio
import dataclasses
import random
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from clients import CardroomClient
from protocol.messages import Queued, Seated, ServerMessage
from protocol.views import View
from server.net.server import CardroomServer, ServerConfig
from server.runtime.cluster import Cluster
from server.runtime.queue_service import QueueSettings
from tests.support.server import make_config

#: Short waits, so a test sees a table fill with bots in a second or two.
QUICK = QueueSettings(fill_wait=2.0, tick=0.1, status_every=0.5, stale=1.5, keep=30.0)


def queue_config(**queue: Any) -> ServerConfig:
    """The tests' server config with Play now's settings ``QUICK`` changed by ``queue``."""
    return dataclasses.replace(make_config(), queue=dataclasses.replace(QUICK, **queue))


async def person(url: str, n: int, **options: Any) -> CardroomClient:
    """Someone at loopback address 127.0.0.``n`` (an identity issued in the welcome)."""
    return await CardroomClient.connect(url, local_addr=(f"127.0.0.{n}", 0), **options)


def is_seated(msg: ServerMessage) -> bool:
    return isinstance(msg, Seated)


def is_queued(msg: ServerMessage) -> bool:
    return isinstance(msg, Queued)


def example_move(view: View) -> Any:
    """The example bot's move (examples/example_bot.py), for the ladder's SDK bots."""
    if view["phase"] == "swap":
        return {"kind": "ready"}
    if view.get("play_sets"):
        return {"kind": "play", "cards": max(view["play_sets"], key=len)}  # type: ignore[typeddict-item]
    return random.choice(view["legal"])


@asynccontextmanager
async def two_processes(
    redis_url: str, bot_delay: float = 0.0, **queue: float
) -> AsyncIterator[tuple[CardroomServer, CardroomServer]]:
    """Two servers on one Redis, each hearing the other before it is used (``bot_delay``:
    seconds a bot waits before it moves)."""
    config = dataclasses.replace(queue_config(**queue), redis_url=redis_url)
    rooms = dataclasses.replace(config.rooms, bot_delay=bot_delay)
    config = dataclasses.replace(config, rooms=rooms)
    async with AsyncExitStack() as stack:
        a = await stack.enter_async_context(CardroomServer(config))
        b = await stack.enter_async_context(CardroomServer(config))
        deadline = time.monotonic() + 10
        for one in (a, b):
            cluster = one.manager.ownership
            assert isinstance(cluster, Cluster)
            while not await cluster.peers():
                assert time.monotonic() < deadline, "the processes never heard of each other"
                await asyncio.sleep(0.02)
        yield a, b
