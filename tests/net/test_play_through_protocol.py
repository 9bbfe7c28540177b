"""Whole games through a real server on loopback, with real WebSocket clients."""

from __future__ import annotations

import asyncio
import json

import pytest

from clients import CardroomClient
from protocol.views import outcome_of, result_of
from server.net.server import CardroomServer
from tests.support.server import play_until_over


async def test_one_human_and_bots_play_a_whole_shithead_game_and_the_next(
    server: CardroomServer,
) -> None:
    async with CardroomClient.connect(server.url) as ann:
        joined = await ann.create("shithead", seats=4, name="Ann")
        assert joined.seat == 0 and joined.token and len(joined.room) == 5
        await ann.host("fill_bots", level="basic")
        await ann.host("start")
        final = await play_until_over(ann)
        loser = outcome_of(final)["loser"]
        info = await ann.wait_room(lambda r: r.status == "between")
        assert info.games_played == 1
        assert info.totals == [int(s == loser) for s in range(4)]
        first_dealer = final["dealer"]
        # the next game of the series: the deal passes left, totals run on
        await ann.host("next_game")
        state = await ann.wait_state(lambda s: s.view["phase"] == "swap")
        assert state.view["dealer"] == (first_dealer + 1) % 4
        final2 = await play_until_over(ann)
        info = await ann.wait_room(lambda r: r.games_played == 2)
        assert sum(info.totals) == 2 and info.totals[outcome_of(final2)["loser"]] >= 1


async def test_one_human_and_four_bots_play_a_whole_sheepshead_hand(
    server: CardroomServer,
) -> None:
    async with CardroomClient.connect(server.url) as ann:
        await ann.create("sheepshead", seats=5, name="Ann")
        await ann.host("start")  # empty seats are filled with bots
        info = await ann.wait_room(lambda r: r.status != "lobby")
        assert [s.kind for s in info.seats] == ["human", "bot", "bot", "bot", "bot"]
        final = await play_until_over(ann)
        result = result_of(final)
        assert sum(result["units"]) == 0
        info = await ann.wait_room(lambda r: r.games_played == 1)
        assert info.totals == result["units"] and info.match_length == 10
        await ann.host("next_game")
        state = await ann.wait_state(lambda s: s.view["phase"] != "over")
        assert state.view["dealer"] == (final["dealer"] + 1) % 5


async def test_two_humans_and_bots_at_one_table(server: CardroomServer) -> None:
    async with (
        CardroomClient.connect(server.url) as ann,
        CardroomClient.connect(server.url) as bob,
    ):
        await ann.create("shithead", seats=3, name="Ann")
        joined = await bob.join(ann.room or "", name="Bob")
        assert joined.seat == 1
        await ann.host("start")
        views = await asyncio.gather(play_until_over(ann), play_until_over(bob))
        assert outcome_of(views[0]) == outcome_of(views[1])
        assert views[0]["seat"] == 0 and views[1]["seat"] == 1


async def test_chat_reaches_everyone_and_is_length_limited(server: CardroomServer) -> None:
    async with (
        CardroomClient.connect(server.url) as ann,
        CardroomClient.connect(server.url) as eve,
    ):
        await ann.create("shithead", seats=2, name="Ann")
        await eve.watch(ann.room or "")
        await eve.chat("good luck")
        line = await ann.wait_for(lambda msg: msg.type == "chat")
        assert line.text == "good luck" and line.seat is None  # type: ignore[union-attr]
        long = {"type": "chat", "id": "x", "room": ann.room, "text": "a" * 281}
        await eve.send_raw(json.dumps(long))
        error = await eve.wait_for(lambda msg: msg.type == "error")
        assert error.code == "invalid_message"  # type: ignore[union-attr]


@pytest.mark.slow
async def test_strong_bots_think_in_a_worker_process(server: CardroomServer) -> None:
    async with CardroomClient.connect(server.url, timeout=60) as ann:
        await ann.create("sheepshead", seats=5, name="Ann")
        await ann.host("fill_bots", level="strong")
        info = await ann.wait_room(lambda r: r.seats[1].kind == "bot")
        assert info.seats[1].bot_level == "strong"
        await ann.host("start")
        final = await play_until_over(ann, timeout=60)
        assert sum(result_of(final)["units"]) == 0
    assert server.manager.bot_pool.stats.decisions["strong"] > 0  # the searches ran in the pool
