"""A Sheepshead night played by scripted people over real sockets, and the checks of its end
against its tables' histories (tests/runtime/test_event_night.py, test_event_redis.py)."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import pytest

from clients import CardroomClient, CardroomError
from protocol import messages as m
from server.rooms.event_deals import deal_proof, draw
from server.rooms.event_scoring import HandScore, compare, standings
from server.rooms.event_seating import seat_in_order
from tests.support.server import choose


def get_at(port: int, path: str) -> tuple[int, Any]:
    """GET on loopback ``port`` (call it in a thread)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


async def open_night(
    clients: Sequence[CardroomClient], names: Sequence[str], rounds: int, hands: int
) -> str:
    """The first client opens a duplicate Sheepshead event, the others join, the host starts
    it; its code."""
    host = clients[0]
    create = m.EventCreate(
        id="c", name=names[0], game="sheepshead", table_size=5, rounds=rounds, hands=hands,
        duplicate=True,
    )  # fmt: skip
    await host.request(create, m.Ack)
    first = await host.wait_for(lambda x: isinstance(x, m.EventFrame), timeout=5)
    assert isinstance(first, m.EventFrame)
    code = first.info.code
    assert first.info.seed is None and len(first.info.commitment) == 64
    for i, c in enumerate(clients[1:], 1):
        await c.request(m.EventJoin(id="j", event=code, name=names[i]), m.Ack)
    with pytest.raises(CardroomError) as refused:  # only the host starts it
        await clients[1].request(m.EventHost(id="s", event=code, op="start"), m.Ack)
    assert refused.value.code == "not_host"
    await host.request(m.EventHost(id="s", event=code, op="start"), m.Ack)
    return code


async def play_table(client: CardroomClient, latest: list[m.EventFrame]) -> None:
    """Play this person's seat until their table has played its hands (``latest``: the event
    frames seen meanwhile)."""
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


def _next(latest: list[m.EventFrame], done: set[int]) -> m.EventFrame | None:
    for f in reversed(latest):
        if f.info.phase == "over":
            return f
        if f.you and f.you.room and f.info.phase == "playing" and f.info.round not in done:
            return f
    return None


#: A person's way to their table elsewhere: given the event's frame that seats them, a client
#: that has resumed their seat there (on the process a proxy would route the table's code to).
AtTable = Callable[[m.EventFrame], Awaitable[CardroomClient]]


async def person(client: CardroomClient, code: str, at_table: AtTable | None = None) -> m.EventInfo:
    """One person's night: each round, to their table with the event's token (on this
    connection, or on the one ``at_table`` opens), play, leave, and watch the event again (its
    frame follows the ack)."""
    latest: list[m.EventFrame] = []
    done: set[int] = set()
    while True:
        frame = _next(latest, done)
        latest.clear()
        if frame is None:
            got = await client.wait_for(lambda x: isinstance(x, m.EventFrame), timeout=60)
            assert isinstance(got, m.EventFrame)
            latest.append(got)
            continue
        if frame.info.phase == "over":
            return frame.info
        assert frame.you is not None and frame.you.room and frame.you.token
        done.add(frame.info.round)
        if at_table is None:
            player = client
            await client.resume(frame.you.room, frame.you.token)
        else:
            player = await at_table(frame)
        await play_table(player, latest)
        await player.leave()
        if player is not client:
            await player.close()
        await client.request(m.EventWatch(id=f"w{frame.info.round}", event=code), m.Ack)


async def histories_of(port: int, info: m.EventInfo) -> list[dict[str, Any]]:
    """Every table's history, round by round, table by table."""
    out = []
    for seating in info.seatings:
        for t in seating.tables:
            status, history = await asyncio.to_thread(get_at, port, f"/api/rooms/{t.room}/history")
            assert status == 200, history
            out.append(history)
    return out


def check_night(
    info: m.EventInfo,
    histories: list[dict[str, Any]],
    names: Sequence[str],
    rounds: int,
    hands_a_round: int,
) -> None:
    """The night as its revealed seed and its tables' histories say it must be: round 1 the
    draw, bots at the last table, every table of a round dealt the event's deals (the same
    cards), later rounds seated by the standings, the standings and each deal's comparison."""
    assert info.phase == "over" and info.seed is not None and len(info.seatings) == rounds
    seed = bytes.fromhex(info.seed)
    assert [t.seats for t in info.seatings[0].tables] == [
        list(t) for t in seat_in_order(draw(seed, list(names)), 5)
    ]
    hands: list[HandScore] = []
    tables = iter(histories)
    for r, seating in enumerate(info.seatings):
        assert [t.seats.count(None) for t in seating.tables][:-1] == [0] * (len(seating.tables) - 1)
        assert all(t.played == hands_a_round for t in seating.tables)
        decks = []
        for t in seating.tables:
            history = next(tables)
            assert history["room"] == t.room and len(history["games"]) == hands_a_round
            for item in history["games"]:
                g = item["g"]
                expected = deal_proof(seed, r, g, 5)  # from the revealed seed
                assert item["proof"]["seed"] == expected.seed.hex()
                assert item["proof"]["dealer"] == expected.dealer
                hands.append(
                    HandScore(r, g, t.table, tuple(t.seats), tuple(item["result"]["units"]))
                )
            decks.append([item["deal"]["deck"] for item in history["games"]])
        assert all(d == decks[0] for d in decks)  # duplicate: the same cards at every table
    for r in range(1, rounds):  # reseated by the standings of the rounds before
        before = standings(list(names), [h for h in hands if h.round < r], duplicate=True)
        order = [s.player for s in before]
        assert [t.seats for t in info.seatings[r].tables] == [
            list(t) for t in seat_in_order(order, 5)
        ]
    final = {s.player: s for s in standings(list(names), hands, duplicate=True)}
    for s in info.standings:
        mine = final[s.name]
        assert (s.rank, s.units, s.hands) == (mine.rank, mine.units, rounds * hands_a_round)
        assert s.against == pytest.approx(float(mine.against))
        assert s.matchpoints == pytest.approx(float(mine.matchpoints))
    assert len(info.deals) == rounds * hands_a_round
    for deal in info.deals:
        rows = compare([h for h in hands if h.deal == (deal.round, deal.hand)])
        shown = [
            (t.table, i, s.units, round(s.against, 6))
            for t in deal.tables
            for i, s in enumerate(t.seats)
        ]
        assert shown == [(c.table, c.seat, c.units, round(float(c.against), 6)) for c in rows]
