"""The bots' ladder over real sockets, one process: two bots of the Python client play a rated
ladder game to its end beside the house anchors, and both get a ladder rating the ladder's API
lists with the anchors; people and bots keep to their own lines (typed refusals both ways); a
bot's name is marked and no person may wear the mark; the ladder's joins are budgeted per
address and per identity like Play now's."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from clients import CardroomClient, CardroomError
from server.net.server import CardroomServer
from server.rooms.names import BOT_MARK
from server.store.leaderboard import player_id
from tests.support.queue import example_move, is_seated, person, queue_config
from tests.support.results_api import get

GAME_SECONDS = 120.0  # a bound for a stuck game, not a speed test


async def test_two_sdk_bots_play_a_rated_ladder_game_and_the_ladder_lists_them() -> None:
    config = queue_config(shithead_table=4, ladder_fill_wait=1.0)
    async with CardroomServer(config) as server:
        one = await person(server.url, 2, bot=True)
        two = await person(server.url, 3, bot=True)
        assert one.welcome is not None and one.welcome.bot and one.device
        assert one.device.startswith("cb1")  # a bot identity, signed as one
        played = await asyncio.wait_for(
            asyncio.gather(
                one.play_ladder("shithead", "Robin", example_move, games=1),
                two.play_ladder("shithead", "Marvin", example_move, games=1),
            ),
            GAME_SECONDS,
        )
        assert list(played) == [1, 1]
        # one table: both bots, the two anchors the rotation starts with
        seated = [m for c in (one, two) for m in c.history if is_seated(m)]
        assert len({getattr(m, "room", None) for m in seated}) == 1
        status, page = await get(server, "/api/ladder?game=shithead")
        assert status == 200 and page["game"] == "shithead"
        rows = {r["player"]: r for r in page["ladder"]}
        ids = {player_id(one.device), player_id(two.device or "")}
        for me in ids:  # both bots rated, with their uncertainty, one game each
            assert rows[me]["games"] == 1 and rows[me]["sigma"] < 25 / 3
            assert rows[me]["name"].endswith(BOT_MARK) and rows[me]["anchor"] is None
        anchors = {r["anchor"]: r for r in page["ladder"] if r["anchor"]}
        assert set(anchors) == {"basic", "strong", "expert"}  # always listed
        assert anchors["basic"]["games"] == anchors["strong"]["games"] == 1
        assert anchors["expert"]["games"] == 0  # the next table's first anchor
        ranked = [r["rating"] for r in page["ladder"]]
        assert ranked == sorted(ranked, reverse=True)
        last = page["games"][0]
        assert {s["player"] for s in last["seats"]} == ids | {"bot:basic", "bot:strong"}
        assert last["replay"] == f"/r/{last['room']}/history"
        # the people's ratings never moved: a ladder game is the ladder's
        for me in ids:
            status, mine = await get(server, f"/api/players/{me}")
            assert status == 200 and mine["bot"] is True
            assert set(mine["ratings"]) == {"ladder:shithead"}
        # nor are the bots on the people's boards: the ladder is their board
        status, people = await get(server, "/api/leaderboard?board=shithead")
        assert status == 200 and people["entries"] == [] and people["players"] == 0
        status, board = await get(server, "/api/ladder?game=sheepshead")
        assert status == 200 and [r["games"] for r in board["ladder"]] == [0, 0, 0]
        assert (await get(server, "/api/ladder?game=poker"))[0] == 400
        await one.close()
        await two.close()


@pytest.mark.slow
async def test_each_anchor_takes_its_turn_on_the_ladder() -> None:
    config = queue_config(shithead_table=2, ladder_fill_wait=0.3)
    async with CardroomServer(config) as server:
        alone = await person(server.url, 2, bot=True)
        played = await asyncio.wait_for(
            alone.play_ladder("shithead", "Solo", example_move, games=3), GAME_SECONDS
        )
        assert played == 3
        status, page = await get(server, "/api/ladder?game=shithead")
        assert status == 200
        anchors = {r["anchor"]: r["games"] for r in page["ladder"] if r["anchor"]}
        assert anchors == {"basic": 1, "strong": 1, "expert": 1}
        assert {r["player"] for r in page["ladder"] if not r["anchor"]} == {
            player_id(alone.device or "")
        }
        await alone.close()


async def test_people_and_bots_keep_to_their_own_lines() -> None:
    async with CardroomServer(queue_config(ladder_fill_wait=60.0, fill_wait=60.0)) as server:
        ann = await person(server.url, 2)  # a person's identity
        assert ann.welcome is not None and not ann.welcome.bot
        with pytest.raises(CardroomError) as refused:
            await ann.queue("shithead", "Ann", ladder=True)
        assert refused.value.code == "ladder_bots_only"
        robo = await person(server.url, 3, bot=True)
        with pytest.raises(CardroomError) as refused:
            await robo.queue("shithead", "Robo")
        assert refused.value.code == "bots_to_ladder"
        for game in ("shithead", "sheepshead"):
            assert await server.queue.store.entries(game) == []
            assert await server.queue.store.entries(f"ladder:{game}") == []
        # a person's identity said by a bot's hello becomes no bot: a new bot identity instead
        turned = await CardroomClient.connect(server.url, hello=False)
        welcome = await turned.hello(device=ann.device, bot=True)
        assert welcome.bot and welcome.device not in (None, ann.device)
        # and a bot's identity said without bot=true stays a bot's
        back = await CardroomClient.connect(server.url, hello=False)
        again = await back.hello(device=robo.device)
        assert again.bot and again.device == robo.device
        # the mark is a bot identity's: no person may put it on
        with pytest.raises(CardroomError) as refused:
            await ann.queue("shithead", f"Ann {BOT_MARK}")
        assert refused.value.code == "bad_name"
        with pytest.raises(CardroomError) as refused:
            await ann.create("shithead", 2, f"Ann {BOT_MARK}")
        assert refused.value.code == "bad_name"
        queued = await robo.queue("shithead", "Robo", ladder=True)
        assert queued.ladder and queued.game == "shithead" and queued.fill_in <= 60.0
        for c in (ann, robo, turned, back):
            await c.close()


async def test_a_flood_of_ladder_joins_from_one_address_is_refused() -> None:
    config = queue_config(ladder_fill_wait=60.0, joins_burst=3.0, joins_per_minute=1.0)
    async with CardroomServer(config) as server:
        bots = [await person(server.url, 2, bot=True) for _ in range(5)]
        codes = []
        for b in bots:
            try:
                await b.queue("shithead", "Flood", ladder=True)
                codes.append("queued")
            except CardroomError as exc:
                codes.append(exc.code)
        assert codes == ["queued"] * 3 + ["queue_too_often"] * 2  # the address's budget
        assert len(await server.queue.store.entries("ladder:shithead")) == 3
        # one entry per identity: the same bot on a second connection (another address)
        twin = await CardroomClient.connect(server.url, hello=False, local_addr=("127.0.0.9", 0))
        await twin.hello(device=bots[0].device, bot=True)
        with pytest.raises(CardroomError) as refused:
            await twin.queue("shithead", "Twin", ladder=True)
        assert refused.value.code == "already_queued"
        # and one per connection
        with pytest.raises(CardroomError) as refused:
            await bots[0].queue("sheepshead", "Again", ladder=True)
        assert refused.value.code == "already_queued"
        assert len(await server.queue.store.entries("ladder:shithead")) == 3
        for c in (*bots, twin):
            await c.close()


async def test_a_bot_that_does_not_answer_gets_the_stand_in() -> None:
    config = queue_config(shithead_table=2, ladder_fill_wait=0.3)
    config = dataclasses.replace(
        config, queue=dataclasses.replace(config.queue, ladder_turn_timer=1)
    )
    async with CardroomServer(config) as server:
        idle = await person(server.url, 2, bot=True)
        await idle.queue("shithead", "Idle", ladder=True)
        await idle.take_seat(timeout=10)
        info = await idle.wait_room(timeout=5)
        assert info.turn_timer == 1 and info.rated
        # it never acts: the turn timer hands its turn to the stand-in, as for a person
        first = await idle.wait_state(timeout=5)
        assert first.view["phase"] == "swap" and idle.seat in first.view["to_act"]
        later = await idle.wait_state(lambda s: s.view["phase"] != "swap", timeout=10)
        assert later.version > first.version
        await idle.close()


@pytest.mark.slow
async def test_a_sheepshead_ladder_match_deals_on_and_is_rated_whole() -> None:
    # rule SS-9.1: a match of ten hands, rated once it is over
    config = queue_config(ladder_fill_wait=0.3)
    config = dataclasses.replace(
        config, rooms=dataclasses.replace(config.rooms, next_hand_delay=0.2)
    )
    async with CardroomServer(config) as server:
        bot = await person(server.url, 2, bot=True)
        played = await asyncio.wait_for(
            bot.play_ladder("sheepshead", "Sheep", example_move, games=1), 600.0
        )
        assert played == 1
        status, page = await get(server, "/api/ladder?game=sheepshead")
        # the bots are not hosts: the table dealt each hand on by itself, to the tenth (index 9)
        assert status == 200 and page["games"][0]["index"] == 9
        rows = {r["player"]: r for r in page["ladder"]}
        assert rows[player_id(bot.device or "")]["games"] == 1  # one match, rated once
        assert {r["anchor"] for r in page["ladder"] if r["games"] == 1 and r["anchor"]} == {
            "basic",
            "strong",
            "expert",
        }
        await bot.close()


async def test_a_ladder_table_in_its_first_seconds_takes_bots_only() -> None:
    config = queue_config(shithead_table=3, ladder_fill_wait=0.2, fill_wait=60.0, take_window=30.0)
    rooms = dataclasses.replace(config.rooms, bot_delay=60.0)  # the anchors have not moved
    async with CardroomServer(dataclasses.replace(config, rooms=rooms)) as server:
        first = await person(server.url, 2, bot=True)
        await first.queue("shithead", "First", ladder=True)
        opened = await first.take_seat(timeout=10)
        ann = await person(server.url, 3)  # a person arriving meanwhile: not at a bots' table
        queued = await ann.queue("shithead", "Ann")
        assert not queued.ladder
        await asyncio.sleep(0.5)
        assert not any(is_seated(m) for m in ann.history)
        late = await person(server.url, 4, bot=True)  # a bot arriving: an anchor's seat, at once
        await late.queue("shithead", "Late", ladder=True)
        joined = await late.take_seat(timeout=5)
        assert joined.room == opened.room and joined.seat != opened.seat
        info = await late.wait_room(timeout=5)
        assert joined.seat is not None and info.seats[joined.seat].name == f"Late {BOT_MARK}"
        for c in (first, ann, late):
            await c.close()
