"""Ratings in the browser: a rated room made from the home page, played to its end, shows the
rating change on the result screen; the player page shows the new rating with its
uncertainty, its plot and the game with its replay; a code from that page brings the identity
to another browser (another device), whose page is then the same player's. Screenshots at 375
and 1280 px, checked by axe."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext

from server.store.leaderboard import player_id
from tests.support.web import device_of, shoot
from tests.web.conftest import (
    LiveServer,
    open_room_form,
    play_to_the_end,
    watch_errors,
)

pytestmark = pytest.mark.slow


def test_a_rated_game_its_change_the_player_page_and_the_identity_move(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context().new_page()
    errors = watch_errors(page)
    open_room_form(page, live.base)
    page.fill("#name", "Ann")
    page.check('input[name="game"][value="shithead"]')
    page.select_option("#seats", "2")
    page.check("#rated")
    page.click('#create-form button[type="submit"]')
    page.wait_for_selector(".lobby .code")
    assert page.locator(".badge.rated-on").count() == 1
    # the host may make it unrated, and rated again, before the start
    page.click('[data-act="host"][data-op="unrated"]')
    page.wait_for_selector('[data-act="host"][data-op="rated"]')
    page.click('[data-act="host"][data-op="rated"]')
    page.wait_for_selector('[data-act="host"][data-op="unrated"]')
    page.click('[data-act="host"][data-op="start"]')
    play_to_the_end(page)
    # the result screen: each rated seat's change, once the server recorded it
    page.wait_for_selector(".rating-changes li", timeout=10_000)
    me = player_id(device_of(page))
    info = page.evaluate("window.cardroom.info")
    mine = next(r for r in info["ratings"] if r["player"] == me)
    changes = page.inner_text(".rating-changes")
    assert str(mine["after"]) in changes
    shoot(page, "rating-change")

    # Ann's page: her new rating with its uncertainty, a game played, its replay
    page.click(f'.rating-changes a[href="/p/{me}"]')
    page.wait_for_selector('.rating-card[data-game="shithead"]')
    assert page.inner_text(".rating-card .big") == str(mine["after"])
    detail = page.inner_text(".rating-card .rating-now .muted")
    assert f"{mine['mu']:.1f}" in detail and f"{mine['sigma']:.1f}" in detail
    assert page.locator(".recent tbody tr").count() == 1
    assert page.get_attribute(".recent tbody a", "href") == f"/r/{info['room']}/history"
    assert page.locator(".move").count() == 1  # her own page: the identity move
    page.click('[data-act="move-code"]')
    page.wait_for_selector(".move .code")
    code = page.get_attribute(".move .code", "data-code")
    assert code and len(code) == 8
    shoot(page, "player-page")

    # the bot's page: a number of its own
    page.goto(live.base + "/p/bot:basic")
    page.wait_for_selector('.rating-card[data-game="shithead"]')
    bot = next(r for r in info["ratings"] if r["player"] == "bot:basic")
    assert page.inner_text(".rating-card .big") == str(bot["after"])
    assert page.locator(".move").count() == 0
    shoot(page, "player-page-bot")

    # another device: its own identity, its own (empty) page, then the code
    other = new_context().new_page()
    other.goto(live.base + "/")
    other.wait_for_function("() => window.cardroom && window.cardroom.me")
    assert device_of(other) != device_of(page)
    other.click('[data-act="my-page"]')
    other.wait_for_selector(".move form")
    other.fill("#move-input", code.lower())
    other.click('#move-form button[type="submit"]')
    # the claim answered, then a whole page load as that player: a loaded machine may take
    # more than the default 10 s for both; a refusal is shown, and said here
    other.wait_for_function(
        "(me) => location.pathname === `/p/${me}` || !!document.querySelector('.move .error')",
        arg=me,
        timeout=30_000,
    )
    assert not other.locator(".move .error").count(), other.inner_text(".move")
    other.wait_for_load_state("load", timeout=30_000)
    other.wait_for_selector('.rating-card[data-game="shithead"]')
    other.wait_for_function(f"() => window.cardroom.me === '{me}'")
    assert device_of(other) == device_of(page)
    assert other.inner_text(".rating-card .big") == str(mine["after"])
    # the code is spent: a third device is refused, in words
    third = new_context().new_page()
    third.goto(live.base + "/")
    third.wait_for_function("() => window.cardroom && window.cardroom.me")
    third.click('[data-act="my-page"]')
    third.wait_for_selector(".move form")
    third.fill("#move-input", code)
    third.click('#move-form button[type="submit"]')
    third.wait_for_selector(".move .error")
    assert "code" in third.inner_text(".move .error").lower()
    shoot(third, "player-page-empty")
    assert not errors, errors
