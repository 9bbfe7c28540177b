"""axe-core finds no serious or critical violation on the home page, the lobby and both tables;
screenshots of each at 375 and 1280 px go to build/screenshots/ (look at them)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext

from tests.support.web import shoot
from tests.web.conftest import LiveServer, create_room, wait_turn, watch_errors

pytestmark = pytest.mark.slow


def test_home_and_lobby(live: LiveServer, new_context: Callable[..., BrowserContext]) -> None:
    page = new_context(reduced_motion="no-preference").new_page()
    errors = watch_errors(page)
    page.goto(live.base + "/")
    page.wait_for_selector(".home")
    shoot(page, "home")
    create_room(page, live.base, "Ann", "shithead", seats=4)
    page.click('[data-act="host"][data-op="add_bot"][data-seat="2"]')
    page.wait_for_selector(".seat:nth-child(3) >> text=Bot 3")
    shoot(page, "lobby")
    assert not errors


def test_shithead_table(live: LiveServer, new_context: Callable[..., BrowserContext]) -> None:
    page = new_context(reduced_motion="no-preference").new_page()
    errors = watch_errors(page)
    create_room(page, live.base, "Ann", "shithead", seats=4, timer=60)
    assert page.evaluate("window.cardroom.info.turn_timer") == 60
    page.click('[data-act="host"][data-op="start"]')
    assert wait_turn(page) == "ready"
    # the turn timer counts down from the state's deadline
    page.wait_for_function(
        "() => /^[01]:[0-5][0-9]$/.test(document.getElementById('turn-timer').textContent)"
    )
    # the swap phase: a hand card, then a face-up card, changes their places (rule SH-2.3)
    page.click(".me .hand button.card.playable")
    shoot(page, "shithead-swap")
    view = page.evaluate("window.cardroom.state.view")
    hand_card = page.get_attribute(".me .hand button.card.selected", "data-card")
    assert hand_card is not None
    up_card = next(c for c in view["seats"][0]["face_up"] if c[0] != hand_card[0])
    page.click(f'.me .tablecards button.card[data-card="{up_card}"]')
    page.wait_for_selector(f'.me .hand .card[data-card="{up_card}"]')
    assert page.is_visible(f'.me .tablecards .card[data-card="{hand_card}"]')
    # then a position in the play phase with cards in hand to choose from
    page.click('[data-act="ready"]')
    for _ in range(30):
        what = wait_turn(page)
        if what == "play":
            break
        page.click("#area .actions button:not([disabled])")
    page.click('#area button.card.playable[data-act="card"]')  # one card chosen
    shoot(page, "shithead")
    assert not errors


def test_sheepshead_table(live: LiveServer, new_context: Callable[..., BrowserContext]) -> None:
    page = new_context(reduced_motion="no-preference").new_page()
    errors = watch_errors(page)
    create_room(page, live.base, "Ann", "sheepshead")
    page.click('[data-act="host"][data-op="start"]')
    # play on until a trick is on the table and it is our turn
    while True:
        what = wait_turn(page, timeout=20_000)
        if what == "over":
            break
        view = page.evaluate("window.cardroom.state.view")
        if view["phase"] == "play" and view["trick"]["cards"]:
            break
        page.click("#area .actions button:not([disabled]), #area button.card.playable")
        if view["phase"] == "bury":
            page.click("#area button.card.playable:not(.selected)")
            page.click('[data-act="bury"]')
    shoot(page, "sheepshead")
    assert not errors
