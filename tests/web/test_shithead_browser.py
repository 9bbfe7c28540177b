"""Shithead in the browser: two people and two bots play a whole game by clicking the highlighted
cards, a third person watches and never has a hidden card in the page; reload; keyboard only."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from playwright.sync_api import BrowserContext

from protocol.cards import CODES
from server.rooms.matches import DealSource
from server.rules.base import Action
from server.rules.shithead import Shithead
from tests.support.replay import replayed
from tests.support.shithead import codes_in
from tests.web.conftest import (
    GAME_SECONDS,
    LiveServer,
    create_room,
    play_together,
    seen_cards_script,
    shithead_click_turn,
    wait_turn,
    watch_errors,
)

pytestmark = pytest.mark.slow


def public_by_version(record: Mapping[str, Any], source: DealSource) -> dict[int, set[str]]:
    """For each version of the room's first game, every card a spectator may have been shown
    so far: what its view held at that version or before, and the cards of the public events
    (a ten played burns at once, so it is only ever in an event)."""
    public: dict[int, set[str]] = {}
    so_far: set[str] = set()
    events: dict[int, list[Any]] = {}
    game = next(iter(replayed(record, source)))[1]  # a second copy, to read each action's events
    for version, (seat, text) in enumerate(record["match"]["logs"][0], start=2):
        events[version] = [e.to_json() for e in game.apply(seat, Action.from_str(text))]
    for version, game in replayed(record, source):
        assert isinstance(game, Shithead)
        so_far = so_far | codes_in(game.view(None)) | codes_in(events.get(version, []))
        public[version] = so_far
    assert game.phase == "over"
    return public


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

    # chat reaches everyone in the room, the spectator included
    bob.fill("#chat-text", "good luck")
    bob.press("#chat-text", "Enter")
    eve.wait_for_selector("#chat-lines >> text=good luck")
    ann.wait_for_selector("#chat-lines >> text=Bob:")

    ann.click('[data-act="host"][data-op="fill_bots"]')
    ann.wait_for_selector(".seat:nth-child(4) >> text=Bot 4")
    ann.click('[data-act="host"][data-op="start"]')

    moves = play_together((ann, bob))
    print(f"{moves} moves by the two people")
    assert moves > 10

    for page in (ann, bob, eve):
        page.wait_for_selector(".result h2")
    loser = {p.evaluate("window.cardroom.state.view.outcome.loser") for p in (ann, bob, eve)}
    assert len(loser) == 1 and "lost" in eve.inner_text(".result h2")

    # The spectator's page never held a card before a spectator could know it: compared, at
    # every version its page showed, with the public cards of the game's record up to then.
    public = public_by_version(live.record(code), live.source(code))
    seen: dict[str, list[str]] = eve.evaluate("window.__seenCards")
    assert seen, "the spectator's page recorded nothing"
    shown = 0
    for version, cards in seen.items():
        assert set(cards) <= set(CODES)
        leaked = set(cards) - public[int(version)] if int(version) else set(cards)
        assert not leaked, f"version {version}: the spectator's page showed {sorted(leaked)}"
        shown += len(cards)
    assert shown > 20
    # at the deal most cards are hidden (hands, face-down cards, stock): the check can fail
    assert len(set(CODES) - public[1]) > 30
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
    while wait_turn(page) != "play":
        shithead_click_turn(page)
    # exactly the cards the view allows are highlighted (rule SH-4.1: the view decides)
    sets = page.evaluate("window.cardroom.state.view.play_sets")
    lit = page.eval_on_selector_all(
        "#area button.card.playable", "els => els.map(e => e.dataset.card)"
    )
    assert sorted(lit) == sorted(c for s in sets for c in s)
    before_seat = page.evaluate("window.cardroom.seat")
    hand_codes = "els => els.map(e => e.dataset.card)"
    before_hand = page.eval_on_selector_all(".me .hand .card", hand_codes)
    before_version = page.evaluate("window.cardroom.state.version")
    assert page.url.endswith(f"/r/{code}")

    page.reload()
    page.wait_for_selector(".me .hand .card, .result")
    assert page.evaluate("window.cardroom.seat") == before_seat == 0
    assert page.evaluate("window.cardroom.room") == code
    after_hand = page.eval_on_selector_all(".me .hand .card", hand_codes)
    if page.evaluate("window.cardroom.state.version") == before_version:
        assert after_hand == before_hand  # the same view, nothing moved meanwhile
    # and the game goes on from there
    shithead_click_turn(page)
    assert not errors, errors


def test_a_dropped_connection_shows_reconnecting_and_resumes_the_seat(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context().new_page()
    errors = watch_errors(page)
    code = create_room(page, live.base, "Dee", "shithead", seats=2)
    page.click('[data-act="host"][data-op="start"]')
    wait_turn(page)
    version = page.evaluate("window.cardroom.state.version")
    page.evaluate(
        """() => new MutationObserver(() => {
            const net = document.getElementById("net");
            if (net && net.classList.contains("down") && /reconnecting/i.test(net.textContent)) {
                window.__sawReconnecting = true;
            }
        }).observe(document.getElementById("top"), {subtree: true, childList: true,
                                                     characterData: true, attributes: true})"""
    )

    closing: list[asyncio.Future[None]] = []

    def drop() -> None:  # the server closes the host's connection, as a network drop would
        server = live.server
        for conn in server.connected.sockets.values():
            if server.manager.rooms[code].core.seats[0].conn == conn.id:
                closing.append(asyncio.ensure_future(conn.ws.close(1011, "test drop")))

    live.call(drop)
    assert closing
    page.wait_for_function("() => window.__sawReconnecting === true")
    page.wait_for_function(
        "() => window.cardroom.online && !document.body.classList.contains('offline')"
    )
    page.wait_for_function(f"() => window.cardroom.state.version >= {version}")
    assert page.evaluate("window.cardroom.seat") == 0
    shithead_click_turn(page)  # and play goes on
    assert not errors, errors


def test_a_swap_refused_as_stale_is_sent_again_against_the_fresh_view(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    # In the swap phase every seat acts at once, so a swap may be chosen against a version
    # another seat has just moved past: the page sends it again (rule SH-2.3).
    page = new_context().new_page()
    errors = watch_errors(page)
    create_room(page, live.base, "Sia", "shithead", seats=2)
    page.click('[data-act="host"][data-op="start"]')
    assert wait_turn(page) == "ready"
    view = page.evaluate("window.cardroom.state.view")
    hand_card = view["hand"][0]
    up_card = next(c for c in view["seats"][0]["face_up"] if c[0] != hand_card[0])

    def stale_refusals() -> float:
        counter = live.server.metrics.refusals.labels("stale_version")
        value: float = live.call(lambda: counter._value.get())  # _value is untyped (Any)
        return value

    # the bot's own ready would bring a fresh view (and version) between the lines below
    page.wait_for_function("() => window.cardroom.state.view.seats[1].ready === true")
    before = stale_refusals()
    # as if another seat had moved: the version on screen is behind the room's
    page.evaluate("window.cardroom.state.version -= 1")
    page.click(f'.me .hand button.card[data-card="{hand_card}"]')
    page.click(f'.me .tablecards button.card[data-card="{up_card}"]')
    page.wait_for_selector(f'.me .hand .card[data-card="{up_card}"]')
    assert page.is_visible(f'.me .tablecards .card[data-card="{hand_card}"]')
    assert stale_refusals() >= before + 1  # refused as stale, then sent again and applied
    assert not page.is_visible(".toast.show.error")  # nothing to tell the player
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
    tab_to('[data-act="fold-new"]')  # the new room's form is folded behind its button
    page.keyboard.press("Enter")
    assert page.get_attribute('[data-act="fold-new"]', "aria-expanded") == "true"
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
