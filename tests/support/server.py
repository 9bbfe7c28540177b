"""A real server on a loopback port (the ``store`` and ``server`` fixtures, registered for the
whole suite by tests/conftest.py), and helpers to play through the protocol."""

from __future__ import annotations

import asyncio
import itertools
import random
import time
import weakref
from collections.abc import AsyncIterator
from typing import Any

import pytest

from clients import CardroomClient, CardroomError
from clients.client import ActionLike
from protocol.views import ActionWire, View
from server.net.server import CardroomServer, ServerConfig
from server.rooms.settings import RoomSettings
from server.store.memory import MemoryStore

#: The turn from which :func:`choose` leaves its fixed order (see there).
LOOP_TURN = 60


def make_config(**rooms: Any) -> ServerConfig:
    settings = {"grace": 30.0, "idle_timeout": 60.0, "bot_delay": 0.0, **rooms}
    # scripted clients act much faster than people: a generous rate limit (its own test sets one)
    return ServerConfig(
        host="127.0.0.1",
        port=0,
        rate=1000.0,
        burst=1000.0,
        history_rate=1000.0,
        history_burst=1000.0,
        miss_rate=1000.0,  # tests ask for rooms that are gone (their own test sets a budget)
        miss_burst=1000.0,
        devices_per_address=10_000,  # every test client comes from 127.0.0.1
        rooms=RoomSettings(**settings),
    )


_ISSUED: weakref.WeakKeyDictionary[CardroomServer, dict[str, str]] = weakref.WeakKeyDictionary()


def device_for(server: CardroomServer, who: str) -> str:
    """The device identity ``who`` keeps for ``server``: one the server issued (a made-up
    device ranks nothing), the same each time it is asked for."""
    issued = _ISSUED.setdefault(server, {})
    if who not in issued:
        token = server.devices.mint(f"test:{who}")
        assert token is not None
        issued[who] = token
    return issued[who]


@pytest.fixture
async def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
async def server(store: MemoryStore) -> AsyncIterator[CardroomServer]:
    async with CardroomServer(make_config(), store=store) as srv:
        yield srv


def choose(view: View, turn: int = 0) -> ActionWire:
    """A simple human policy from the view alone: ready at once, else the lowest play.

    Two fixed policies can pass the same Shithead pile back and forth for ever (a pick-up never
    burns anything, SH-4.7), so from the ``LOOP_TURN``-th turn on a play is drawn at random
    (seeded by ``turn``): still reproducible, and it leaves such a cycle.
    """
    legal = view["legal"]
    if view["phase"] == "swap":
        return {"kind": "ready"}
    plays = [a for a in legal if a["kind"] == "play"]
    if plays and turn >= LOOP_TURN:
        return random.Random(turn).choice(plays)
    if plays and view["game"] == "shithead":
        order = "3456789JQKA2T"
        return min(plays, key=lambda a: (order.index(a["cards"][0][0]), -len(a["cards"])))
    return plays[0] if plays else legal[0]


async def play_until_over(client: CardroomClient, timeout: float = 60.0) -> View:
    """Play this client's turns until its game is over; return the final view."""
    turns = itertools.count()
    while True:
        turn = next(turns)
        state = await client.wait_turn(timeout=timeout)
        if state.view["phase"] == "over":
            return state.view
        try:
            await client.act(choose(state.view, turn), version=state.version)
        except CardroomError as exc:
            # another seat moved first (a simultaneous phase): the fresh view follows
            assert exc.code == "stale_version", exc


async def act_fresh(client: CardroomClient, action: ActionLike) -> int:
    """Act at the latest version, retrying while other seats move first (stale_version).

    Returns the new version; other refusals raise :class:`CardroomError`.
    """
    for _ in range(50):
        try:
            return (await client.act(action)).version or 0
        except CardroomError as exc:
            if exc.code != "stale_version":
                raise
            await client.wait_state()
    raise AssertionError("the game kept moving: no fresh version in 50 tries")


async def two_ranked_people_play(server: CardroomServer, **create: Any) -> str:
    """Ann and Bob, with device identities that would rank, play one Shithead game in a room
    Ann creates with ``create``'s extras (``hints``, ``options``); returns the room's code once
    its history (and so its results) is stored."""
    ann = await CardroomClient.connect(server.url, hello=False)
    await ann.hello(device=device_for(server, "ann"))
    bob = await CardroomClient.connect(server.url, hello=False)
    await bob.hello(device=device_for(server, "bob"))
    await ann.create("shithead", seats=2, name="Ann", **create)
    assert ann.room is not None
    await bob.join(ann.room, name="Bob")
    await ann.host("start")
    await asyncio.gather(play_until_over(ann), play_until_over(bob))
    deadline = time.monotonic() + 10
    while not await server.store.history(ann.room):  # history and results are stored together
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)
    await ann.close()
    await bob.close()
    return ann.room
