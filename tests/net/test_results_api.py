"""Leaderboards and hand history through a real server: the daily Sheepshead table fed only by
the server's own results, readable through the protocol and ``/api/leaderboard``; a finished
game's history at ``/api/rooms/CODE/history`` replays through the rules core."""

from __future__ import annotations

import asyncio
import gzip
import json
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest
from websockets.asyncio.client import connect

from clients import CardroomError
from server.net.server import CardroomServer
from server.rules.base import Action
from server.store.base import StoreUnavailable
from server.store.history import replay
from server.store.leaderboard import Board, Player
from server.store.memory import MemoryStore
from server.tools.bench.redis_server import RedisServer
from tests.support.results_api import ANN, BOB, auth, client, get, play_daily
from tests.support.server import device_for, make_config, play_until_over

pytestmark = pytest.mark.slow

NO_HISTORY = {"error": "room_not_found", "message": "no history for this room code"}


@pytest.fixture(params=["memory", "redis"])
async def server(request: pytest.FixtureRequest) -> AsyncIterator[CardroomServer]:
    config = make_config(idle_timeout=0.2)
    if request.param == "redis":
        redis: RedisServer = request.getfixturevalue("redis_server")
        config = replace(config, redis_url=redis.url)
    async with CardroomServer(config) as srv:
        yield srv


def _get_gzip(server: CardroomServer, path: str, token: str) -> tuple[str | None, Any]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.port}{path}",
        headers={"Accept-Encoding": "gzip", **auth(token)},
    )
    with urllib.request.urlopen(request, timeout=5) as r:
        encoding = r.headers.get("Content-Encoding")
        raw = r.read()
    return encoding, json.loads(gzip.decompress(raw) if encoding == "gzip" else raw)


async def daily_match(server: CardroomServer, device: str, name: str) -> tuple[str, str, int]:
    """One human against four bots on today's deals (rule SS-9.2), all ten hands."""
    me = await client(server, device)
    await play_daily(me, name)
    room = await me.wait_room(lambda r: r.games_played == 10)
    assert me.room is not None and me.token is not None
    code, token = me.room, me.token
    await me.close()
    return code, token, room.totals[0]


async def test_daily_table_ranks_the_servers_own_results(server: CardroomServer) -> None:
    (ann_room, ann_token, ann_units), (bob_room, _, bob_units) = await asyncio.gather(
        daily_match(server, ANN, "Ann"), daily_match(server, BOB, "Bob")
    )

    # rule SS-9.2: both played the same ten deals (as stored: the API serves them once the
    # day is over, its players included)
    async def recorded() -> bool:  # the last hand is stored a moment after it ends, then its
        # results
        rooms = (ann_room, bob_room)
        stored = [len(await server.store.history(room)) for room in rooms]
        return stored == [10, 10] and await server.stores.boards.size(Board.parse("daily")) == 2

    async with asyncio.timeout(10):
        while not await recorded():  # noqa: ASYNC110
            await asyncio.sleep(0.05)
    ann_games = await server.store.history(ann_room)
    bob_games = await server.store.history(bob_room)
    assert [g["deal"] for g in ann_games] == [g["deal"] for g in bob_games]
    assert len(ann_games) == 10
    status, refused = await get(server, f"/api/rooms/{ann_room}/history", ann_token)
    assert status == 403 and refused["error"] == "daily_not_over"

    status, table = await get(server, "/api/leaderboard?board=daily")
    assert status == 200
    scores = {e["name"]: e["score"] for e in table["entries"]}
    assert scores == {"Ann": ann_units, "Bob": bob_units}
    assert [e["score"] for e in table["entries"]] == sorted(scores.values(), reverse=True)

    # a client cannot put a score on a board: no message does that
    async with connect(server.url) as raw:
        await raw.send(json.dumps({"type": "hello", "id": 1, "protocol": 1, "device": ANN}))
        await raw.recv()
        for forged in (
            {"type": "standings", "ref": 1, "board": "daily", "entries": []},
            {"type": "score", "id": 2, "board": "daily", "score": 99},
        ):
            await raw.send(json.dumps(forged))
            error = json.loads(await raw.recv())
            assert error["type"] == "error" and error["code"] in ("unknown_type", "invalid_message")
    assert (await get(server, "/api/leaderboard?board=daily"))[1] == table

    me = await client(server, ANN)  # the protocol: the same table, and Ann's own entry
    standings = await me.leaderboard("daily")
    assert [(e.name, e.score) for e in standings.entries] == [
        (e["name"], e["score"]) for e in table["entries"]
    ]
    assert standings.you is not None and standings.you.name == "Ann"
    assert standings.you.player == Player(device_for(server, ANN), "Ann").id
    assert standings.players == table["players"] == len(table["entries"])  # "2nd of 2"
    with pytest.raises(CardroomError) as bad:
        await me.leaderboard("poker")
    assert bad.value.code == "bad_board"
    await me.close()
    assert (await get(server, "/api/leaderboard?board=nope"))[0] == 400


