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
from server.rooms.event_deals import deal_proof, draw
from server.rooms.event_scoring import HandScore, compare, standings
from server.rooms.event_seating import seat_in_order
from server.store.memory import MemoryStore
from server.tools import verify
from tests.support.results_api import get
from tests.support.server import choose, device_for, make_config

ROUNDS, HANDS, PEOPLE = 3, 2, 12
NAMES = [f"Player{i:02}" for i in range(PEOPLE)]


@pytest.fixture
async def night() -> AsyncIterator[CardroomServer]:
    config = make_config(grace=60.0, next_hand_delay=0.05, bot_delay=0.0)
    async with CardroomServer(config, store=MemoryStore()) as srv:
        yield srv


def frame_of(msg: m.ServerMessage) -> m.EventFrame | None:
    return msg if isinstance(msg, m.EventFrame) else None


async def play_table(client: CardroomClient, latest: list[m.EventFrame]) -> None:
    """Play this person's seat until their table has played its hands (``latest``: the last
    event frame seen meanwhile)."""
    turn = 0
    while True:
        msg = await client.wait_for(
            lambda x: isinstance(x, m.State | m.Room | m.EventFrame), timeout=60
        )
        if isinstance(msg, m.EventFrame):
            latest.append(msg)
        elif isinstance(msg, m.Room) and msg.room.status == "over":
            return
        elif isinstance(msg, m.State) and msg.seat is not None:
            view = msg.view
            if view["phase"] != "over" and msg.seat in view.get("to_act", []):
                turn += 1
                try:
                    await client.act(choose(view, turn), version=msg.version)
                except CardroomError as exc:
                    assert exc.code == "stale_version", exc


async def person(client: CardroomClient, code: str) -> m.EventInfo:
    """One person's night: each round, to their table with their token, play, leave (then
    watch the event again: its frame follows the ack)."""
    latest: list[m.EventFrame] = []
    done: set[int] = set()
    while True:
        frame = next(
            (
                f
                for f in reversed(latest)
                if f.info.phase == "over"
                or (f.you and f.you.room and f.info.round not in done and f.info.phase == "playing")
            ),
            None,
        )
        latest.clear()
        if frame is None:
            got = await client.wait_for(lambda x: isinstance(x, m.EventFrame), timeout=30)
            assert isinstance(got, m.EventFrame)
            latest.append(got)
            continue
        if frame.info.phase == "over":
            return frame.info
        assert frame.you is not None and frame.you.room and frame.you.token
        done.add(frame.info.round)
        await client.resume(frame.you.room, frame.you.token)
        await play_table(client, latest)
        await client.leave()
        await client.request(m.EventWatch(id=f"w{frame.info.round}", event=code), m.Ack)


async def test_twelve_people_and_three_bots_play_a_duplicate_night(
    night: CardroomServer, tmp_path: Path
) -> None:
    url = f"ws://127.0.0.1:{night.port}/ws"
    async with contextlib.AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(CardroomClient.connect(url)) for _ in NAMES]
        for i, c in enumerate(clients):
            await c.hello(device=device_for(night, NAMES[i]))
        await night_played(night, clients, tmp_path)


