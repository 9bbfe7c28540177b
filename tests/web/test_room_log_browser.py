"""The log from the server's events: another device of the same seat (a second browser, no
storage shared with the first) shows the same log, and a move the server made for a player
whose clock ran out says so in the log."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, Page

from tests.support.web import PHONE
from tests.web.conftest import (
    LiveServer,
    create_room,
    shithead_click_turn,
    wait_turn,
    watch_errors,
)

pytestmark = pytest.mark.slow

DESKTOP = {"width": 1280, "height": 800}
SESSION = "cardroom.session"  # js/store.js KEYS.session: the seat this browser holds


def log_lines(page: Page) -> list[str]:
    return [line for line in page.inner_text("#log").split("\n") if line]


def test_a_second_device_of_the_seat_shows_the_same_log(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    phone = new_context(viewport=PHONE, has_touch=True).new_page()
    errors = watch_errors(phone)
    code = create_room(phone, live.base, "Ann", "shithead", seats=2)
    phone.click('[data-act="host"][data-op="start"]')
    for _ in range(4):  # the swap phase and a few plays against the bot
        shithead_click_turn(phone)
    wait_turn(phone)  # my turn: the bot waits for me, the log stands still
    before = log_lines(phone)
    assert any("Ann played" in line for line in before) and len(before) >= 3, before
    session = phone.evaluate(f"localStorage.getItem('{SESSION}')")
    # the same seat on a desktop: its own storage, only the seat's token carried over
    desk = new_context(viewport=DESKTOP).new_page()
    errors += watch_errors(desk)
    desk.add_init_script(f"localStorage.setItem('{SESSION}', {json.dumps(session)})")
    desk.goto(f"{live.base}/r/{code}")
    desk.wait_for_selector(".felt")
    desk.wait_for_function("(n) => document.querySelectorAll('#log li').length >= n", arg=3)
    assert log_lines(desk) == before
    assert not errors, errors


def test_a_move_made_when_the_clock_ran_out_is_marked_in_the_log(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(viewport=PHONE).new_page()
    errors = watch_errors(page)
    code = create_room(page, live.base, "Ann", "shithead", seats=2)

    def one_second() -> None:  # the form offers 15 s at least: the room's timer made short
        live.server.manager.rooms[code].core.turn_timer = 1

    live.call(one_second)
    page.click('[data-act="host"][data-op="start"]')
    # Ann does nothing: her swap phase ends for her (SH-2.3 ready), marked as such
    page.wait_for_selector("#log li:has-text('Ann is ready (out of time)')")
    lines = log_lines(page)
    assert not any("Bot" in line and "out of time" in line for line in lines), lines
    page.select_option("#lang", "fr")
    page.wait_for_selector("#log li:has-text('(temps écoulé)')")
    assert not errors, errors
