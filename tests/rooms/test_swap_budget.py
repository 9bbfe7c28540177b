"""A Shithead game's log cannot grow without bound in its swap phase: SH-2.3 lets a player
swap as often as they like, so the room bounds the swaps one seat makes in one game
(``max_swaps``); past it a swap is refused with ``too_many_swaps`` and nothing changes."""

from __future__ import annotations

import pytest

from clients import CardroomClient, CardroomError
from protocol.messages import State
from server.net.server import CardroomServer
from server.store.memory import MemoryStore
from tests.support.server import make_config


async def swap_once(ann: CardroomClient, state: State) -> State:
    swap = next(a for a in state.view["legal"] if a["kind"] == "swap")
    acked = (await ann.act(swap)).version
    assert acked is not None
    return await ann.wait_state(lambda s: s.version >= acked)


async def test_swaps_past_the_rooms_budget_are_refused_and_change_nothing() -> None:
    # rule SH-2.3: swapping is free, but a seat's swaps in one game are bounded by the room
    async with CardroomServer(make_config(max_swaps=3), store=MemoryStore()) as srv:
        ann = await CardroomClient.connect(srv.url)
        try:
            await ann.create("shithead", seats=2, name="Ann")
            await ann.host("fill_bots", level="random")
            await ann.host("start")
            state = await ann.wait_state(
                lambda s: s.view["phase"] == "swap" and s.view["to_act"] == [0]
            )
            for _ in range(3):
                state = await swap_once(ann, state)
            room = srv.manager.rooms[ann.room or ""].core
            record, version = room.record(), room.version
            swap = next(a for a in state.view["legal"] if a["kind"] == "swap")
            with pytest.raises(CardroomError) as refused:
                await ann.act(swap)
            assert refused.value.code == "too_many_swaps"
            assert (room.record(), room.version) == (record, version)  # nothing changed
            await ann.act({"kind": "ready"})  # the game goes on
            await ann.wait_state(lambda s: s.view["phase"] == "play")
        finally:
            await ann.close()
