"""The player page over HTTP (``/api/players/ID``): a rated player's ratings with their
uncertainty, history and recent games with replay links; refusals; the read budget; and
``/p/ID`` serves the app."""

from __future__ import annotations

from dataclasses import replace

import orjson
import pytest

from server.net.server import CardroomServer
from server.store.leaderboard import player_id
from tests.support.http import get
from tests.support.rated import last_game, person, rated_config, shown
from tests.support.server import device_for, play_until_over

pytestmark = pytest.mark.slow


async def test_a_rated_players_page() -> None:
    async with CardroomServer(rated_config()) as server:
        ann = await person(server, "ann", "10.0.0.1")
        welcome_player = player_id(device_for(server, "ann"))
        await ann.create("shithead", seats=2, name="Ann", rated=True)
        assert ann.room is not None
        await ann.host("add_bot", seat=1, level="strong")
        await ann.host("start")
        await play_until_over(ann)
        info = await shown(ann)
        await last_game(server, ann.room)
        status, heads, body = await get(server, f"/api/players/{welcome_player}")
        assert status == 200 and heads["Content-Type"] == "application/json"
        page = orjson.loads(body)
        assert page["player"] == welcome_player and page["name"] == "Ann"
        assert page["bot"] is False
        rating = page["ratings"]["shithead"]
        assert set(rating) == {"mu", "sigma", "rating", "games"}
        assert rating["games"] == 1
        assert rating["rating"] == round(40 * (rating["mu"] - 3 * rating["sigma"]))
        assert info.ratings is not None and info.ratings[0].after == rating["rating"]
        assert [h["rating"] for h in page["history"]] == [rating["rating"]]
        (recent,) = page["recent"]
        assert recent["room"] == ann.room and recent["replay"] == f"/r/{ann.room}/history"
        assert recent["delta"] == info.ratings[0].delta and recent["of"] == 2
        # the strong bot has a page of its own: "a strong bot" is a number
        status, _, body = await get(server, "/api/players/bot:strong")
        bot = orjson.loads(body)
        assert status == 200 and bot["bot"] is True and bot["ratings"]["shithead"]["games"] == 1
        # what is not a player id, and a player with no rated game
        assert (await get(server, "/api/players/..%2F..%2Fetc"))[0] == 400
        assert (await get(server, "/api/players/" + "0" * 20))[0] == 404
        # the app's own address for the page
        status, heads, _ = await get(server, f"/p/{welcome_player}")
        assert status == 200 and heads["Content-Type"].startswith("text/html")
        await ann.close()


async def test_the_player_page_spends_the_read_budget() -> None:
    config = replace(rated_config(), history_rate=0.01, history_burst=3.0)
    async with CardroomServer(config) as server:
        answers = [(await get(server, "/api/players/bot:basic"))[0] for _ in range(5)]
        assert answers == [404, 404, 404, 429, 429]