async def night_played(
    night: CardroomServer, clients: list[CardroomClient], tmp_path: Path
) -> None:
    host = clients[0]
    create = m.EventCreate(
        id="c", name=NAMES[0], game="sheepshead", table_size=5, rounds=ROUNDS, hands=HANDS,
        duplicate=True,
    )  # fmt: skip
    await host.request(create, m.Ack)
    first = await host.wait_for(lambda x: isinstance(x, m.EventFrame), timeout=5)
    assert isinstance(first, m.EventFrame)
    code = first.info.code
    assert first.info.seed is None and len(first.info.commitment) == 64
    for i, c in enumerate(clients[1:], 1):
        await c.request(m.EventJoin(id="j", event=code, name=NAMES[i]), m.Ack)
    # rule: only the host starts it
    with pytest.raises(CardroomError) as refused:
        await clients[1].request(m.EventHost(id="s", event=code, op="start"), m.Ack)
    assert refused.value.code == "not_host"
    await host.request(m.EventHost(id="s", event=code, op="start"), m.Ack)
    infos = await asyncio.wait_for(asyncio.gather(*(person(c, code) for c in clients)), 240)
    info = infos[0]
    assert all(i.phase == "over" for i in infos)
    assert info.seed is not None and len(info.seatings) == ROUNDS
    seed = bytes.fromhex(info.seed)

    # round 1 is the draw; every round seats three tables, three bots at the last
    assert [t.seats for t in info.seatings[0].tables] == [
        list(t) for t in seat_in_order(draw(seed, NAMES), 5)
    ]
    for seating in info.seatings:
        assert [t.seats.count(None) for t in seating.tables] == [0, 0, 3]
        assert all(t.played == HANDS for t in seating.tables)

    # every table's history, and from it each hand's units per seat
    hands: list[HandScore] = []
    histories = []
    for r, seating in enumerate(info.seatings):
        decks = []
        for t in seating.tables:
            assert t.room is not None
            status, history = await get(night, f"/api/rooms/{t.room}/history")
            assert status == 200 and len(history["games"]) == HANDS
            histories.append(history)
            for item in history["games"]:
                g = item["g"]
                # the deal of hand g of round r, from the revealed seed, at every table
                expected = deal_proof(seed, r, g, 5)
                assert item["proof"]["seed"] == expected.seed.hex()
                assert item["proof"]["dealer"] == expected.dealer
                units = tuple(item["result"]["units"])
                hands.append(HandScore(r, g, t.table, tuple(t.seats), units))
            decks.append([item["deal"]["deck"] for item in history["games"]])
        assert decks[0] == decks[1] == decks[2]  # duplicate: the same cards at every table

    # reseated by the standings of the rounds before
    for r in range(1, ROUNDS):
        before = standings(NAMES, [h for h in hands if h.round < r], duplicate=True)
        order = [s.player for s in before]
        assert [t.seats for t in info.seatings[r].tables] == [
            list(t) for t in seat_in_order(order, 5)
        ]
    # the final standings and each deal's comparison are the histories' numbers
    final = {s.player: s for s in standings(NAMES, hands, duplicate=True)}
    for s in info.standings:
        mine = final[s.name]
        assert (s.rank, s.units, s.hands) == (mine.rank, mine.units, ROUNDS * HANDS)
        assert s.against == pytest.approx(float(mine.against))
        assert s.matchpoints == pytest.approx(float(mine.matchpoints))
    assert len(info.deals) == ROUNDS * HANDS
    for deal in info.deals:
        rows = compare([h for h in hands if h.deal == (deal.round, deal.hand)])
        shown = [
            (t.table, i, s.units, round(s.against, 6))
            for t in deal.tables
            for i, s in enumerate(t.seats)
        ]
        assert shown == [(c.table, c.seat, c.units, round(float(c.against), 6)) for c in rows]

    # and cardroom verify --event says so too
    argv = await asyncio.to_thread(write_inputs, tmp_path, info, histories)
    assert verify.main(argv) == 0
    status, page = await get(night, f"/api/events/{code}")
    assert status == 200 and page["phase"] == "over" and page["seed"] == info.seed


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


def write_inputs(tmp: Path, info: m.EventInfo, histories: list[dict[str, Any]]) -> list[str]:
    """``cardroom verify --event``'s arguments: the event's page and its tables' histories."""
    (tmp / "event.json").write_text(info.model_dump_json())
    files = []
    for i, history in enumerate(histories):
        files.append(str(tmp / f"t{i}.json"))
        Path(files[-1]).write_text(json.dumps(history))
    return ["--event", str(tmp / "event.json"), *files]
