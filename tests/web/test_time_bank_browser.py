"""The time bank in the browser: the room form offers it (with a turn timer), and when a turn
runs over the timer the header's countdown says the player's bank is running."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext

from tests.web.conftest import LiveServer, open_room_form, watch_errors

pytestmark = pytest.mark.slow


def test_the_form_opens_a_room_with_a_bank_and_the_header_shows_it_running(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(viewport={"width": 375, "height": 667}).new_page()
    errors = watch_errors(page)
    open_room_form(page, live.base)
    page.fill("#name", "Ann")
    page.check('input[name="game"][value="shithead"]')
    page.select_option("#timer", "15")
    page.select_option("#bank", "60")
    page.click('#create-form button[type="submit"]')
    page.wait_for_selector(".lobby .code")
    info = page.evaluate("window.cardroom.info")
    assert info["turn_timer"] == 15 and info["time_bank"] == 60 and info["banks"][0] == 60
    # without a timer the form asks for no bank (the server would refuse one)
    page.evaluate("window.cardroom.request({type: 'leave', room: window.cardroom.room})")
    open_room_form(page, live.base)
    page.select_option("#timer", "0")
    page.click('#create-form button[type="submit"]')
    page.wait_for_function("() => window.cardroom.info && window.cardroom.info.turn_timer === null")
    assert page.evaluate("window.cardroom.info.time_bank") is None
    # a one-second timer and a five-second bank (a room only a client can ask for): Ann is
    # slow in a game against a bot; the header says her bank runs
    page.evaluate("window.cardroom.request({type: 'leave', room: window.cardroom.room})")
    page.goto(live.base + "/")
    page.wait_for_function("() => window.cardroom && window.cardroom.net")
    page.evaluate(
        """async () => { await window.cardroom.net.whenUp();
             return window.cardroom.request({type: 'create', game: 'shithead', seats: 2,
               name: 'Ann', turn_timer: 1, time_bank: 5}); }"""
    )
    page.wait_for_selector(".lobby .code")
    page.click('[data-act="host"][data-op="fill_bots"]')
    page.click('[data-act="host"][data-op="start"]')
    # (the swap's plain timer declares her ready; then her first turn runs over)
    page.wait_for_selector("#turn-timer.bank", timeout=20_000)
    text = page.inner_text("#turn-timer")
    assert text.startswith("bank ") and text != "bank 0:00"
    assert page.evaluate("window.cardroom.info.banking") == page.evaluate("window.cardroom.seat")
    assert not errors, errors
