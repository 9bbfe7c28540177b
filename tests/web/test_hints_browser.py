"""Hints in the browser: the create form's checkbox, the Hint button at your decision, the
reason shown (translated when the page speaks another language) and the suggestion marked."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page

from server.rooms.matches import Match
from tests.support.web import create_hints_room
from tests.web.conftest import SCREENSHOTS, LiveServer, join_room, watch_errors

pytestmark = pytest.mark.slow

NOTES = "/work/notes"  # where the lead looks at screenshots (the repo keeps build/screenshots)


def shoot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / name
    page.screenshot(path=str(path), full_page=True)
    if os.path.isdir(NOTES):
        shutil.copy(path, f"{NOTES}/{name}")


def ask_hint(page: Page) -> dict[str, Any]:
    page.click('[data-act="hint"]')
    page.wait_for_selector(".hint-reason")
    hint: dict[str, Any] = page.evaluate("window.cardroom.hint")
    return hint


def test_a_shithead_hint_is_shown_and_marked(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context().new_page()
    errors = watch_errors(page)
    code = create_hints_room(page, live.base, "Ann", "shithead")
    assert page.is_visible(".top .hints-on")  # everyone in the room sees hints are on
    # a spectator sees it too, and gets no Hint button
    watcher = new_context().new_page()
    watcher.goto(live.base + "/")
    watcher.fill("#code", code)
    watcher.click('[data-act="watch"]')
    watcher.wait_for_selector(".top .hints-on")
    page.click('[data-act="host"][data-op="start"]')  # the empty seat gets a bot
    page.wait_for_selector('[data-act="ready"]')
    # the swap is simultaneous: once the bot is ready nothing moves until Ann does
    page.wait_for_function("() => window.cardroom.state.view.seats[1].ready === true")
    version = page.evaluate("window.cardroom.state.version")
    hint = ask_hint(page)
    assert hint["version"] == version and hint["seat"] == 0
    legal = page.evaluate("window.cardroom.state.view.legal")
    # the wire form: empty card lists and absent slots may be written out or left out
    assert {k: v for k, v in hint["action"].items() if v not in (None, [])} in legal
    # the reason as the page shows it is the server's English text
    assert page.inner_text(".hint-reason") == "Hint: " + hint["reason"]["text"]
    # the suggestion is marked: its cards, or its button
    marked = page.eval_on_selector_all(
        "#area .suggested", "els => els.map(e => e.dataset.card || e.dataset.act)"
    )
    expected = hint["action"].get("cards") or [hint["action"]["kind"]]
    assert sorted(marked) == sorted(expected)
    assert page.evaluate("window.cardroom.state.version") == version  # asking changed nothing
    watcher.wait_for_selector("#area .felt")
    assert watcher.locator('[data-act="hint"]').count() == 0
    shoot(page, "hints-web-shithead.png")
    # "Do it" sends the suggestion as it is
    page.click('[data-act="hint-use"]')
    page.wait_for_function(f"() => window.cardroom.state.version > {version}")
    assert page.locator(".hint-reason").count() == 0  # a hint lasts for its version only
    assert not errors


def bury_seed() -> int:
    """A seed whose first hand asks seat 0 first (seat 4 deals)."""
    for seed in range(4, 500, 5):
        if list(Match.create("sheepshead", 5, seed=seed).current.to_act()) == [0]:
            return seed
    raise AssertionError("no seed found")


def test_a_sheepshead_hint_in_french_and_the_bury_marked(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(locale="fr-FR").new_page()
    errors = watch_errors(page)
    code = create_hints_room(page, live.base, "Zoé", "sheepshead")
    seed = bury_seed()

    def set_seed() -> None:
        live.server.manager.rooms[code].core.seed = seed

    live.call(set_seed)
    page.click('[data-act="host"][data-op="start"]')
    page.wait_for_selector('[data-act="pick"]')
    hint = ask_hint(page)
    assert hint["action"]["kind"] in ("pick", "pass")
    shown = page.inner_text(".hint-reason").replace("\xa0", " ")  # French spacing
    assert shown.startswith("Conseil : ")
    assert hint["reason"]["text"] not in shown  # translated, not the English text
    marked = page.eval_on_selector_all("#area .suggested", "els => els.map(e => e.dataset.act)")
    assert marked == [hint["action"]["kind"]]
    page.click('[data-act="pick"]')
    page.wait_for_selector('[data-act="bury"]')
    hint = ask_hint(page)
    assert hint["action"]["kind"] == "bury"
    marked = page.eval_on_selector_all(
        ".me .hand .suggested", "els => els.map(e => e.dataset.card)"
    )
    assert sorted(marked) == sorted(hint["action"]["cards"])
    assert re.search(r"enterrez", page.inner_text(".hint-reason"))
    shoot(page, "hints-web-sheepshead.png")
    assert not errors


# The answer to a hint held back until another seat's move is on screen (a friend quicker
# than the bot that answers): the order in which the first Hint of a swap phase used to come.
HOLD_HINT_JS = """() => {
  const app = window.cardroom, send = app.net.request.bind(app.net);
  app.net.request = async (body) => {
    const reply = await send(body);
    if (body.type !== "hint") return reply;
    for (let i = 0; i < 100 && app.state.version <= reply.version; i++) {
      await new Promise((ok) => setTimeout(ok, 50));
    }
    return reply;
  };
}"""


def test_the_first_hint_of_the_swap_phase_is_shown_when_a_friend_moves_meanwhile(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    ann, bob = new_context().new_page(), new_context().new_page()
    errors = watch_errors(ann) + watch_errors(bob)
    code = create_hints_room(ann, live.base, "Ann", "shithead")
    join_room(bob, live.base, code, "Bob")
    ann.click('[data-act="host"][data-op="start"]')
    for page in (ann, bob):
        page.wait_for_selector('[data-act="ready"]')
    ann.evaluate(HOLD_HINT_JS)
    version = ann.evaluate("window.cardroom.state.version")
    ann.click('[data-act="hint"]')  # one click (rule SH-2.3: the swap is simultaneous)...
    bob.click('[data-act="ready"]')  # ...and Bob is ready before the answer is here
    ann.wait_for_function(f"() => window.cardroom.state.version > {version}")
    # the answer still holds: Bob's move changes nothing of Ann's swap
    ann.wait_for_selector(".hint-reason", timeout=8000)
    hint = ann.evaluate("window.cardroom.hint")
    assert hint["version"] == version
    legal = ann.evaluate("window.cardroom.state.view.legal")
    assert {k: v for k, v in hint["action"].items() if v not in (None, [])} in legal
    expected = hint["action"].get("cards") or [hint["action"]["kind"]]
    marked = ann.eval_on_selector_all(
        "#area .suggested", "els => els.map(e => e.dataset.card || e.dataset.act)"
    )
    assert sorted(marked) == sorted(expected)
    assert not errors
