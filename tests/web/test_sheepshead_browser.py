"""A Sheepshead hand in the browser: pick, bury two, call a partner, six tricks, the result."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext
from playwright.sync_api import Error as PlaywrightError

from tests.support.web import start_scripted
from tests.web.conftest import CORNER, LiveServer, open_room_form, wait_turn, watch_errors

pytestmark = pytest.mark.slow


def unknown_call(kinds: set[str]) -> bool:
    """The picker's only call is of an ace with an unknown card (SS-4.3)."""
    return "call_unknown" in kinds and "call" not in kinds


def test_a_sheepshead_hand_through_pick_bury_call_tricks_and_result(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(viewport={"width": 375, "height": 740}).new_page()
    errors = watch_errors(page)
    bury = start_scripted(page, live)

    # pick (rule SS-3.1: seat 0 sits at the dealer's left and is asked first)
    page.wait_for_selector('[data-act="pick"]')
    assert page.is_visible('[data-act="pass"]')
    page.click('[data-act="pick"]')
    # bury two (SS-3.2): the blind is in the hand, eight cards to choose from
    page.wait_for_selector('[data-act="bury"]')
    assert page.locator(".me .hand button.card.playable").count() == 8
    assert page.is_disabled('[data-act="bury"]')
    for card in bury:
        page.click(f'.me .hand button.card[data-card="{card}"]')
    page.click('[data-act="bury"]:not([disabled])')
    # call (SS-4.1)
    page.wait_for_selector('[data-act="call"]')
    assert page.is_visible('[data-act="alone"]')
    called = page.get_attribute('[data-act="call"]', "data-card")
    page.click('[data-act="call"]')
    page.wait_for_selector('.info:has-text("Called card")')
    assert page.evaluate("window.cardroom.state.view.called") == called

    # six tricks: play a highlighted card whenever it is our turn
    played = 0
    while True:
        what = wait_turn(page, timeout=20_000)
        if what == "over":
            break
        assert what == "play", what
        cards = page.locator('.me .hand button.card.playable[data-act="card"]')
        # only cards the view allows are highlighted
        legal = page.evaluate(
            "window.cardroom.state.view.legal.filter(a => a.kind === 'play').map(a => a.cards[0])"
        )
        highlighted = cards.evaluate_all("els => els.map(e => e.dataset.card)")
        assert sorted(highlighted) == sorted(legal)
        try:
            # a card tapped once is raised, not played; tapped again it is played
            card = str(cards.first.get_attribute("data-card", timeout=2000))
            version = page.evaluate("window.cardroom.state.version")
            cards.first.click(timeout=2000)
            raised = page.locator(f'.me .hand button.card.selected[data-card="{card}"]')
            raised.wait_for(timeout=2000)
            assert raised.get_attribute("aria-pressed") == "true"
            assert page.evaluate("window.cardroom.state.version") == version
            assert card in page.evaluate("window.cardroom.state.view.hand")
            raised.click(timeout=2000)
            page.wait_for_function("(n) => window.cardroom.state.version > n", arg=version)
            assert card not in page.evaluate("window.cardroom.state.view.hand")
            played += 1
        except PlaywrightError:  # the page moved on under the click: look again
            continue
    assert played == 6
    view = page.evaluate("window.cardroom.state.view")
    assert len(view["tricks"]) == 6 and view["result"]["picker"] == 0
    text = page.inner_text(".result")
    units = view["result"]["units"]
    assert sum(units) == 0
    assert f"{units[0]:+d}".replace("+0", "0") in text
    # the running total of the match and the next hand
    page.wait_for_selector('[data-act="host"][data-op="next_game"]')
    assert page.inner_text(".result thead").split()[-1] == "Total"
    page.click('[data-act="host"][data-op="next_game"]')
    page.wait_for_function("() => window.cardroom.state.view.phase !== 'over'")
    assert page.inner_text(".info").count("Hand 2 of 10") == 1
    assert not errors, errors


def test_todays_sheepshead_starts_against_four_bots(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context().new_page()
    errors = watch_errors(page)
    open_room_form(page, live.base)  # the daily's bots are of the form's level
    page.fill("#name", "Dana")
    page.select_option("#level", "random")
    page.click('[data-act="daily"]')
    page.wait_for_selector(".felt.sheepshead")
    info = page.evaluate("window.cardroom.info")
    assert info["game"] == "sheepshead" and info["daily"] and info["match_length"] == 10
    assert [s["kind"] for s in info["seats"]] == ["human", "bot", "bot", "bot", "bot"]
    # the day's bots, whatever level the page had chosen (a daily room's bots are fixed)
    assert {s["bot_level"] for s in info["seats"][1:]} == {"basic"}
    assert "Hand 1 of 10" in page.inner_text(".info")
    assert not errors, errors


def test_the_unknown_card_set_aside_can_be_played_when_it_must_be(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(viewport={"width": 375, "height": 667}).new_page()
    errors = watch_errors(page)
    bury = start_scripted(page, live, unknown_call)
    page.click('[data-act="pick"]')
    for card in bury:
        page.click(f'.me .hand button.card[data-card="{card}"]')
    page.click('[data-act="bury"]:not([disabled])')
    # call an ace with an unknown card (SS-4.3): the first one offered, then the card to set aside
    page.click('[data-act="callu"]')
    if page.evaluate("window.cardroom.mode"):
        page.locator('.me .hand button.card.playable[data-act="card"]').first.click()
    page.wait_for_function("() => window.cardroom.state.view.unknown_card")
    under = page.evaluate("window.cardroom.state.view.unknown_card")
    assert under not in page.evaluate("window.cardroom.state.view.hand")
    # play on: when the called suit is led, or at the last trick, the unknown card must go
    # (SS-6.4), and it is there to press
    while True:
        assert wait_turn(page, timeout=20_000) == "play"
        legal = page.evaluate("window.cardroom.state.view.legal")
        if legal == [{"kind": "play", "cards": [under]}]:
            break
        page.evaluate("(a) => window.cardroom.act(a)", legal[0])
        page.wait_for_function("() => !window.cardroom.acting")
    version = page.evaluate("window.cardroom.state.version")
    button = page.locator(f'.me .hand button.card.playable.unknown-card[data-card="{under}"]')
    button.click(position=CORNER)
    button.click(position=CORNER)
    page.wait_for_function("(n) => window.cardroom.state.version > n", arg=version)
    # played face down (nobody is shown it before the hand ends), and gone from my place
    tricks = page.evaluate(
        "[window.cardroom.state.view.trick, ...window.cardroom.state.view.tricks]"
    )
    assert any(p["seat"] == 0 and p["face_down"] for t in tricks for p in t["cards"])
    assert page.locator(f'.me .card[data-card="{under}"]').count() == 0
    assert not errors, errors
