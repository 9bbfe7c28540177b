"""A phone's table keeps still: the header stays one line when the timer and the chat pill
appear (in Russian, the longest words), a hint's reason gets the width of the screen rather
than a column between two buttons, and Shithead's "On 7♣" line does not push the burned pile
off the row."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page

from protocol.messages import ShitheadOptions
from server.rooms.matches import Match
from server.rules.base import Game
from tests.support.web import PHONE, shoot
from tests.web.conftest import LiveServer, create_room, join_room, watch_errors

pytestmark = pytest.mark.slow

RUSSIAN = "localStorage.setItem('cardroom.lang', JSON.stringify('ru'))"


def phone(new_context: Callable[..., BrowserContext], russian: bool = False) -> Page:
    ctx = new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    if russian:
        ctx.add_init_script(RUSSIAN)
    return ctx.new_page()


def test_the_phone_header_stays_one_line_with_the_timer_and_the_chat_pill(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = phone(new_context, russian=True)
    friend = new_context().new_page()
    errors = watch_errors(page)
    page.goto(live.base + "/")
    page.wait_for_selector(".home")
    one_line = page.evaluate("document.getElementById('top').getBoundingClientRect().height")
    code = create_room(page, live.base, "Аня", "shithead", seats=2, timer=30)
    join_room(friend, live.base, code, "Bob")
    page.click('[data-act="host"][data-op="start"]')
    page.wait_for_selector("#turn-timer:not(:empty)")
    friend.wait_for_selector("#chat-text")
    friend.fill("#chat-text", "привет!")
    friend.press("#chat-text", "Enter")
    page.wait_for_selector(".top .chat-pill")
    top = page.evaluate(
        "(() => { const h = document.getElementById('top');"
        " const rs = [...h.children].map(c => c.getBoundingClientRect()).filter(r => r.width);"
        " return {height: h.getBoundingClientRect().height,"
        " lowestTop: Math.max(...rs.map(r => r.top)),"
        " highestBottom: Math.min(...rs.map(r => r.bottom)),"
        " right: Math.max(...rs.map(r => r.right))}; })()"
    )
    assert top["lowestTop"] < top["highestBottom"], top  # every item on one row
    assert top["height"] <= one_line + 14, top  # the mute button's height, no second row
    assert top["right"] <= PHONE["width"], top  # and nothing pushed off the screen
    pill = page.evaluate("document.querySelector('.top .chat-pill').getBoundingClientRect().height")
    assert pill <= 36, pill  # its mark and count on one line
    assert not page.is_visible(".keys-help")  # no keys on a touch screen
    shoot(page, "phone-header-ru")
    assert not errors, errors


def hinted_state() -> tuple[dict[str, Any], dict[str, Any]]:
    game = Match.create("sheepshead", 5, seed=4).current
    seat = game.to_act()[0]
    view = json.loads(json.dumps(game.view(seat)))
    state = {"version": 3, "view": view}
    hint = {"version": 3, "seat": seat, "action": view["legal"][0], "level": "strong",
            "reason": {"key": "hint.ss_schmear", "params": {"card": "AH"}, "text": ""}}  # fmt: skip
    return state, hint


def test_a_russian_hint_reason_gets_the_screens_width(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = phone(new_context, russian=True)
    page.goto(live.base + "/")
    page.wait_for_selector(".home")
    state, hint = hinted_state()
    seat = hint["seat"]
    widths = page.evaluate(
        """async ([state, hint, seat]) => {
            const h = await import('/js/hints.js');
            const info = {hints: true};
            const main = document.getElementById('main');
            main.innerHTML = '<div class="felt">' +
                h.hintHTML({info, seat, state, hint, hinting: false}) + '</div>';
            const box = main.querySelector('.hintbox').getBoundingClientRect();
            const reason = main.querySelector('.hint-reason').getBoundingClientRect();
            return {box: box.width, reason: reason.width, lines: reason.height};
        }""",
        [state, hint, seat],
    )
    assert widths["reason"] >= 0.9 * widths["box"], widths


def seven_on_top() -> Game:
    """A Shithead game (7 plays lower) whose card to beat is a 7 (SH-7.2)."""
    for seed in range(400):
        game = Match("shithead", 3, seed=seed, options=ShitheadOptions(seven_lower=True)).current
        rng = random.Random(seed)
        for _ in range(200):
            if game.is_over():
                break
            view: Any = game.view(None)
            if game.phase == "play" and view["to_beat"] and view["to_beat"][0] == "7":
                return game
            seat = rng.choice(game.to_act())
            game.apply(seat, rng.choice(game.legal_actions(seat)))
    raise AssertionError("no 7 to beat")


def test_the_seven_line_leaves_the_stock_pile_and_burned_on_one_row(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = phone(new_context, russian=True)
    page.goto(live.base + "/")
    page.wait_for_selector(".home")
    view = json.loads(json.dumps(seven_on_top().view(None)))
    tops = page.evaluate(
        """async (view) => {
            const i18n = await import('/js/i18n.js');
            const sh = await import('/js/shithead.js');
            const d = {view, events: [], sel: [], mode: null, seat: null, info: null,
                       hint: "", after: "", name: (s) => i18n.t('lobby.botName', {n: s + 1})};
            const main = document.getElementById('main');
            main.innerHTML = '<div class="area">' + sh.render(d) + '</div>';
            const line = main.querySelector('.to-beat');
            return {line: line ? line.textContent : null,
                    boxes: [...main.querySelectorAll('.center > .stock, .center > .pile')]
                        .map(e => { const r = e.getBoundingClientRect();
                                    return [r.top, r.bottom]; })};
        }""",
        view,
    )
    assert tops["line"] and "7" in tops["line"], tops
    boxes = tops["boxes"]
    # stock, pile and burned share a row: each one's height overlaps every other's
    assert len(boxes) == 3 and max(t for t, _ in boxes) < min(b for _, b in boxes), tops
