"""A server stops even when the queue's store call it was cancelled in answers with an error
rather than the cancellation (redis-py may): the loop ends on its own flag."""

from __future__ import annotations

import asyncio

from server.net.server import CardroomServer
from server.store.base import StoreUnavailable
from server.store.queue import Entry, MemoryQueue
from tests.support.queue import queue_config


class Swallowing(MemoryQueue):
    """The line, whose reads are slow and turn a cancellation into a store error."""

    async def entries(self, game: str) -> list[Entry]:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            raise StoreUnavailable("cancelled mid-call") from None
        return []


async def test_the_server_stops_though_a_cancel_was_swallowed() -> None:
    server = CardroomServer(queue_config())
    server.queue.store = Swallowing()
    async with asyncio.timeout(10):
        async with server:
            await asyncio.sleep(0.2)  # the loop is inside entries() now
            assert server.queue.running
    assert not server.queue.running
