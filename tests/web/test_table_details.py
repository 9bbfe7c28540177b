"""Small things at the table, each as a player meets it: no seat count offered
for Sheepshead (always five), the screen reader's "your turn" in the chosen language, no "pick
up the pile" on an empty pile, and a header on one line at 375 px in a room with hints."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, Page

from tests.support.web import PHONE, act_first, create_hints_room
from tests.web.conftest import (
    ROOT,
    LiveServer,
    create_room,
    open_room_form,
    wait_turn,
    watch_errors,
)

pytestmark = pytest.mark.slow

FR = json.loads((ROOT / "clients/web/i18n/fr.json").read_text())
EN = json.loads((ROOT / "clients/web/i18n/en.json").read_text())


def view(page: Page) -> dict[str, object]:
    result: dict[str, object] = page.evaluate("window.cardroom.state.view")
    return result


def test_the_form_offers_no_seat_count_for_sheepshead(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(viewport=PHONE).new_page()
    errors = watch_errors(page)
    open_room_form(page, live.base)
    page.check('input[name="game"][value="shithead"]')
    assert page.is_visible("#seats")
    page.check('input[name="game"][value="sheepshead"]')  # rule SS-1.1: always five
    page.wait_for_selector("#seats", state="hidden")
    page.check('input[name="game"][value="shithead"]')
    page.wait_for_selector("#seats", state="visible")
    assert not errors, errors


# every text the screen reader's live region was given (it changes with each state)
ANNOUNCE_SPY = """
(() => {
  window.__said = [];
  new MutationObserver(() => {
    const live = document.getElementById('announce');
    if (live && live.textContent) window.__said.push(live.textContent);
  }).observe(document, {subtree: true, childList: true, characterData: true});
})();
"""


def test_the_screen_reader_hears_the_prompt_in_the_chosen_language(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    ctx = new_context(viewport=PHONE)
    ctx.add_init_script(ANNOUNCE_SPY)
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(live.base + "/")
    page.select_option("#lang", "fr")
    page.wait_for_function("() => document.documentElement.lang === 'fr'")
    create_room(page, live.base, "Ann", "shithead", seats=2)
    page.click('[data-act="host"][data-op="start"]')
    assert wait_turn(page) == "ready"
    # the swap's prompt: what the table asks, said when the turn comes
    page.wait_for_function("(s) => window.__said.some(t => t.includes(s))", arg=FR["sh.swapHint"])
    assert not [s for s in page.evaluate("window.__said") if EN["sh.swapHint"] in s]
    assert not errors, errors


def test_an_empty_pile_offers_no_pick_up(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(viewport=PHONE).new_page()
    errors = watch_errors(page)
    create_room(page, live.base, "Ann", "shithead", seats=2)
    page.click('[data-act="host"][data-op="start"]')
    seen = {"empty": False, "pile": False}
    for _ in range(3):  # games until both came up at my turn: an empty pile, and one with cards
        while wait_turn(page, timeout=20_000) != "over":
            v = view(page)
            if v["phase"] == "play" and v["source"] == "hand":
                prompt = page.inner_text("#prompt")
                # rule SH-4.6: a pile to pick up, or none
                if v["pile"]:
                    seen["pile"] = True
                    assert prompt in (EN["sh.playHintClick"], EN["sh.mustPickup"]), prompt
                else:
                    seen["empty"] = True
                    assert prompt == EN["sh.playHintEmptyClick"], prompt
                    assert page.locator('[data-act="pickup"]').count() == 0
            act_first(page)
        if all(seen.values()):
            break
        page.click('[data-act="host"][data-op="next_game"]')
    assert all(seen.values()), seen
    assert not errors, errors


HEADER_JS = """() => {
  const top = document.getElementById('top');
  const parts = [...top.children].filter(e => e.getBoundingClientRect().width > 0);
  const mid = (r) => (r.top + r.bottom) / 2;
  const rows = new Set(parts.map(e => Math.round(mid(e.getBoundingClientRect()) / 12)));
  return {rows: rows.size, height: top.getBoundingClientRect().height,
          wide: document.documentElement.scrollWidth};
}"""


def test_the_header_stays_on_one_line_on_a_phone_with_hints(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(viewport=PHONE).new_page()
    errors = watch_errors(page)
    create_hints_room(page, live.base, "Ann", "shithead", seats=2)
    page.click('[data-act="host"][data-op="start"]')
    wait_turn(page)
    for lang in ("en", "ru", "pt", "fr"):
        page.select_option("#lang", lang)
        page.wait_for_function("(l) => document.documentElement.lang.startsWith(l)", arg=lang)
        got = page.evaluate(HEADER_JS)
        assert got["rows"] == 1 and got["height"] < 60 and got["wide"] <= 375, (lang, got)
    assert not errors, errors