async def test_history_replays_and_opens_to_everyone_after_the_room(
    server: CardroomServer,
) -> None:
    me = await client(server, ANN)
    await me.create("shithead", seats=2, name="Ann")
    await me.host("start")
    final = await play_until_over(me)
    assert me.room is not None and me.token is not None
    code, token = me.room, me.token

    # the room is open: players only; to anyone else it answers as no room does
    assert (await get(server, f"/api/rooms/{code}/history")) == (404, NO_HISTORY)
    status, body = await get(server, f"/api/rooms/{code}/history", token)
    assert status == 200 and body["open"]
    (item,) = body["games"]
    game = replay(item)  # the rules core replays it move by move to the same end
    assert game.is_over() and game.view(0) == final
    assert item["result"] == game.outcome().to_json()
    assert [(s, Action.from_str(a)) for s, a in item["log"]] == game.log
    assert item["names"] == ["Ann", "Bot 2"]
    # a browser that accepts gzip gets the same JSON compressed (replay steps are large)
    path = f"/api/rooms/{code}/history?game=0&steps=1"
    plain = (await get(server, path, token))[1]
    encoding, unzipped = await asyncio.to_thread(_get_gzip, server, path, token)
    assert encoding == "gzip" and unzipped == plain and plain["games"][0]["steps"]

    ann = Player(device_for(server, ANN), "x").id
    _, table = await get(server, f"/api/leaderboard?board=shithead&player={ann}")
    assert table["you"]["games"] == 1 and table["you"]["name"] == "Ann"
    assert table["players"] == len(table["entries"]) == 1  # how many the board holds

    await me.leave()
    await me.close()
    deadline = time.monotonic() + 10
    while (answer := await get(server, f"/api/rooms/{code}/history"))[0] != 200:
        assert answer == (404, NO_HISTORY) and time.monotonic() < deadline, answer
        await asyncio.sleep(0.05)  # the room closes once idle
    assert answer[1]["games"] == [item] and not answer[1]["open"]
    assert (await get(server, "/api/rooms/ZZZZZ/history")) == (404, NO_HISTORY)


class FlakyHistory(MemoryStore):
    """A store whose first history write finds the store away (as Redis stopping would)."""

    def __init__(self) -> None:
        super().__init__()
        self.failed = False

    async def add_history(self, code: str, item: dict[str, Any], *, fence: int = 0) -> None:
        if not self.failed:
            self.failed = True
            raise StoreUnavailable("connection refused")
        await super().add_history(code, item, fence=fence)


async def test_a_game_recorded_while_the_store_was_away_is_recorded_later() -> None:
    store = FlakyHistory()
    async with CardroomServer(make_config(), store=store) as srv:
        me = await client(srv, ANN)
        await me.create("shithead", seats=2, name="Ann")
        await me.host("start")
        await play_until_over(me)
        assert me.room is not None
        deadline = time.monotonic() + 10
        while not await store.history(me.room):  # retried once the store answers again
            assert time.monotonic() < deadline, "never recorded"
            await asyncio.sleep(0.05)
        assert store.failed and len(await store.history(me.room)) == 1
        _, table = await get(srv, "/api/leaderboard?board=shithead")
        assert [e["name"] for e in table["entries"]] == ["Ann"]
        await me.close()
