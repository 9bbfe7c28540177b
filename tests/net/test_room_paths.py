"""WebSocket addresses: ``/ws/CODE`` and ``/ws`` beside the bare ``/``; anything else
is refused at the handshake, and the code in the path is a hint only. With Redis a room created
on a ``/ws`` connection is stored and let go (``moved``): the client resumes it at the room's
address, where the process it reaches takes it; a bare ``/`` connection keeps today's way."""

from __future__ import annotations

import asyncio
import dataclasses
import time

import orjson
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from clients import CardroomClient, CardroomError
from server.net.server import CardroomServer
from server.tools.bench.redis_server import RedisServer
from tests.support.server import make_config

BAD_PATHS = [
    "/ws/abcde",
    "/ws/ABCD",
    "/ws/ABCDEF",
    "/ws/AB-DE",
    "/ws/ABCDE/",
    "/ws/ABCDE/x",
    "/wsABCDE",
    "/r/ABCDE",
    "/socket",
    "/ws//ABCDE",
    "/%2e%2e/ws",
]


async def test_malformed_websocket_paths_are_refused_at_the_handshake(
    server: CardroomServer,
) -> None:
    base = f"ws://127.0.0.1:{server.port}"
    for path in BAD_PATHS:
        with pytest.raises(InvalidStatus) as refused:
            await connect(base + path)
        assert refused.value.response.status_code == 404, path
    assert not server.connected.sockets  # nothing was let in
    for path in ("/", "/ws", "/ws/", "/ws/ABCDE", "/ws/ABCDE?v=1"):
        async with CardroomClient.connect(base + path) as fine:
            assert fine.welcome is not None, path


async def test_the_code_in_the_path_is_a_hint_only(server: CardroomServer) -> None:
    base = f"ws://127.0.0.1:{server.port}"
    async with (
        CardroomClient.connect(base + "/ws") as ann,
        CardroomClient.connect(base, room="ABCDE") as bob,
    ):
        assert bob.url == f"{base}/ws/ABCDE"
        await ann.create("shithead", seats=2, name="Ann")  # one process: no moved, no reconnect
        assert ann.url == f"{base}/ws" and not [m for m in ann.history if m.type == "moved"]
        assert ann.room is not None
        joined = await bob.join(ann.room, name="Bob")  # another room than its address names
        assert joined.room == ann.room and joined.seat == 1


async def test_with_redis_a_room_made_at_ws_is_let_go_and_resumed_at_its_address(
    redis_server: RedisServer,
) -> None:
    config = dataclasses.replace(make_config(), redis_url=redis_server.url)
    async with CardroomServer(config) as srv:
        base = f"ws://127.0.0.1:{srv.port}"
        async with CardroomClient.connect(base + "/ws") as ann:
            await ann.create("shithead", seats=2, name="Ann")
            kinds = [m.type for m in ann.history]
            assert kinds[:3] == ["welcome", "moved", "joined"]  # moved before its joined
            assert ann.url == f"{base}/ws/{ann.room}" and ann.seat == 0
            assert kinds.count("welcome") == 2 and kinds.count("joined") == 2  # resumed
            assert srv.metrics.rooms_placed == 1 and ann.room in srv.manager.rooms
            await ann.host("start")  # the seat is hers at the room's address
        async with CardroomClient.connect(base) as old:  # the bare /: the room stays here
            await old.create("shithead", seats=2, name="Old")
            assert not [m for m in old.history if m.type == "moved"]
            assert srv.metrics.rooms_placed == 1 and old.room in srv.manager.rooms


async def test_no_place_rooms_keeps_every_room_where_it_was_made(
    redis_server: RedisServer,
) -> None:
    config = dataclasses.replace(make_config(), redis_url=redis_server.url, place_rooms=False)
    async with (
        CardroomServer(config) as srv,
        CardroomClient.connect(f"ws://127.0.0.1:{srv.port}/ws") as ann,
    ):
        await ann.create("shithead", seats=2, name="Ann")
        assert [m.type for m in ann.history] == ["welcome", "joined", "room"]
        assert srv.metrics.rooms_placed == 0


