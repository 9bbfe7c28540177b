"""House rules through a real server on loopback (real WebSockets): ``create`` takes them,
room info and every view show them, the game is played under them, the hand history replays
and ``cardroom verify`` checks under them; wrong ones are refused with a typed error, nothing
opened; and a room stored in Redis keeps them across a restart."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest

from clients import CardroomClient
from protocol.messages import SheepsheadOptions, ShitheadOptions
from protocol.views import sheepshead_view, shithead_view
from server.net.server import CardroomServer
from server.rooms.core import RoomCore
from server.rooms.seeds import Keys
from server.rooms.settings import RoomSettings
from server.store.history import replay
from server.store.leaderboard import Board
from server.tools import verify
from server.tools.bench.procs import free_port
from server.tools.bench.redis_server import RedisServer
from tests.support.http import request
from tests.support.redis_games import serving
from tests.support.results_api import auth, get
from tests.support.server import play_until_over, two_ranked_people_play

ALL_THREE = {"seven_lower": True, "eight_skips": True, "three_invisible": True}


async def history(server: CardroomServer, code: str, token: str) -> Any:
    """The room's history once its first game is in it (a bound: 5 s)."""
    for _ in range(100):
        status, body = await get(server, f"/api/rooms/{code}/history?game=0&steps=1", token)
        if status == 200 and body["games"]:
            return body
        await asyncio.sleep(0.05)
    raise AssertionError(f"no game in {code}'s history")


async def history_at(port: int, code: str, token: str) -> Any:
    """A served room's history once its first game is in it (a bound: 5 s)."""
    for _ in range(100):
        status, _, body = await asyncio.to_thread(
            request, port, f"/api/rooms/{code}/history", auth(token)
        )
        if status == 200 and json.loads(body)["games"]:
            return json.loads(body)
        await asyncio.sleep(0.05)
    raise AssertionError(f"no game in {code}'s history")


async def error_for(client: CardroomClient, frame: dict[str, Any]) -> str:
    await client.send_raw(json.dumps(frame))
    error = await client.wait_for(lambda msg: msg.type == "error" and msg.ref == frame["id"])
    return str(error.code)  # type: ignore[union-attr]


async def test_a_room_plays_by_the_house_rules_its_creator_chose(server: CardroomServer) -> None:
    # rule SH-7.1: chosen at create, shown to everyone before the first game, for every game.
    # rule SH-7.5: every view shows the rules in force.
    async with (
        CardroomClient.connect(server.url) as ann,
        CardroomClient.connect(server.url) as eve,
    ):
        await ann.create("shithead", seats=3, name="Ann", options=ALL_THREE)
        code = ann.room or ""
        await eve.watch(code)
        lobby = await eve.wait_room(lambda r: r.status == "lobby")
        assert lobby.options == ShitheadOptions(**ALL_THREE)
        await ann.host("fill_bots", level="basic")
        await ann.host("start")
        first = await eve.wait_state(lambda s: s.version >= 1)
        assert first.view["game"] == "shithead" and first.view["options"] == ALL_THREE
        final = shithead_view(await play_until_over(ann))
        assert final["options"] == ALL_THREE
        body = await history(server, code, ann.token or "")
    (item,) = body["games"]
    assert item["deal"]["options"] == ALL_THREE  # the record deals the same game again
    rebuilt = replay(item)
    assert rebuilt.outcome() is not None and rebuilt.outcome().to_json() == item["result"]
    assert all(step["view"]["options"] == ALL_THREE for step in item["steps"])
    assert verify.verify(body, {}) == [(0, None)]
    # without its options the log is not this game: verify says so
    plain = {**item, "deal": {**item["deal"], "options": {}}}
    assert verify.check_game(plain, {}) is not None


async def test_wrong_house_rules_are_refused_and_open_no_room(server: CardroomServer) -> None:
    async with CardroomClient.connect(server.url) as ann:
        base = {"type": "create", "game": "shithead", "seats": 3, "name": "Ann"}
        unknown = {**base, "id": "a", "options": {"jokers": True}}
        assert await error_for(ann, unknown) == "invalid_message"
        wrong_value = {**base, "id": "b", "options": {"seven_lower": "yes please"}}
        assert await error_for(ann, wrong_value) == "invalid_message"
        other_game = {**base, "id": "c", "game": "sheepshead", "seats": 5}
        other_game["options"] = {"eight_skips": True}
        assert await error_for(ann, other_game) == "invalid_message"
        # SS-10.1: a daily room plays by the book, always
        daily = {**base, "id": "d", "daily": True, "options": {"seven_lower": True}}
        assert await error_for(ann, daily) == "daily_options"
        assert ann.room is None and not server.manager.rooms
        # the same room by the book opens
        joined = await ann.create("shithead", seats=3, name="Ann", daily=True)
        assert joined.room and len(server.manager.rooms) == 1


