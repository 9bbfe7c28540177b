"""The history API's budgets (replays cost CPU), over real HTTP on loopback: a
per-address rate limit (429), one game's steps per request, each game replayed once, the same
answer for an open room without a seat token as for no room at all, no token in the URL, and
a cap on the games a room deals."""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import AsyncIterator
from dataclasses import replace

import orjson
import pytest

from clients import CardroomError
from server.net.api import REFUSAL_FLOOR
from server.net.replays import ReplayCache
from server.net.server import CardroomServer
from server.store.memory import MemoryStore
from server.tools.bench.history_cost import long_games
from tests.support.http import get, metric, metrics
from tests.support.results_api import ANN, client
from tests.support.server import make_config, play_until_over

TOKEN = "seat-token-of-ann-0123456789"


@pytest.fixture
async def served() -> AsyncIterator[tuple[CardroomServer, MemoryStore]]:
    """A server whose store holds room OPEN1 (open, Ann's seat token) and room SHUT1 (closed),
    three long finished games each."""
    store = MemoryStore()
    async with CardroomServer(make_config(), store=store) as srv:
        games = long_games(3)  # stored once the server has started: it restores no room
        for code in ("OPEN1", "SHUT1"):
            record = {"seats": [{"token": TOKEN}, {"token": None}]}
            await store.create(code, record)
            for item in games:
                await store.add_history(code, item)
        await store.delete("SHUT1")
        yield srv, store


async def test_steps_come_one_game_a_request(served: tuple[CardroomServer, MemoryStore]) -> None:
    server, _ = served
    # today every game of the room was replayed for one request: now it needs a game
    status, _, body = await get(server, "/api/rooms/SHUT1/history?steps=1")
    assert status == 400 and orjson.loads(body)["error"] == "invalid_message"
    status, _, body = await get(server, "/api/rooms/SHUT1/history?game=1&steps=1")
    games = orjson.loads(body)["games"]
    assert status == 200 and [g["g"] for g in games] == [1]
    assert len(games[0]["steps"]) == len(games[0]["log"]) + 1
    # the list without steps stays cheap: every game, no steps
    status, _, body = await get(server, "/api/rooms/SHUT1/history")
    assert status == 200 and all("steps" not in g for g in orjson.loads(body)["games"])


async def test_a_game_is_replayed_once(served: tuple[CardroomServer, MemoryStore]) -> None:
    server, _ = served
    path = "/api/rooms/SHUT1/history?game=0&steps=1"
    answers = await asyncio.gather(*(get(server, path) for _ in range(10)))  # at the same time
    assert {a[0] for a in answers} == {200} and len({a[2] for a in answers}) == 1
    again = await get(server, path)
    assert again[2] == answers[0][2]
    text = await metrics(server)
    assert metric(text, "cardroom_replay_cache_misses") == 1  # one replay for eleven answers
    assert metric(text, "cardroom_replay_cache_hits") == 10
    assert metric(text, "cardroom_replay_cache_bytes") > 0


async def test_the_cache_holds_no_more_than_its_bytes() -> None:
    cache = ReplayCache(max_bytes=1)
    games = long_games(2)
    sizes = [len(await cache.steps(item)) for item in games]
    assert cache.size == 0 and len(cache) == 0  # each larger than the cache: served, not kept
    cache = ReplayCache(max_bytes=max(sizes) + 10)
    for item in games:
        await cache.steps(item)
    assert len(cache) == 1 and cache.size <= cache.max_bytes  # the older one was dropped
    await cache.steps(games[1])
    assert cache.hits == 1


async def test_one_address_cannot_flood_the_history() -> None:
    store = MemoryStore()
    config = replace(make_config(), history_rate=0.5, history_burst=3)
    async with CardroomServer(config, store=store) as server:
        await store.create("SHUT1", {"seats": []})
        await store.add_history("SHUT1", long_games(1)[0])
        await store.delete("SHUT1")
        answers = [await get(server, "/api/rooms/SHUT1/history") for _ in range(5)]
        assert [a[0] for a in answers] == [200, 200, 200, 429, 429]
        _, heads, body = answers[3]
        assert orjson.loads(body)["error"] == "rate_limited" and heads["Retry-After"] == "2"
        # the budget is the address's: another address still gets its answer
        assert (await get(server, "/api/rooms/SHUT1/history", source="127.0.0.2"))[0] == 200
        # and every code costs the same: enumerating codes spends the same budget
        assert (await get(server, "/api/rooms/ZZZZZ/history"))[0] == 429
        text = await metrics(server)
        assert metric(text, 'cardroom_api_requests_total{route="history",status="429"}') == 3
        # the same budget covers the other routes: the boards are no way round it
        assert (await get(server, "/api/leaderboard?board=daily"))[0] == 429
        assert (await get(server, "/api/daily"))[0] == 429
        assert (await get(server, "/api/leaderboard?board=daily", source="127.0.0.3"))[0] == 200


