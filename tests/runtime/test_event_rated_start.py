"""An event that starts itself at its start time, and a rated event, over real sockets
(docs/events.md): the start time comes from the runtime's clock, with nobody pressing start; a
rated event takes one identity an address and its tables' match moves its people's ratings as
the openskill library says for the units they won; house rules or a start time in the past are
refused."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from openskill.models import PlackettLuce

from clients import CardroomClient, CardroomError
from protocol import messages as m
from server.net.server import CardroomServer
from server.store.leaderboard import player_id
from server.store.memory import MemoryStore
from server.store.ratings import ranks_by_score
from tests.support.events import histories_of, person
from tests.support.rated import person as from_address
from tests.support.rated import rated_config
from tests.support.server import device_for


@pytest.fixture
async def server() -> AsyncIterator[CardroomServer]:
    config = rated_config(grace=60.0, next_hand_delay=0.05, bot_delay=0.0)
    async with CardroomServer(config, store=MemoryStore()) as srv:
        yield srv


def create(**kw: object) -> m.EventCreate:
    args: dict[str, object] = {"id": "c", "name": "Ann", "game": "sheepshead", "table_size": 5}
    return m.EventCreate.model_validate({**args, "rounds": 1, "hands": 1, **kw})


async def opened(client: CardroomClient) -> str:
    frame = await client.wait_for(lambda x: isinstance(x, m.EventFrame), timeout=5)
    assert isinstance(frame, m.EventFrame)
    return frame.info.code


async def test_an_event_starts_itself_at_its_start_time(server: CardroomServer) -> None:
    ann = await from_address(server, "ann", "10.0.0.1")
    bob = await from_address(server, "bob", "10.0.0.2")
    at = time.time() + 0.6
    await ann.request(create(start_at=at), m.Ack)
    code = await opened(ann)
    await bob.request(m.EventJoin(id="j", event=code, name="Bob"), m.Ack)

    def seated(x: m.ServerMessage) -> bool:  # playing, and Bob's table open
        return isinstance(x, m.EventFrame) and x.you is not None and x.you.room is not None

    frame = await bob.wait_for(seated, timeout=5)  # nobody sent start
    assert isinstance(frame, m.EventFrame) and time.time() >= at
    assert frame.info.phase == "playing" and frame.info.start_at == at
    # a start time gone by, or more than a week ahead, is refused
    for bad in (time.time() - 1, time.time() + 8 * 24 * 3600):
        with pytest.raises(CardroomError) as refused:
            await ann.request(create(id="x", start_at=bad), m.Ack)
        assert refused.value.code == "bad_event"
    await ann.close()
    await bob.close()


async def test_a_rated_event_moves_ratings_and_seats_one_identity_an_address(
    server: CardroomServer,
) -> None:
    ann = await from_address(server, "ann", "10.0.0.1")
    ann2 = await from_address(server, "ann-again", "10.0.0.1")  # another identity, same address
    bob = await from_address(server, "bob", "10.0.0.2")
    with pytest.raises(CardroomError) as refused:  # rated: the book's rules only
        await ann.request(create(rated=True, options={"crack": True}), m.Ack)
    assert refused.value.code == "rated_not_allowed"
    await ann.request(create(rated=True), m.Ack)
    code = await opened(ann)
    with pytest.raises(CardroomError) as refused:
        await ann2.request(m.EventJoin(id="j", event=code, name="Ann2"), m.Ack)
    assert refused.value.code == "same_address"
    await bob.request(m.EventJoin(id="j", event=code, name="Bob"), m.Ack)
    await ann.request(m.EventHost(id="s", event=code, op="start"), m.Ack)
    infos = await asyncio.wait_for(asyncio.gather(person(ann, code), person(bob, code)), 60)
    info = infos[0]
    assert info.phase == "over" and info.rated
    [history] = await histories_of(server.port, info)
    [table] = info.seatings[0].tables
    units = history["games"][0]["result"]["units"]
    # SS-9.1: a rated Sheepshead table is rated by its match's units (here one hand)
    ranks = ranks_by_score(tuple(units))
    model = PlackettLuce()
    want = model.rate([[model.rating()] for _ in units], ranks=[float(r) for r in ranks])
    ratings = server.stores.ratings
    for who, name in (("ann", "Ann"), ("bob", "Bob")):
        seat = table.seats.index(name)
        deadline = time.monotonic() + 5
        while (
            got := await ratings.rating("sheepshead", player_id(device_for(server, who)))
        ).games == 0:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        assert got.games == 1
        assert got.mu == pytest.approx(want[seat][0].mu, abs=1e-9)
    for c in (ann, ann2, bob):
        await c.close()
