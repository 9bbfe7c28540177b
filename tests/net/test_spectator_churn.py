"""Anyone with a room's code can watch it, but not flood its members: a room takes at most
``max_spectators`` watchers (``spectators_full``), and spectators coming and going send the
room's members one room frame per ``spectator_frame_interval`` at most (the newcomer gets its
own at once, and the last count always follows)."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from websockets.asyncio.client import connect

from clients import CardroomClient
from server.net.server import CardroomServer
from tests.support.raw_ws import answer, greeted
from tests.support.server import make_config

INTERVAL = 0.5


async def test_a_room_takes_at_most_max_spectators() -> None:
    async with CardroomServer(make_config(max_spectators=2)) as srv:
        host = await CardroomClient.connect(srv.url)
        await host.create("shithead", seats=3, name="Ann")
        room = host.room
        assert room is not None
        watchers = [await greeted(srv.url, f"127.0.4.{i}") for i in range(1, 4)]
        got = [await answer(w, {"type": "watch", "id": 1, "room": room}) for w in watchers]
        assert [g["type"] for g in got] == ["joined", "joined", "error"]
        assert got[2]["code"] == "spectators_full"
        # a seat is still for the taking: the cap is on watchers only
        guest = await CardroomClient.connect(srv.url)
        await guest.join(room, name="Bob")
        await answer(watchers[0], {"type": "leave", "id": 2, "room": room})
        assert (await answer(watchers[2], {"type": "watch", "id": 3, "room": room}))["type"] == (
            "joined"
        )
        for w in watchers:
            await w.close()
        await guest.close()
        await host.close()


async def test_spectators_coming_and_going_send_members_few_room_frames() -> None:
    async with CardroomServer(make_config(spectator_frame_interval=INTERVAL)) as srv:
        victim = await connect(srv.url, local_addr=("127.0.5.1", 0))
        await victim.send(json.dumps({"type": "hello", "id": 0, "protocol": 1}))
        await victim.recv()
        made = {"type": "create", "id": 1, "game": "shithead", "seats": 3, "name": "Vic"}
        room = (await answer(victim, made))["room"]
        frames: list[dict[str, Any]] = []

        async def read() -> None:
            async for raw in victim:
                got = json.loads(raw)
                if got["type"] == "room":
                    frames.append(got)

        reader = asyncio.create_task(read())
        churners = [await greeted(srv.url, f"127.0.6.{1 + i % 5}") for i in range(10)]
        began = time.monotonic()
        rounds = 0
        while time.monotonic() - began < 1.0:
            await asyncio.gather(
                *(answer(c, {"type": "watch", "id": 2 * rounds, "room": room}) for c in churners)
            )
            await asyncio.gather(
                *(
                    answer(c, {"type": "leave", "id": 2 * rounds + 1, "room": room})
                    for c in churners
                )
            )
            rounds += 1
        # the last change reaches the members within an interval
        watcher = churners[0]
        assert (await answer(watcher, {"type": "watch", "id": -1, "room": room}))[
            "type"
        ] == "joined"
        await asyncio.sleep(INTERVAL + 0.3)
        reader.cancel()
        changes = 2 * rounds * len(churners) + 1
        assert rounds >= 3, rounds
        assert len(frames) <= 2 + (time.monotonic() - began) / INTERVAL + 1, (len(frames), changes)
        assert frames[-1]["room"]["spectators"] == 1
        for c in churners:
            await c.close()
        await victim.close()
