"""Room creation is budgeted (per address a rate and a cap on rooms open
at once, a cap per process), refused with ``too_many_rooms`` and counted in ``/metrics``; an
empty lobby closes quickly, a room with a game keeps its players' grace."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from clients import CardroomClient, CardroomError
from server.net.server import CardroomServer
from server.rooms.budgets import CreateBudgets
from server.rooms.settings import RoomSettings
from server.tools.bench.procs import free_port, serve_process
from tests.support.http import http_get
from tests.support.server import make_config


@asynccontextmanager
async def serving(**rooms: Any) -> AsyncIterator[CardroomServer]:
    async with CardroomServer(make_config(**rooms)) as srv:
        yield srv


def client(srv: CardroomServer, address: str = "127.0.0.1") -> Any:
    """A client whose socket is bound to ``address``: another person, as the server sees it."""
    return CardroomClient.connect(srv.url, local_addr=(address, 0))


async def refused(coro: Any) -> str:
    with pytest.raises(CardroomError) as err:
        await coro
    return err.value.code


async def metric(srv: CardroomServer, line: str) -> bool:
    _, text = await asyncio.to_thread(http_get, srv.port, "/metrics")
    return line in text


@pytest.mark.slow
async def test_rooms_created_per_address_are_rate_limited() -> None:
    # a room every 3 s after a burst of three (slow enough that the burst is not refilled
    # while it is spent, even on a loaded machine)
    async with serving(rooms_per_minute=20.0, rooms_burst=3.0) as srv, client(srv) as ann:
        for _ in range(3):  # a burst of three, each room left at once
            await ann.create("shithead", seats=2, name="Ann")
            await ann.leave()
        assert await refused(ann.create("shithead", seats=2, name="Ann")) == "too_many_rooms"
        assert ann.room is None and len(srv.manager.rooms) == 3  # nothing opened
        assert await metric(srv, 'cardroom_rooms_refused_total{budget="per_minute"} 1.0')
        assert await metric(srv, 'cardroom_refusals_total{code="too_many_rooms"} 1.0')
        async with client(srv, "127.0.0.2") as bob:  # another address has its own budget
            await bob.create("shithead", seats=2, name="Bob")
        # a room comes back every 3 s: poll (bounded) rather than sleep a fixed time
        deadline = time.monotonic() + 8
        while True:
            try:
                await ann.create("shithead", seats=2, name="Ann")
                break
            except CardroomError as exc:
                assert exc.code == "too_many_rooms" and time.monotonic() < deadline
                await asyncio.sleep(0.1)


async def test_rooms_open_per_address_are_capped_until_one_closes() -> None:
    async with (
        serving(rooms_per_address=2, lobby_timeout=0.2) as srv,
        client(srv) as ann,
        client(srv) as bob,
        client(srv) as cy,
    ):
        await ann.create("shithead", seats=2, name="Ann")
        await bob.create("shithead", seats=2, name="Bob")
        # a third room from the same address, from a third connection
        assert await refused(cy.create("shithead", seats=2, name="Cy")) == "too_many_rooms"
        assert await metric(srv, 'cardroom_rooms_refused_total{budget="per_address"} 1.0')
        async with client(srv, "127.0.0.3") as dee:
            await dee.create("shithead", seats=2, name="Dee")  # another address is not capped
        room = bob.room
        await bob.leave()  # Bob's lobby is empty now: it closes after the lobby timeout
        deadline = time.monotonic() + 5
        while room in srv.manager.rooms:
            assert time.monotonic() < deadline, "the empty lobby did not close"
            await asyncio.sleep(0.05)
        await cy.create("shithead", seats=2, name="Cy")  # its place is free again


async def test_rooms_in_the_process_are_capped() -> None:
    async with serving(max_rooms=2) as srv:
        async with client(srv, "127.0.0.4") as a, client(srv, "127.0.0.5") as b:
            await a.create("shithead", seats=2, name="A")
            await b.create("shithead", seats=2, name="B")
            async with client(srv, "127.0.0.6") as c:
                assert await refused(c.create("shithead", seats=2, name="C")) == "too_many_rooms"
                # existing rooms still take people
                await c.watch(a.room or "")
        assert await metric(srv, 'cardroom_rooms_refused_total{budget="process"} 1.0')


@pytest.mark.slow
async def test_an_empty_lobby_closes_quickly_and_a_game_keeps_its_grace() -> None:
    async with serving(lobby_timeout=0.3, idle_timeout=60.0, grace=30.0) as srv:
        async with client(srv) as ann:
            await ann.create("shithead", seats=2, name="Ann")
            lobby = ann.room
        async with client(srv) as bob:
            await bob.create("shithead", seats=2, name="Bob")
            await bob.host("start")
            await bob.wait_state()
            game, token = bob.room, bob.token
        assert lobby is not None and game is not None and token is not None
        deadline = time.monotonic() + 5
        while lobby in srv.manager.rooms:  # nobody in it and no game: closed
            assert time.monotonic() < deadline, "the empty lobby did not close"
            await asyncio.sleep(0.05)
        assert game in srv.manager.rooms  # a room with a game waits for its players
        async with client(srv) as bob:
            assert (await bob.resume(game, token)).seat == 0
            assert await refused(bob.watch(lobby)) != "ok"


def test_rooms_open_are_counted_per_opener() -> None:
    budgets = CreateBudgets(RoomSettings(rooms_per_minute=1.0, rooms_burst=2.0))
    # rooms open are counted per opener and forgotten when they close
    budgets.opened("AAAAA", "10.0.0.1")
    budgets.opened("BBBBB", "10.0.0.1")
    budgets.closed("AAAAA")
    budgets.closed("AAAAA")  # twice: no harm
    assert budgets.open_from("10.0.0.1") == 1


@pytest.mark.slow
async def test_cardroom_serve_flags_set_the_budgets() -> None:
    port = free_port()
    async with serve_process(port, "--max-rooms", "1", "--rooms-burst", "5"):
        url = f"ws://127.0.0.1:{port}/"
        async with CardroomClient.connect(url) as a, CardroomClient.connect(url) as b:
            await a.create("shithead", seats=2, name="A")
            assert await refused(b.create("shithead", seats=2, name="B")) == "too_many_rooms"
