"""What a burst of arrivals leaves behind leaves the collector's sight (``gc_freeze_every``,
server/net/server.py): every N new connections the server freezes what is alive, so that no
older collection has to visit 10,000 people's objects at once (one of 0.5 s stopped the server
in the measured window at 2,000 rooms). Frozen
connections are still freed by reference counting when they close, and the trim with nobody
connected collects cycles among frozen objects too.

In a child process, over real WebSockets on loopback: a freeze is the whole process's."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

CHILD = """
import asyncio, gc, weakref
from websockets.asyncio.client import connect
from server.net.server import CardroomServer, ServerConfig
from server.rooms.settings import RoomSettings
from tests.support.http import http_get

HELLO = '{"type": "hello", "id": 1, "protocol": 1}'

class Node:
    pass

async def until(check, what):
    for _ in range(500):  # at most 5 s
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(what)

async def main():
    config = ServerConfig(
        port=0, gc_freeze_every=20, max_per_address=100, max_handshakes_per_address=100,
        rooms=RoomSettings(grace=0),
    )
    async with CardroomServer(config) as server:
        clients = []
        for _ in range(25):
            ws = await connect(server.url)
            await ws.send(HELLO)
            assert '"welcome"' in str(await ws.recv())
            clients.append(ws)
        conns = [s for _, s in sorted(server.connected.sockets.items())]
        assert len(conns) == 25
        tracked = {id(o) for o in gc.get_objects()}  # generations 0-2: what collections visit
        print("tracked", [i for i, c in enumerate(conns) if id(c) in tracked])
        print("freezes", server.metrics.gc_freezes)
        _, metrics = await asyncio.to_thread(http_get, server.port, "/metrics")
        print([l for l in metrics.splitlines() if l.startswith("cardroom_gc_freezes")])
        # a frozen connection that closes is freed by reference counting, no collection
        first = weakref.ref(conns[0])
        del conns, tracked
        gc.disable()
        await clients[0].close()
        await until(lambda: first() is None, "a frozen connection outlived its close")
        gc.enable()
        # a cycle frozen among the others is collected once nobody is connected (the trim)
        a, b = Node(), Node()
        a.other, b.other = b, a
        cycle = weakref.ref(a)
        del a, b
        gc.freeze()
        for ws in clients[1:]:
            await ws.close()
        await until(lambda: cycle() is None, "a frozen cycle outlived the trim")
        print("freed")

asyncio.run(main())
"""


def test_arrivals_are_frozen_and_still_freed_when_they_close() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    # the first 20 arrivals were frozen with the 20th; the 5 after them are still visited
    assert lines[0] == "tracked [20, 21, 22, 23, 24]", lines
    assert lines[1] == "freezes 1", lines
    assert "cardroom_gc_freezes_total 1.0" in lines[2], lines
    assert lines[3] == "freed", lines