async def test_a_sheepshead_room_plays_by_its_house_rules_and_its_daily_by_the_book(
    server: CardroomServer,
) -> None:
    # rule SS-10.1: the creator's options reach the room, its info and every view of the
    # match (joined with the plumbing of SH-7); a daily Sheepshead room refuses them.
    rules = {"partner": "jack_of_diamonds", "no_pick": "doubler", "crack": True}
    async with CardroomClient.connect(server.url) as ann:
        daily = {"type": "create", "id": "d", "game": "sheepshead", "seats": 5, "name": "Ann"}
        daily |= {"daily": True, "options": {"crack": True}}
        assert await error_for(ann, daily) == "daily_options"
        assert ann.room is None and not server.manager.rooms
        await ann.create("sheepshead", seats=5, name="Ann", options=rules)
        info = await ann.wait_room(lambda r: r.status == "lobby")
        assert info.options == SheepsheadOptions.model_validate(rules)
        await ann.host("fill_bots", level="basic")
        await ann.host("start")
        state = await ann.wait_state(lambda s: s.version >= 1)
        view = sheepshead_view(state.view)
        assert view["options"] == SheepsheadOptions.model_validate(rules).model_dump()
        assert view["multiplier"] == 1
        final = sheepshead_view(await play_until_over(ann))
        assert final["options"] == view["options"]
        result = final["result"]
        assert result is not None and sum(result["units"]) == 0


async def test_left_out_options_are_the_books(server: CardroomServer) -> None:
    # rule SH-7.1: with every option off the game is the book's; room info names every option.
    async with CardroomClient.connect(server.url) as ann:
        await ann.create("shithead", seats=2, name="Ann")
        info = await ann.wait_room(lambda r: r.status == "lobby")
        assert info.options == ShitheadOptions()
        await ann.host("fill_bots", level="random")
        await ann.host("start")
        state = await ann.wait_state(lambda s: s.version >= 1)
        assert shithead_view(state.view)["options"] == ShitheadOptions().model_dump()


@pytest.mark.slow
async def test_a_stored_room_keeps_its_house_rules_across_a_restart(
    redis_server: RedisServer,
) -> None:
    # rule SH-7.1: the options never change in the room, a restart included.
    port = free_port()
    url = f"ws://127.0.0.1:{port}/"
    rules = {"eight_skips": True, "three_invisible": True}
    every = {"seven_lower": False, **rules}
    async with serving(port, redis_server.url) as first:
        ann = await CardroomClient.connect(url)
        await ann.create("shithead", seats=2, name="Ann", options=rules)
        code = ann.room or ""
        await ann.host("fill_bots", level="basic")
        await ann.host("start")
        await ann.wait_state(lambda s: s.version >= 1, timeout=10)
        first.kill()  # SIGKILL mid-game: the room lives on in Redis only
        await first.wait()
        token = ann.token or ""
        await ann.close()
    async with serving(port, redis_server.url):
        ann = await CardroomClient.connect(url)
        await ann.resume(code, token)
        info = await ann.wait_room(lambda r: r.room == code, timeout=10)
        assert info.options == ShitheadOptions(**rules)
        again = await ann.wait_state(timeout=10)
        assert shithead_view(again.view)["options"] == every
        await play_until_over(ann)
        body = await history_at(port, code, ann.token or "")
        await ann.close()
    (item,) = body["games"]
    assert item["deal"]["options"] == rules
    assert replay(item).outcome() is not None
    assert verify.verify(body, {}) == [(0, None)]


def test_the_room_record_carries_the_options_and_an_old_record_means_the_defaults() -> None:
    # rule SH-7.1: the record rebuilds the room with its rules; a record from before house
    # rules has none, and is the book's game.
    settings = RoomSettings(keys=Keys(bytes(range(32))))
    rules = ShitheadOptions(eight_skips=True)
    room = RoomCore("ABCDE", "shithead", 2, settings=settings, options=rules)
    room.start_match(0.0)
    record = room.record()
    assert record["options"] == rules.model_dump()
    assert record["match"] is not None and record["match"]["options"] == rules.model_dump()
    again = RoomCore.from_record(record, settings)
    assert again.options == rules and again.match is not None
    assert again.match.current.deal_record() == room.match.current.deal_record()  # type: ignore[union-attr]
    old = copy.deepcopy(record)
    old["options"] = {}
    assert old["match"] is not None
    del old["match"]["options"]
    before = RoomCore.from_record(old, settings)
    assert before.options == ShitheadOptions() and before.match is not None
    assert before.match.current.deal_record()["options"] == {}


async def test_the_all_time_board_ranks_only_the_books_game(server: CardroomServer) -> None:
    # decided in docs/rules.md (SH-7): a room with house rules is kept, but ranks nobody.
    await two_ranked_people_play(server)
    board = Board.alltime("shithead")
    ranked = {e.name: e.games for e in await server.stores.boards.top(board)}
    assert ranked == {"Ann": 1, "Bob": 1}  # the book's game ranks them
    await two_ranked_people_play(server, options={"seven_lower": True})
    assert {e.name: e.games for e in await server.stores.boards.top(board)} == ranked