async def test_rooms_let_go_still_count_for_the_address_that_opened_them(
    redis_server: RedisServer,
) -> None:
    # one address may have 2 rooms open: rooms let go for another process count too, or a
    # client at /ws could open rooms without end (each lives on elsewhere)
    config = dataclasses.replace(make_config(rooms_per_address=2), redis_url=redis_server.url)
    async with CardroomServer(config) as srv:
        url = f"ws://127.0.0.1:{srv.port}/ws"
        people = [await CardroomClient.connect(url) for _ in range(3)]
        for ann in people[:2]:
            await ann.create("shithead", seats=2, name="Ann")
            await ann.leave()  # not in it: nothing holds the room here but its count
        with pytest.raises(CardroomError) as refused:
            await people[2].create("shithead", seats=2, name="Ann")
        assert refused.value.code == "too_many_rooms"
        assert srv.metrics.rooms_placed == 2
        for p in people:
            await p.close()


async def test_rooms_let_go_and_loaded_again_keep_their_opener(
    redis_server: RedisServer,
) -> None:
    # a room made at /ws is stored, let go and loaded from its record: its opener travels with
    # it, so the bot pool serves it as one of its opener's rooms (not as an owner of its own,
    # outside the per-address queue) and it counts against the opener's rooms here
    config = dataclasses.replace(make_config(rooms_per_address=2), redis_url=redis_server.url)
    async with CardroomServer(config) as srv:
        url = f"ws://127.0.0.1:{srv.port}/ws"
        async with CardroomClient.connect(url) as ann, CardroomClient.connect(url) as bob:
            for person in (ann, bob):
                await person.create("shithead", seats=2, name="Ann")
            assert srv.metrics.rooms_placed == 2
            rooms = [srv.manager.rooms[p.room or ""] for p in (ann, bob)]
            assert all(r.core.opener is not None for r in rooms)
            owners = {r.share.owner for r in rooms}
            assert owners == {rooms[0].core.opener}  # one owner: the address both came from
            assert srv.manager.budgets.open_from(rooms[0].core.opener or "") == 2


async def test_a_room_let_go_that_nobody_takes_is_deleted_when_its_lobby_would_close(
    redis_server: RedisServer,
) -> None:
    # the host of a room made at /ws hears moved and never resumes it: no process holds the
    # room, so no lobby timeout runs where it lives; the process that let it go deletes it
    # (a day in the store before, counted against its opener until the idle timeout)
    rooms = {"lobby_timeout": 0.2, "grace": 0.2}
    config = dataclasses.replace(make_config(**rooms), redis_url=redis_server.url)
    async with CardroomServer(config) as srv:
        async with connect(f"ws://127.0.0.1:{srv.port}/ws") as ws:
            await ws.send(orjson.dumps({"type": "hello", "id": 1, "protocol": 1}).decode())
            await ws.recv()
            create = {"type": "create", "id": 2, "game": "shithead", "seats": 2, "name": "Ann"}
            await ws.send(orjson.dumps(create).decode())
            moved = orjson.loads(await ws.recv())
            assert moved["type"] == "moved"
        code = moved["room"]
        stored = await srv.stores.rooms.load(code)
        assert stored is not None and stored.record["opener"]
        opener = stored.record["opener"]
        assert srv.manager.budgets.open_from(opener) == 1
        deadline = time.monotonic() + 5
        while await srv.stores.rooms.load(code) is not None:
            assert time.monotonic() < deadline, "the room let go was never collected"
            await asyncio.sleep(0.05)
        assert srv.manager.budgets.open_from(opener) == 0  # no longer counted against them


async def test_a_room_let_go_and_taken_is_not_collected(redis_server: RedisServer) -> None:
    rooms = {"lobby_timeout": 0.2, "grace": 0.2}
    config = dataclasses.replace(make_config(**rooms), redis_url=redis_server.url)
    async with (
        CardroomServer(config) as srv,
        CardroomClient.connect(f"ws://127.0.0.1:{srv.port}/ws") as ann,
    ):
        await ann.create("shithead", seats=2, name="Ann")  # moved, then resumed: taken
        await asyncio.sleep(0.6)
        assert ann.room in srv.manager.rooms
        assert await srv.stores.rooms.load(ann.room or "") is not None
