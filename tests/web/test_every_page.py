"""Every page of the web client at 375 × 667 and 1280 × 800, as a player goes through them:
no console error, no failed or refused request, no uncaught error, axe finds nothing serious,
and nothing is wider than the window: the home page, both rules pages in all four languages,
the leaderboard, a lobby, both tables in play and at their result, and a finished game's
replay (as one of its players)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, Page, ViewportSize

from tests.support.web import PHONE, act_first, check_axe, finished, seated, watch_console
from tests.web.conftest import LiveServer, create_room, wait_turn, watch_errors

pytestmark = pytest.mark.slow

DESKTOP: ViewportSize = {"width": 1280, "height": 800}
LANGS = ("en", "ru", "pt", "fr")
GAMES = ("shithead", "sheepshead")


# how far the page runs past the window's right edge (0: it fits; a phone would scroll sideways)
OVERFLOW_JS = "() => document.documentElement.scrollWidth - window.innerWidth"


def clean(page: Page, bad: list[str], errors: list[str], where: str) -> None:
    """Nothing went wrong on the page so far, axe finds nothing serious on it now, and it is
    no wider than the window."""
    assert not bad and not errors, (where, bad, errors)
    assert page.evaluate(OVERFLOW_JS) <= 0, (where, page.evaluate(OVERFLOW_JS))
    check_axe(page, where)


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["375", "1280"])
def test_no_console_error_or_failed_request_on_any_page(
    size: ViewportSize, live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    room, token = finished(live, "shithead", 3)
    page = seated(new_context(viewport=size), room, token).new_page()
    bad, errors = watch_console(page), watch_errors(page)
    width = size["width"]
    page.goto(live.base + "/")
    page.wait_for_selector(".home")
    clean(page, bad, errors, f"home at {width}")
    for lang in LANGS:
        for game in GAMES:
            page.goto(f"{live.base}/rules/{lang}/{game}.html")
            page.wait_for_selector("h1")
            clean(page, bad, errors, f"the {lang} {game} rules at {width}")
    page.goto(live.base + "/leaderboard")
    page.wait_for_selector(".boards table, .boards .muted")
    clean(page, bad, errors, f"the leaderboard at {width}")
    page.goto(f"{live.base}/r/{room}/history")  # the replay of a game this browser played
    page.wait_for_selector("#replay-board .rp-seat")
    page.click("[data-act='rp-last']")
    page.wait_for_selector("#replay-board .result")
    clean(page, bad, errors, f"the replay at {width}")
    for game in GAMES:  # a new player for each table (the replay's browser holds a seat)
        page = new_context(viewport=size).new_page()
        bad, errors = watch_console(page), watch_errors(page)
        create_room(page, live.base, "Ann", game, seats=2 if game == "shithead" else None)
        clean(page, bad, errors, f"the {game} lobby at {width}")
        page.click('[data-act="host"][data-op="start"]')
        seen_play = False
        while (what := wait_turn(page, timeout=20_000)) != "over":
            if what == "play" and not seen_play:
                seen_play = True
                clean(page, bad, errors, f"the {game} table in play at {width}")
            act_first(page)
        page.wait_for_selector(".result")
        clean(page, bad, errors, f"the {game} result at {width}")