@pytest.mark.slow
async def test_an_open_room_answers_as_no_room(served: tuple[CardroomServer, MemoryStore]) -> None:
    server, _ = served
    refusals = {
        "none": await get(server, "/api/rooms/OPEN1/history"),
        "no room": await get(server, "/api/rooms/NOPE1/history"),
        "wrong token": await get(
            server, "/api/rooms/OPEN1/history", headers={"Authorization": "Bearer wrong-token-1"}
        ),
        "token in url": await get(server, f"/api/rooms/OPEN1/history?token={TOKEN}"),
        "other scheme": await get(
            server, "/api/rooms/OPEN1/history", headers={"Authorization": f"Basic {TOKEN}"}
        ),
        "bad code": await get(server, "/api/rooms/no%20such/history"),
    }
    first = refusals["no room"]
    assert first[0] == 404
    for why, answer in refusals.items():
        assert answer == first, why  # status, every header, body
    # the token in the header is the only way in while the room is open
    status, _, body = await get(
        server, "/api/rooms/OPEN1/history", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    assert status == 200 and orjson.loads(body)["open"] is True


@pytest.mark.slow
async def test_no_timing_gap_between_an_open_room_and_none(
    served: tuple[CardroomServer, MemoryStore],
) -> None:
    server, _ = served
    took: dict[str, list[float]] = {"OPEN1": [], "NOPE1": []}
    for _ in range(12):
        for code, times in took.items():
            t0 = time.perf_counter()
            assert (await get(server, f"/api/rooms/{code}/history"))[0] == 404
            times.append(time.perf_counter() - t0)
    medians = {code: statistics.median(times) for code, times in took.items()}
    assert all(min(times) >= REFUSAL_FLOOR for times in took.values()), took
    assert abs(medians["OPEN1"] - medians["NOPE1"]) < 0.02, medians


async def test_a_room_deals_no_more_than_max_games() -> None:
    config = make_config(max_games=2)
    async with CardroomServer(config) as server:
        me = await client(server, ANN)
        await me.create("shithead", seats=2, name="Ann")
        await me.host("start")
        await play_until_over(me)
        await me.host("next_game")
        await play_until_over(me)
        room = me.room_info
        if room is None or room.games_played < 2:
            room = await me.wait_room(lambda r: r.games_played == 2, timeout=10)
        assert room.status == "over"  # the room's series is over: its history stays bounded
        with pytest.raises(CardroomError) as refused:
            await me.host("next_game")
        assert refused.value.code == "not_between_games"
        assert me.room is not None and me.token is not None
        status, _, body = await get(
            server,
            f"/api/rooms/{me.room}/history",
            headers={"Authorization": f"Bearer {me.token}"},
        )
        assert status == 200 and [g["g"] for g in orjson.loads(body)["games"]] == [0, 1]
        await me.close()


async def test_a_long_replay_costs_its_asker_by_its_length() -> None:
    # a replay's CPU grows with the game: one read each let one address keep the server at 62 %
    # of a core within its budget; now a game not yet replayed costs a read per 100 steps
    store = MemoryStore()
    config = replace(make_config(), history_rate=0.001, history_burst=4)
    async with CardroomServer(config, store=store) as srv:
        games = long_games(2)
        assert all(len(item["log"]) >= 500 for item in games)  # five reads' worth and more
        await store.create("SHUT2", {"seats": []})
        for item in games:
            await store.add_history("SHUT2", item)
        await store.delete("SHUT2")
        status, _, _ = await get(srv, "/api/rooms/SHUT2/history")  # the list: one read
        assert status == 200
        status, _, body = await get(srv, "/api/rooms/SHUT2/history?game=0&steps=1")
        assert status == 429 and orjson.loads(body)["error"] == "rate_limited"
        assert srv.replays.misses == 0  # refused before any CPU was spent on it
