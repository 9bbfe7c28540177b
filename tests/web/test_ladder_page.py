"""The bots' ladder in the browser (/ladder): after a bot of the Python client played a rated
ladder game against the house anchors on the live server, the page lists it, marked as a bot,
with its rating, uncertainty and games, the three house levels marked as anchors, and the game
with its replay, for each game; it fits a phone (375 px) and a desktop (1280 px), in French too,
and the bot's own page shows its ladder rating. Screenshots at both widths, checked by axe."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page

from clients import CardroomClient
from server.rooms.names import BOT_MARK
from tests.support.queue import example_move
from tests.support.web import on_server, shoot, watch_console
from tests.web.conftest import SCREENSHOTS, LiveServer, watch_errors

pytestmark = pytest.mark.slow

GAME_SECONDS = 120.0  # a bound for a stuck game, not a speed test


async def a_ladder_game(live: LiveServer) -> str:
    """One rated ladder game of a bot against the anchors; the bot's player id."""
    url = f"ws://127.0.0.1:{live.server.port}/"
    async with CardroomClient.connect(url, bot=True) as bot:
        await bot.play_ladder("shithead", "Page bot", example_move, games=1)
        assert bot.welcome is not None and bot.welcome.player is not None
        return bot.welcome.player


def api(live: LiveServer, game: str) -> Any:
    with urllib.request.urlopen(f"{live.base}/api/ladder?game={game}", timeout=5) as r:
        return json.loads(r.read())


def fits(page: Page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def test_the_ladder_page_lists_bots_and_anchors_on_a_phone_and_a_desktop(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    me = on_server(live, a_ladder_game(live), timeout=GAME_SECONDS)
    data = api(live, "shithead")
    mine = next(r for r in data["ladder"] if r["player"] == me)
    page = new_context().new_page()
    errors = watch_errors(page)
    bad = watch_console(page)
    page.goto(live.base + "/")  # the home page leads to it
    page.click('a[href="/ladder"]')
    section = '.ladder[data-game="shithead"]'
    page.wait_for_selector(f"{section} tbody tr")
    assert page.inner_text("h1") == "The bots' ladder"
    assert page.locator('.ladder[data-game="sheepshead"] tbody tr.anchor').count() == 3
    rows = page.locator(f"{section} tbody tr")
    assert rows.count() == len(data["ladder"])
    # the bot: its marked name, a bot's tag, the rating the API gives and its uncertainty
    row = page.locator(f'{section} tr[data-player="{me}"]')
    assert f"Page bot {BOT_MARK}" in row.inner_text() and row.locator(".bot-tag").count() == 1
    assert row.locator(".rt .rating").inner_text() == str(mine["rating"])
    assert row.locator(".sigma").inner_text() == f"±{round(40 * mine['sigma'])}"
    assert row.locator("td").last.inner_text() == "1"
    # the anchors: all three, marked, each with its games
    anchors = page.locator(f"{section} tr.anchor")
    assert anchors.count() == 3
    assert page.locator(f"{section} .badge.anchor").count() == 3
    assert "strong bot" in "".join(anchors.all_inner_texts())
    # in the API's order (its rating first)
    shown = [int(x) for x in page.locator(f"{section} tbody .rt .rating").all_inner_texts()]
    assert shown == [r["rating"] for r in data["ladder"]]
    # the game, with its replay
    replay = page.locator(f"{section} .ladder-games a").first
    assert replay.get_attribute("href") == data["games"][0]["replay"]
    assert fits(page)
    shoot(page, "ladder")  # 375 and 1280 px, axe at each
    page.set_viewport_size({"width": 375, "height": 800})
    assert fits(page)
    # the rating and its uncertainty stay in view on a phone
    assert row.locator(".rating").is_visible() and row.locator(".sigma").is_visible()
    # the bot's page: its ladder rating, marked as a bot's
    row.locator("a").click()
    page.wait_for_selector('.rating-card[data-game="ladder:shithead"]')
    assert page.inner_text('.rating-card[data-game="ladder:shithead"] .big') == str(mine["rating"])
    assert page.locator(".page-head .bot-tag").count() == 1
    assert "Shithead · bots' ladder" in page.inner_text(".rating-card h2")
    assert not errors and not bad, (errors, bad)


def test_the_ladder_page_speaks_french(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(locale="fr-FR", viewport={"width": 375, "height": 800}).new_page()
    page.goto(live.base + "/ladder")
    page.wait_for_selector('.ladder[data-game="shithead"] tbody tr')
    assert page.inner_text("h1") == "L’échelle des bots"
    assert "repère" in page.inner_text('.ladder[data-game="shithead"]')
    assert fits(page)
    page.screenshot(path=str(SCREENSHOTS / "ladder-fr-375.png"), full_page=True)
