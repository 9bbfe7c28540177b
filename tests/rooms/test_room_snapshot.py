"""A room's snapshot from before an input (``server/rooms/rollback.py``: a copy of its state
and its 13 containers) lives only until that input's outputs are stored: after that nothing
undoes it. Kept until the room's next input, every room held one, and each young collection visited
the snapshots of every room that had acted since the last: at 2,000 rooms, 3-4 collections a
second of 7-10 ms each, the server stopped while they ran.

Over real WebSockets on loopback: a room of five scripted players plays, then is left alone."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator

import pytest

from server.net.server import CardroomServer, ServerConfig
from server.rooms.settings import RoomSettings
from server.rooms.state import RoomState
from server.store.memory import MemoryStore
from server.tools.bench.drive import Pacer, RoomSpec
from server.tools.bench.drive import Room as LoadRoom
from server.tools.bench.tally import Tally

pytestmark = pytest.mark.slow


@pytest.fixture
async def served() -> AsyncIterator[CardroomServer]:
    config = ServerConfig(port=0, rate=1e6, burst=1e6, rooms=RoomSettings(bot_delay=0.0))
    async with CardroomServer(config, store=MemoryStore()) as server:
        yield server


async def test_a_rooms_snapshot_is_freed_once_its_input_is_stored(served: CardroomServer) -> None:
    tally = Tally()
    tally.start()  # count from the first action
    room = LoadRoom(served.url, RoomSpec("sheepshead", 5, 5), tally, Pacer(None))
    await room.connect(None)
    stop = asyncio.Event()
    playing = asyncio.create_task(room.play(stop))
    try:
        for _ in range(1000):  # at most 10 s
            if tally.accepted >= 20:
                break
            await asyncio.sleep(0.01)
        assert tally.accepted >= 20
        stop.set()
        await asyncio.wait_for(room.until(room.settled), 10)  # every answer in
        [actor] = served.manager.rooms.values()
        live = actor.core.state
        assert live.match is not None
        gc.collect()
        # a snapshot shares the live state's match (a copy of everything else)
        snapshots = [
            o
            for o in gc.get_objects()
            if type(o) is RoomState and o is not live and o.match is live.match
        ]
        assert snapshots == []  # on the code before, one: the last input's, until the next
    finally:
        stop.set()
        playing.cancel()
        await asyncio.gather(playing, return_exceptions=True)
        await room.close()
