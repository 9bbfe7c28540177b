"""Hostile clients over real sockets: pipelined requests, odd JSON, too many connections.

Each test here failed on the room layer once: each is a defect a hostile client found."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.frames import Frame, Opcode

from clients import CardroomClient, CardroomError
from protocol import messages as m
from server.net.server import CardroomServer, ServerConfig
from server.rooms import requests
from server.store.memory import MemoryStore
from tests.support.http import http_get
from tests.support.server import make_config


def frames(*messages: dict[str, Any]) -> bytes:
    """Client frames (masked text frames) as one byte string, for a single TCP write."""
    return b"".join(
        Frame(Opcode.TEXT, json.dumps(msg).encode()).serialize(mask=True, extensions=[])
        for msg in messages
    )


async def replies(ws: ClientConnection, count: int) -> list[dict[str, Any]]:
    return [json.loads(await asyncio.wait_for(ws.recv(), 5)) for _ in range(count)]


async def until(ws: ClientConnection, pred: Any) -> dict[str, Any]:
    async with asyncio.timeout(5):
        while True:
            msg: dict[str, Any] = json.loads(await ws.recv())
            if pred(msg):
                return msg


async def open_room(server: CardroomServer, name: str) -> CardroomClient:
    client = await CardroomClient.connect(server.url)
    await client.create("shithead", seats=3, name=name)
    return client


@pytest.fixture
async def raw(server: CardroomServer) -> AsyncIterator[ClientConnection]:
    async with connect(server.url, compression=None) as ws:
        yield ws


# 1. ghost seats ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "second",
    ["join_other", "watch_other", "watch_same", "create"],
)
async def test_pipelined_second_entry_is_refused_and_no_ghost_seat_stays(
    server: CardroomServer, second: str
) -> None:
    ann = await open_room(server, "Ann")
    olga = await open_room(server, "Olga")
    r1, r2 = ann.room or "", olga.room or ""
    first = {"type": "join", "id": 2, "room": r1, "name": "Mallory"}
    follow = {
        "join_other": {"type": "join", "id": 3, "room": r2, "name": "Mallory"},
        "watch_other": {"type": "watch", "id": 3, "room": r2},
        "watch_same": {"type": "watch", "id": 3, "room": r1},
        "create": {"type": "create", "id": 3, "game": "shithead", "seats": 2, "name": "M"},
    }[second]
    async with connect(server.url, compression=None) as ws:
        # hello and both requests in one TCP write: the server reads them back to back
        ws.transport.write(frames({"type": "hello", "id": 1, "protocol": 1}, first, follow))
        got = await replies(ws, 2)
        got += [await until(ws, lambda msg: msg.get("ref") in (2, 3))]
        answers = {msg["ref"]: msg for msg in got if msg.get("ref") in (2, 3)}
        assert answers[2]["type"] == "joined" and answers[2]["seat"] == 1
        assert answers[3]["type"] == "error" and answers[3]["code"] == "already_in_room"
        assert len(server.manager.rooms) == 2  # the pipelined create opened nothing
    # the socket is gone: its one seat is shown disconnected, in R1, and R2 never held it
    await ann.wait_for(
        lambda msg: (
            isinstance(msg, m.Room)
            and msg.room.seats[1].kind == "human"
            and not msg.room.seats[1].connected
        ),
        timeout=5,
    )
    assert server.manager.rooms[r1].core.seats[1].conn is None
    assert not server.manager.rooms[r1].core.where.keys() - {ann_conn(server, r1)}
    assert all(s.kind != "human" or s.name == "Olga" for s in server.manager.rooms[r2].core.seats)
    assert server.manager.rooms[r2].core.spectators == set()
    await ann.close()
    await olga.close()


def ann_conn(server: CardroomServer, code: str) -> int:
    conn = server.manager.rooms[code].core.seats[0].conn
    assert conn is not None
    return conn


# 2. typed, bounded options --------------------------------------------------------------------


@pytest.mark.parametrize("depth", [300, 500])
async def test_deeply_nested_options_open_no_room(
    server: CardroomServer, raw: ClientConnection, depth: int
) -> None:
    await raw.send(json.dumps({"type": "hello", "id": 1, "protocol": 1}))
    await replies(raw, 1)
    options = '{"a":' * depth + "1" + "}" * depth
    frame = (
        '{"type": "create", "id": 2, "game": "shithead", "seats": 2, "name": "Ann", '
        f'"options": {options}}}'
    )
    assert len(frame) < 4096
    await raw.send(frame)
    (err,) = await replies(raw, 1)
    assert err["type"] == "error" and err["code"] == "invalid_message" and err["ref"] == 2
    assert server.manager.rooms == {}
    # the connection is still usable (no 1011) and may open a proper room
    await raw.send(json.dumps({"type": "create", "id": 3, "game": "shithead", "seats": 2,
                               "name": "Ann"}))  # fmt: skip
    joined = await until(raw, lambda msg: msg.get("ref") == 3)
    assert joined["type"] == "joined"
    assert len(server.manager.rooms) == 1


# 4. a type that is not a string ----------------------------------------------------------------


@pytest.mark.parametrize("kind", [[], {}, 7, None, True])
async def test_non_string_type_gets_a_typed_error(raw: ClientConnection, kind: object) -> None:
    await raw.send(json.dumps({"type": kind, "id": 1}))
    (err,) = await replies(raw, 1)
    assert err["type"] == "error" and err["code"] == "unknown_type" and err["ref"] == 1
    await raw.send(json.dumps({"type": "ping", "id": 2}))
    assert (await replies(raw, 1))[0]["type"] == "pong"  # not closed with 1011


# 5. a token that is not ASCII -------------------------------------------------------------------


async def test_non_ascii_resume_token_is_bad_token(
    server: CardroomServer, raw: ClientConnection
) -> None:
    ann = await open_room(server, "Ann")
    await raw.send(json.dumps({"type": "hello", "id": 1, "protocol": 1}))
    await raw.send(json.dumps({"type": "resume", "id": 2, "room": ann.room, "token": "éééééééé"}))
    welcome, err = await replies(raw, 2)
    assert welcome["type"] == "welcome"
    assert err["type"] == "error" and err["code"] == "bad_token" and err["ref"] == 2
    await ann.close()


# 6. hello deadline and connection caps --------------------------------------------------------


@pytest.mark.slow
async def test_a_connection_that_never_says_hello_is_closed() -> None:
    config = ServerConfig(port=0, hello_timeout=0.3, rooms=make_config().rooms)
    async with CardroomServer(config) as srv, connect(srv.url) as ws:
        (err,) = await replies(ws, 1)
        assert err["code"] == "hello_timeout" and err["ref"] is None
        with pytest.raises(ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        _, metrics = await asyncio.to_thread(http_get, srv.port, "/metrics")
        assert 'cardroom_refusals_total{code="hello_timeout"} 1.0' in metrics


@pytest.mark.slow
async def test_a_greeted_connection_is_not_closed_by_the_hello_deadline() -> None:
    config = ServerConfig(port=0, hello_timeout=0.2, rooms=make_config().rooms)
    async with CardroomServer(config) as srv, connect(srv.url) as ws:
        await ws.send(json.dumps({"type": "hello", "id": 1, "protocol": 1}))
        await replies(ws, 1)
        # well past the deadline, the connection still answers
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(ws.recv(), 0.5)
        await ws.send(json.dumps({"type": "ping", "id": 2}))
        assert (await replies(ws, 1))[0]["type"] == "pong"


@pytest.mark.parametrize(
    ("limits", "cap"),
    [({"max_per_address": 3}, "per_address"), ({"max_connections": 3}, "global")],
)
async def test_connections_over_a_cap_are_refused_and_counted(
    limits: dict[str, int], cap: str
) -> None:
    config = ServerConfig(port=0, rooms=make_config().rooms, **limits)  # type: ignore[arg-type]
    async with CardroomServer(config) as srv:
        held = [await connect(srv.url) for _ in range(3)]
        with pytest.raises(InvalidStatus) as refused:
            await connect(srv.url)
        assert refused.value.response.status_code == 503
        _, metrics = await asyncio.to_thread(http_get, srv.port, "/metrics")
        assert f'cardroom_connections_refused_total{{cap="{cap}"}} 1.0' in metrics
        # a closed connection frees its place once the server's handler has seen the close
        await held.pop().close()
        async with asyncio.timeout(5):
            while len(srv.connected.sockets) > 2:  # noqa: ASYNC110  # the server exposes no event
                await asyncio.sleep(0.01)
        again = await connect(srv.url)
        await again.close()
        for ws in held:
            await ws.close()


# 7. names ------------------------------------------------------------------------------------


async def test_a_bad_name_opens_no_room(server: CardroomServer, raw: ClientConnection) -> None:
    await raw.send(json.dumps({"type": "hello", "id": 1, "protocol": 1}))
    for i, name in enumerate(["Bot 2", "A\u202enna", "Nul\x00l"], start=2):
        await raw.send(
            json.dumps({"type": "create", "id": i, "game": "shithead", "seats": 2, "name": name})
        )
    got = await replies(raw, 4)
    assert [msg.get("code") for msg in got[1:]] == ["bad_name"] * 3
    assert server.manager.rooms == {}


# 8. seat counts the game is not played with ---------------------------------------------------


@pytest.mark.parametrize(("game", "seats"), [("shithead", 9), ("shithead", 1), ("sheepshead", 4)])
async def test_out_of_range_seat_counts_are_bad_seats(
    server: CardroomServer, raw: ClientConnection, game: str, seats: int
) -> None:
    await raw.send(json.dumps({"type": "hello", "id": 1, "protocol": 1}))
    await raw.send(
        json.dumps({"type": "create", "id": 2, "game": game, "seats": seats, "name": "Ann"})
    )
    _, err = await replies(raw, 2)
    assert err["code"] == "bad_seats"
    assert server.manager.rooms == {}


# 9. /healthz says 503 while the server stops ----------------------------------------------------


class SlowStore(MemoryStore):
    """A store whose saves, once armed, wait until the test lets them through."""

    def __init__(self) -> None:
        super().__init__()
        self.armed = False
        self.saving = asyncio.Event()
        self.release = asyncio.Event()

    async def save(self, code: str, record: Mapping[str, Any], *, fence: int = 0) -> None:
        if self.armed:
            self.saving.set()
            await self.release.wait()
        await super().save(code, record, fence=fence)


async def test_healthz_is_503_while_stopping() -> None:
    store = SlowStore()
    srv = CardroomServer(make_config(), store=store)
    await srv.start()
    async with CardroomClient.connect(srv.url) as ann:
        await ann.create("shithead", seats=2, name="Ann")
        store.armed = True
        stopping = asyncio.create_task(srv.stop())
        await asyncio.wait_for(store.saving.wait(), 5)  # rooms are being saved
        status, body = await asyncio.to_thread(http_get, srv.port, "/healthz")
        assert (status, body.strip()) == (503, "stopping")
        with pytest.raises((InvalidStatus, ConnectionClosed)):
            async with connect(srv.url) as late:
                await late.recv()  # turned away (1001) while stopping
        store.release.set()
        await asyncio.wait_for(stopping, 10)


# 8. an unexpected failure inside a room --------------------------------------------------------


async def test_a_failing_room_answers_internal_error_and_goes_on(
    server: CardroomServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann = await open_room(server, "Ann")
    await ann.contributions_sent()  # its value for the deal is in the room before we look
    room = server.manager.rooms[ann.room or ""].core
    record = room.record()

    def broken(*args: object) -> None:
        raise ZeroDivisionError("injected")

    monkeypatch.setattr(requests, "host", broken)  # what a host request does, in every room
    with pytest.raises(CardroomError) as failed:
        await ann.host("lock")
    assert failed.value.code == "internal_error"
    assert room.record() == record and not room.locked
    monkeypatch.undo()
    await ann.host("lock")  # the same connection, the same room: it works again
    assert room.locked
    await ann.close()
