"""A client whose socket backs up still gets every state, in order.

While a socket keeps up, a connection's frames go straight to it; once its buffer backs up a
writer task sends them one at a time. The two paths must never overtake each other: a newer
state written before an older one would leave the client showing the past (suspected in one
browser game that stalled in CI). Here a watcher with tiny socket buffers stops reading now and then
while a game plays on quickly, so its frames take both paths.
"""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any

from websockets.asyncio.client import connect

from clients import CardroomClient
from server.net.server import CardroomServer
from tests.support.server import choose

SMALL = 4096  # bytes of socket buffer: a few state frames fill it


HANDS = 4  # at least; more (up to 12) until the watcher's frames took both paths


async def test_a_backed_up_watcher_gets_every_state_in_order(server: CardroomServer) -> None:
    host = await CardroomClient.connect(server.url)
    await host.create("sheepshead", seats=5, name="Ann")
    await host.host("fill_bots", level="random")
    assert host.room is not None

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SMALL)
    sock.connect(("127.0.0.1", server.port))
    sock.setblocking(False)
    async with connect(server.url, sock=sock, max_size=None, compression=None) as ws:
        await ws.send(json.dumps({"type": "hello", "id": 1, "protocol": 1}))
        await ws.send(json.dumps({"type": "watch", "id": 2, "room": host.room}))
        frames: list[dict[str, Any]] = []
        while not any(f["type"] == "joined" for f in frames):
            frames.append(json.loads(await asyncio.wait_for(ws.recv(), 5)))
        watcher = max(server.connected.sockets.values(), key=lambda c: c.id)
        server_sock = watcher.ws.transport.get_extra_info("socket")
        server_sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SMALL)

        async def read() -> None:
            async for text in ws:
                frames.append(json.loads(text))

        reader = asyncio.create_task(read())
        await host.host("start")
        turns = 0
        for hand in range(12):
            if hand >= HANDS and watcher.queue is not None:
                break
            if hand:
                await host.host("next_game")
            while True:
                state = await host.wait_turn(timeout=30)
                if state.view["phase"] == "over":
                    break
                turns += 1
                # every third turn of Ann's the watcher stops reading (its buffers fill and
                # its frames may queue for the writer); on the next it reads again while the
                # game goes on
                if turns % 3 == 1:
                    ws.transport.pause_reading()
                else:
                    ws.transport.resume_reading()
                await host.act(choose(state.view), version=state.version)
        ws.transport.resume_reading()
        for _ in range(3000):  # until the last state has come (or 30 s)
            if any(f["type"] == "state" and f["version"] >= state.version for f in frames):
                break
            await asyncio.sleep(0.01)
        reader.cancel()

    assert watcher.queue is not None, "the watcher's frames never took the writer's path"
    versions = [f["version"] for f in frames if f["type"] == "state"]
    assert versions == sorted(set(versions)), "states arrived out of order or twice"
    assert versions[-1] == state.version  # and the last one is the end of the last hand
    await host.close()
