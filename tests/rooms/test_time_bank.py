"""The time bank over real sockets: a turn that runs over the timer goes on, on the seat's
reserve (everyone is shown the new deadline and whose bank runs); the time used is charged;
a turn that runs out of bank too is played by the stand-in; the bank needs a turn timer."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from clients import CardroomClient
from protocol import messages as m
from server.net.server import CardroomServer
from server.store.memory import MemoryStore
from tests.support.server import device_for, make_config

pytestmark = pytest.mark.slow

TIMER, BANK = 1, 5


def person(srv: CardroomServer, who: str) -> Any:
    return CardroomClient.connect(srv.url, device=device_for(srv, who))


async def banking(client: CardroomClient, seat: int | None) -> m.RoomInfo:
    msg = await client.wait_for(
        lambda msg: isinstance(msg, m.Room) and msg.room.banking == seat, timeout=10
    )
    assert isinstance(msg, m.Room)
    return msg.room


async def test_a_turn_over_the_timer_spends_the_bank_then_the_stand_in_plays(
    store: MemoryStore,
) -> None:
    async with (
        CardroomServer(make_config(), store=store) as srv,
        person(srv, "ann") as ann,
        person(srv, "bob") as bob,
    ):
        await ann.create("shithead", seats=2, name="Ann", turn_timer=TIMER, time_bank=BANK)
        await bob.join(ann.room or "", name="Bob")
        assert ann.room_info is not None and ann.room_info.time_bank == BANK
        await ann.host("start")
        for c in (ann, bob):  # the swap keeps the plain timer: both get ready at once
            await c.wait_turn()
            await c.act("ready")
        state = await ann.wait_turn()
        slow, quick = (ann, bob) if ann.seat in state.view["to_act"] else (bob, ann)
        seat = slow.seat
        assert seat is not None
        # the slow player lets the timer run out: the turn goes on, on their bank
        info = await banking(quick, seat)
        began = time.time()
        assert info.banks is not None and info.banks[seat] == BANK
        other = info.banks[1 - seat]  # (its first turn may have run over while we waited)
        moved = await slow.wait_for(
            lambda msg: isinstance(msg, m.State) and (msg.deadline or 0) > began + BANK - 0.5
        )
        assert isinstance(moved, m.State) and moved.deadline is not None
        assert moved.deadline == pytest.approx(began + BANK, abs=0.5)
        await asyncio.sleep(1.5)  # then plays, 1.5 s into the bank
        turn = await slow.wait_turn()
        await slow.act(turn.view["legal"][0])
        info = await banking(quick, None)
        assert info.banks is not None
        assert info.banks[seat] == pytest.approx(BANK - 1.5, abs=0.4)
        assert info.banks[1 - seat] == other  # the other seat's untouched by this turn
        # the quick player plays on; the slow seat's next turn runs out of timer and bank, and
        # the stand-in moves for it
        left = info.banks[seat]
        quick_play = asyncio.create_task(play_on(quick))
        try:
            out = await slow.wait_for(
                lambda msg: (
                    isinstance(msg, m.Room)
                    and msg.room.banks is not None
                    and msg.room.banks[seat] == 0.0
                ),
                timeout=30,
            )
            assert isinstance(out, m.Room) and out.room.banking is None
            stood_in = await slow.wait_for(
                lambda msg: (
                    isinstance(msg, m.State)
                    and any(e.get("timed_out") and e.get("seat") == seat for e in msg.events)
                ),
                timeout=30,
            )
            assert stood_in is not None
        finally:
            quick_play.cancel()
        assert left > 0


async def play_on(client: CardroomClient) -> None:
    """Play ``client``'s every turn at once, with its first legal action, until the end."""
    while True:
        state = await client.wait_turn(timeout=60)
        if state.view["phase"] == "over":
            return
        await client.act(state.view["legal"][0])


def test_a_time_bank_needs_a_turn_timer() -> None:
    create = {"type": "create", "id": 1, "game": "shithead", "seats": 2, "name": "Ann"}
    with pytest.raises(ValueError, match="a time bank needs a turn timer"):
        m.parse_client(json.dumps({**create, "time_bank": 30}))
    ok = m.parse_client(json.dumps({**create, "time_bank": 30, "turn_timer": 20}))
    assert isinstance(ok, m.Create) and ok.time_bank == 30
