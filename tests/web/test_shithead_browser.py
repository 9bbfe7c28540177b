"""Shithead in the browser: two people and two bots play a whole game by clicking the highlighted
cards, a third person watches and never has a hidden card in the page; reload; keyboard only."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from playwright.sync_api import BrowserContext, Page

from protocol.cards import CODES
from server.rules.base import Action
from server.rules.shithead import Shithead
from tests.rules.test_shithead_properties import codes_in
from tests.server.test_hidden_information import replayed
from tests.web.conftest import (
    LiveServer,
    create_room,
    seen_cards_script,
    shithead_click_turn,
    wait_turn,
    watch_errors,
)

GAME_SECONDS = 90


def public_cards(record: dict[str, Any]) -> tuple[set[str], Shithead]:
    """Every card a spectator may be shown during the room's first game: what its view held
    at some version, and the cards of the public events (a ten played burns at once)."""
    visible: set[str] = set()
    game: Shithead | None = None
    for _, game in replayed(record):  # noqa: B007 - the last one is the finished game
        assert isinstance(game, Shithead)
        visible |= codes_in(game.view(None))
    assert game is not None
    # the events: replay the log once more, keeping what each action announced
    first = next(iter(replayed(record)))[1]
    assert isinstance(first, Shithead)
    for seat, text in record["match"]["logs"][0]:
        for event in first.apply(seat, Action.from_str(text)):
            visible |= codes_in(event.to_json())
    return visible, game


def test_two_players_and_bots_play_a_whole_game_while_a_third_watches(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    ann = new_context().new_page()
    bob = new_context(viewport={"width": 375, "height": 740}).new_page()
    eve_ctx = new_context()
    eve_ctx.add_init_script(seen_cards_script())
    eve = eve_ctx.new_page()
    errors = [*map(watch_errors, (ann, bob, eve))]

    code = create_room(ann, live.base, "Ann", "shithead", seats=4)
    # Bob opens the share link and joins by the code (in lower case, with spaces: forgiving)
    bob.goto(f"{live.base}/r/{code}")
    assert bob.input_value("#code") == code
    bob.fill("#name", "Bob")
    bob.fill("#code", f" {code[:2].lower()} {code[2:].lower()} ")
    bob.click('#join-form button[type="submit"]')
    bob.wait_for_selector(".seat.mine")
    ann.wait_for_selector(".seat:nth-child(2) >> text=Bob")
    # Eve watches by the code
    eve.goto(live.base + "/")
    eve.fill("#code", code)
    eve.click('[data-act="watch"]')
    eve.wait_for_selector(".lobby")
    ann.wait_for_selector("text=Watching: 1")

    ann.click('[data-act="host"][data-op="fill_bots"]')
    ann.wait_for_selector(".seat:nth-child(4) >> text=Bot 4")
    ann.click('[data-act="host"][data-op="start"]')

    deadline = time.monotonic() + GAME_SECONDS
    done: set[int] = set()
    moves = 0
    while len(done) < 2:
        assert time.monotonic() < deadline, "the game did not end in time"
        for i, page in enumerate((ann, bob)):
            if i in done:
                continue
            try:
                what = wait_turn(page, timeout=60)
            except Exception:
                continue  # not this player's turn: try the other
            if what == "over":
                done.add(i)
            else:
                shithead_click_turn(page)
                moves += 1
    assert moves > 10

    for page in (ann, bob, eve):
        page.wait_for_selector(".result h2")
    loser = {p.evaluate("window.cardroom.state.view.outcome.loser") for p in (ann, bob, eve)}
    assert len(loser) == 1 and "lost" in eve.inner_text(".result h2")

    # Every card the spectator's page ever held was visible to a spectator at some version.
    visible, final = public_cards(live.record(code))
    assert final.phase == "over"
    seen = set(eve.evaluate("[...window.__seenCards]"))
    assert seen, "the spectator saw no card at all"
    assert seen <= set(CODES)
    leaked = seen - visible
    assert not leaked, f"the spectator's page showed hidden cards {sorted(leaked)}"
    # and the players' pages held cards the spectator never saw (the check can fail)
    hidden_from_eve = set(CODES) - visible
    assert hidden_from_eve, "every card became public: the test proves nothing"
    assert all(not e for e in errors), errors


def test_reload_in_the_middle_of_a_game_returns_to_the_same_seat(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context().new_page()
    errors = watch_errors(page)
    code = create_room(page, live.base, "Rea", "shithead", seats=3)
    page.click('[data-act="host"][data-op="start"]')
    for _ in range(4):
        shithead_click_turn(page)
    wait_turn(page)
    before_seat = page.evaluate("window.cardroom.seat")
    before_hand = page.eval_on_selector_all(".me .hand .card", "els => els.map(e => e.dataset.card)")
    before_version = page.evaluate("window.cardroom.state.version")
    assert page.url.endswith(f"/r/{code}")

    page.reload()
    page.wait_for_selector(".me .hand .card, .result")
    assert page.evaluate("window.cardroom.seat") == before_seat == 0
    assert page.evaluate("window.cardroom.room") == code
    after_hand = page.eval_on_selector_all(".me .hand .card", "els => els.map(e => e.dataset.card)")
    if page.evaluate("window.cardroom.state.version") == before_version:
        assert after_hand == before_hand  # the same view, nothing moved meanwhile
    # and the game goes on from there
    shithead_click_turn(page)
    assert not errors, errors


def test_a_whole_game_with_the_keyboard_only(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context().new_page()
    errors = watch_errors(page)
    page.goto(live.base + "/")
    page.wait_for_selector("#name")

    def tab_to(selector: str, limit: int = 40) -> None:
        for _ in range(limit):
            page.keyboard.press("Tab")
            if page.evaluate(f"document.activeElement.matches({selector!r})"):
                return
        raise AssertionError(f"Tab never reached {selector}")

    tab_to("#name")
    page.keyboard.type("Kim")
    tab_to('input[name="game"]')
    tab_to("#seats")
    page.keyboard.press("ArrowUp")  # 3 players (from 4)
    tab_to('#create-form button[type="submit"]')
    page.keyboard.press("Enter")
    page.wait_for_selector(".lobby")
    assert page.evaluate("window.cardroom.info.seats.length") == 3
    tab_to('[data-op="start"]')
    page.keyboard.press("Enter")

    deadline = time.monotonic() + GAME_SECONDS
    keys = 0
    while True:
        assert time.monotonic() < deadline, "the game did not end in time"
        what = wait_turn(page)
        if what == "over":
            break
        if what == "ready":
            page.keyboard.press("r")
        elif what == "pickup" and not page.locator("#area button.card.playable").count():
            page.keyboard.press("u")
        else:
            page.keyboard.press("h")  # focus the first card that may be played
            page.keyboard.press("Enter")  # choose it and play it
        keys += 1
    assert keys > 5
    page.wait_for_selector(".result h2")
    assert not errors, errors
