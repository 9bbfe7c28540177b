"""Practice: a game against bots with the hints on and a coach, from the home page, in every
language. Each moment's lesson is shown once, in the page's language, while that moment lasts;
"Got it" puts it away; every decision comes with the hint, asked for by itself."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page

from tests.support.web import act_first
from tests.web.conftest import ROOT, LiveServer, watch_errors

pytestmark = pytest.mark.slow

LANGS = ("en", "ru", "pt", "fr")
# every lesson the page showed, with its text as shown (a lesson may come and go between two
# looks of the test: the trump's, while bots pick)
LESSON_SPY = """
(() => {
  window.__lessons = [];
  new MutationObserver(() => {
    const box = document.querySelector('.coach');
    const last = window.__lessons[window.__lessons.length - 1];
    if (box && (!last || last.lesson !== box.dataset.lesson)) {
      const text = box.querySelector('p').textContent;
      window.__lessons.push({ lesson: box.dataset.lesson, text });
    }
  }).observe(document, { subtree: true, childList: true });
})();
"""
# what the page shows now: the phase, and the lesson on show
COACH_JS = """() => {
  const app = window.cardroom, v = app.state && app.state.view;
  const box = document.querySelector('.coach');
  return { phase: v ? v.phase : null, lesson: box ? box.dataset.lesson : null };
}"""
# the seat's move, or the hand over (with any lesson on show drawn)
READY_JS = """() => {
  const app = window.cardroom, v = app.state && app.state.view;
  if (!v || app.acting) return false;
  return v.phase === 'over' || (v.to_act.includes(app.seat) && v.legal.length > 0);
}"""
# a lesson every practice of the game shows, whatever the deal
ALWAYS = {"shithead": {"sh.swap", "sh.play", "sh.end"}, "sheepshead": {"ss.trump", "ss.end"}}
USE_HINTS = 3  # the first decisions are made with the hint's button, the rest fast


def strings(lang: str) -> dict[str, str]:
    result: dict[str, str] = json.loads((ROOT / "clients/web/i18n" / f"{lang}.json").read_text())
    return result


def practise(page: Page, live: LiveServer, lang: str, game: str) -> None:
    page.goto(live.base + "/")
    page.select_option("#lang", lang)
    page.wait_for_function("(l) => document.documentElement.lang.startsWith(l)", arg=lang)
    page.fill("#name", "Ann")
    page.click(f'[data-act="practice"][data-game="{game}"]')
    page.wait_for_function("() => window.cardroom.state && window.cardroom.state.view")


def play_through(page: Page, game: str, lang: str) -> set[str]:
    """Play the practice until its first hand is over; return the lessons shown, each checked
    against the language's text as it showed. A lesson on show at the seat's move is put away."""
    table = strings(lang)
    shown: set[str] = set()
    hinted = 0
    for _ in range(400):
        page.wait_for_function(READY_JS)
        now: dict[str, Any] = page.evaluate(COACH_JS)
        if now["lesson"]:
            page.click('[data-act="coach-ok"]')  # put away: another, or none
            page.wait_for_function(
                "(key) => !document.querySelector(`.coach[data-lesson='${key}']`)",
                arg=now["lesson"],
            )
            continue
        if now["phase"] == "over":
            lessons = page.evaluate("window.__lessons")
            order = [seen["lesson"] for seen in lessons]
            assert len(order) == len(set(order)), order  # none came back once gone
            for seen in lessons:
                # each lesson in the page's language, the title before it
                key = seen["lesson"]
                assert seen["text"] == f"{table['coach.title']} {table['coach.' + key]}", key
                shown.add(key)
            return shown
        if hinted < USE_HINTS:
            # the hint comes by itself in practice: its button plays it
            page.wait_for_selector('[data-act="hint-use"]')
            version = page.evaluate("window.cardroom.state.version")
            page.click('[data-act="hint-use"]')
            page.wait_for_function("(n) => window.cardroom.state.version > n", arg=version)
            hinted += 1
        else:
            act_first(page, prefer="ready")
    raise AssertionError(f"the {game} practice did not end: {shown}")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game", ["sheepshead", "shithead"])
def test_a_practice_game_is_played_through_with_its_lessons_in_every_language(
    game: str, lang: str, live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    context = new_context(viewport={"width": 375, "height": 667})
    context.add_init_script(LESSON_SPY)
    page = context.new_page()
    errors = watch_errors(page)
    practise(page, live, lang, game)
    info = page.evaluate("window.cardroom.info")
    # the player and bots of the default level, the hints on, no timer, the book's rules
    assert info["hints"] and info["turn_timer"] is None
    assert [s["kind"] for s in info["seats"]] == ["human"] + ["bot"] * (len(info["seats"]) - 1)
    assert {s["bot_level"] for s in info["seats"][1:]} == {"basic"}
    assert len(info["seats"]) == {"shithead": 3, "sheepshead": 5}[game]
    shown = play_through(page, game, lang)
    assert ALWAYS[game] <= shown, shown
    # a play lesson: leading or following a trick, or the partner's (Sheepshead)
    if game == "sheepshead":
        assert shown & {"ss.lead", "ss.follow", "ss.partner", "ss.leaster"}, shown
    assert not errors, errors


def test_a_lesson_is_shown_once_and_a_reload_keeps_what_was_shown(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context().new_page()
    practise(page, live, "en", "shithead")
    page.wait_for_selector(".coach[data-lesson='sh.swap']")
    page.reload()
    page.wait_for_selector(".felt")
    # the swap's lesson still on show (its moment lasts) after the reload, then put away
    page.wait_for_selector(".coach[data-lesson='sh.swap']")
    page.click('[data-act="coach-ok"]')
    page.wait_for_selector(".coach", state="detached")
    page.reload()
    page.wait_for_selector(".felt")
    page.wait_for_timeout(300)
    assert page.query_selector(".coach") is None  # put away for good, though still the swap
    assert page.evaluate("window.cardroom.state.view.phase") == "swap"
    # a room that is not a practice has no coach: the practice is this room's only
    page.goto(live.base + "/")
    assert page.evaluate("JSON.parse(localStorage.getItem('cardroom.practice')).seen") == ["swap"]
