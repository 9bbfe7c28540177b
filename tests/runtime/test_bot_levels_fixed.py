"""A ranked game is won against the bots it was dealt with, over real WebSockets on loopback:
the host of a room whose results reach the boards cannot weaken a bot while a game is played
(a room with hints, which ranks nobody, still can)."""

from __future__ import annotations

import pytest

from clients import CardroomError
from server.net.server import CardroomServer
from tests.support.results_api import client


async def test_a_bots_level_is_fixed_during_a_ranked_game(server: CardroomServer) -> None:
    me = await client(server, "ann")
    await me.create("shithead", seats=2, name="Ann")
    await me.host("add_bot", seat=1, level="basic")
    await me.host("set_bot_level", seat=1, level="strong")  # in the lobby: the host's choice
    await me.host("start")
    await me.wait_state()
    with pytest.raises(CardroomError) as refused:
        await me.host("set_bot_level", seat=1, level="random")
    assert refused.value.code == "bot_level_fixed" and refused.value.message
    room = await me.wait_room() if me.room_info is None else me.room_info
    assert room.seats[1].bot_level == "strong"
    await me.close()


async def test_a_room_that_ranks_nobody_may_change_its_bots(server: CardroomServer) -> None:
    me = await client(server, "ann")
    await me.create("shithead", seats=2, name="Ann", hints=True)
    await me.host("start")
    await me.wait_state()
    await me.host("set_bot_level", seat=1, level="random")
    await me.close()
