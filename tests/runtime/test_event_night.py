"""A Sheepshead night over real sockets (docs/events.md): twelve people and three bots play a
duplicate event of three rounds of two hands to the end, each person resuming their seat at each
round's table with the token the event gives them; the rounds are reseated by the standings;
every table of a round is dealt the same cards (checked from the revealed seed, and by
``cardroom verify --event``); the standings and each deal's comparison are the numbers the
tables' histories give."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from clients import CardroomClient, CardroomError
from protocol import messages as m
from server.net.server import CardroomServer
from server.store.memory import MemoryStore
from server.tools import verify
from tests.support.events import check_night, histories_of, open_night, person
from tests.support.results_api import get
from tests.support.server import device_for, make_config

ROUNDS, HANDS, PEOPLE = 3, 2, 12
NAMES = [f"Player{i:02}" for i in range(PEOPLE)]


@pytest.fixture
async def night() -> AsyncIterator[CardroomServer]:
    config = make_config(grace=60.0, next_hand_delay=0.05, bot_delay=0.0)
    async with CardroomServer(config, store=MemoryStore()) as srv:
        yield srv


async def test_twelve_people_and_three_bots_play_a_duplicate_night(
    night: CardroomServer, tmp_path: Path
) -> None:
    url = f"ws://127.0.0.1:{night.port}/ws"
    async with contextlib.AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(CardroomClient.connect(url)) for _ in NAMES]
        for i, c in enumerate(clients):
            await c.hello(device=device_for(night, NAMES[i]))
        code = await open_night(clients, NAMES, ROUNDS, HANDS)
        infos = await asyncio.wait_for(asyncio.gather(*(person(c, code) for c in clients)), 240)
    info = infos[0]
    assert all(i == info for i in infos)
    histories = await histories_of(night.port, info)
    check_night(info, histories, NAMES, ROUNDS, HANDS)
    for seating in info.seatings:  # twelve people: three tables, three bots at the last
        assert [t.seats.count(None) for t in seating.tables] == [0, 0, 3]
    # and cardroom verify --event says so too
    argv = await asyncio.to_thread(write_inputs, tmp_path, info, histories)
    assert verify.main(argv) == 0
    status, page = await get(night, f"/api/events/{code}")
    assert status == 200 and page["phase"] == "over" and page["seed"] == info.seed


def write_inputs(tmp: Path, info: m.EventInfo, histories: list[dict[str, Any]]) -> list[str]:
    """``cardroom verify --event``'s arguments: the event's page and its tables' histories."""
    (tmp / "event.json").write_text(info.model_dump_json())
    files = []
    for i, history in enumerate(histories):
        files.append(str(tmp / f"t{i}.json"))
        Path(files[-1]).write_text(json.dumps(history))
    return ["--event", str(tmp / "event.json"), *files]


async def test_event_requests_are_refused_with_typed_errors(night: CardroomServer) -> None:
    url = f"ws://127.0.0.1:{night.port}/ws"
    async with CardroomClient.connect(url) as ann, CardroomClient.connect(url) as anon:
        await ann.hello(device=device_for(night, "ann"))
        await anon.hello()
        bad = m.EventCreate(id=1, name="Ann", game="sheepshead", table_size=4, rounds=2, hands=2)
        with pytest.raises(CardroomError) as info:
            await ann.request(bad, m.Ack)
        assert info.value.code == "bad_event"
        with pytest.raises(CardroomError) as info:
            await ann.request(m.EventJoin(id=2, event="ZZZZZ", name="Ann"), m.Ack)
        assert info.value.code == "event_not_found"
        with pytest.raises(CardroomError) as info:
            await ann.request(m.EventWatch(id=3, event="ZZZZZ"), m.Ack)
        assert info.value.code == "event_not_found"
        status, _ = await get(night, "/api/events/ZZZZZ")
        assert status == 404
