"""The replay on a phone (375 × 667, a touch screen) and a desktop (1280 × 800): the page fits
the width (no sideways scroll), the trick (or pile) and the step buttons are on the first
screen without scrolling, an auto-play button steps by itself at a chosen speed until paused
or the end, and the keyboard line is shown only where there is a keyboard."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page

from protocol.messages import GameName
from tests.support.web import check_axe, finished, seated
from tests.web.conftest import SCREENSHOTS, LiveServer, watch_errors

pytestmark = pytest.mark.slow

PHONE = {"viewport": {"width": 375, "height": 667}, "has_touch": True, "is_mobile": True}
DESKTOP = {"viewport": {"width": 1280, "height": 800}}

# what the first screen holds: the page's width, and where the trick and the buttons end
LAYOUT_JS = """() => {
  const center = document.querySelector('#replay-board .center').getBoundingClientRect();
  const buttons = [...document.querySelectorAll('.rp-controls .btn')]
    .map(b => b.getBoundingClientRect());
  return {
    width: document.documentElement.scrollWidth,
    height: document.documentElement.scrollHeight,
    center_bottom: center.bottom,
    buttons_bottom: Math.max(...buttons.map(b => b.bottom)),
    buttons_top: Math.min(...buttons.map(b => b.top)),
    keys: !!document.querySelector('.rp-keys') && document.querySelector('.rp-keys').innerText,
  };
}"""


# the slider moved as a finger moves it
JUMP_JS = """(el, n) => {
  el.value = String(n);
  el.dispatchEvent(new Event('input', {bubbles: true}));
}"""


def jump(page: Page, step: int) -> None:
    page.eval_on_selector("#replay-range", JUMP_JS, step)


def layout(page: Page) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(LAYOUT_JS)
    return result


def open_replay(
    live: LiveServer, new_context: Callable[..., BrowserContext], game: GameName, seats: int
) -> tuple[Page, list[str], int]:
    room, token = finished(live, game, seats)
    ctx = seated(new_context(**PHONE), room, token)
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(f"{live.base}/r/{room}/history")
    page.wait_for_selector("#replay-board .rp-seat")
    total = int(page.get_attribute("#replay-range", "max") or 0)
    return page, errors, total


@pytest.mark.parametrize(("game", "seats"), [("sheepshead", 5), ("shithead", 4)])
def test_the_replay_fits_a_phone(
    game: GameName, seats: int, live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page, errors, total = open_replay(live, new_context, game, seats)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for where in (0, total // 2, total):  # the deal, the middle, the end (a result below)
        jump(page, where)
        got = layout(page)
        page.screenshot(path=str(SCREENSHOTS / f"replay-phone-{game}-{where}.png"), full_page=True)
        assert got["width"] <= 375, got  # no sideways scroll
        # the trick (or pile) and every step button on the first screen, without scrolling
        assert got["center_bottom"] <= 667 and got["buttons_bottom"] <= 667, (where, got)
        assert got["buttons_top"] >= 0, got
    assert not got["keys"] or "←" not in got["keys"]  # no keyboard words on a touch screen
    check_axe(page, f"the {game} replay on a phone")
    assert not errors


def test_the_desktop_replay_keeps_its_keys_line(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    room, token = finished(live, "sheepshead", 5)
    page = seated(new_context(**DESKTOP), room, token).new_page()
    errors = watch_errors(page)
    page.goto(f"{live.base}/r/{room}/history")
    page.wait_for_selector("#replay-board .rp-seat")
    got = layout(page)
    page.screenshot(path=str(SCREENSHOTS / "replay-desktop-sheepshead.png"), full_page=True)
    assert got["width"] <= 1280 and got["buttons_bottom"] <= 800, got
    assert got["keys"] and "←" in got["keys"]
    assert not errors


def test_auto_play_steps_by_itself_until_paused(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page, errors, total = open_replay(live, new_context, "sheepshead", 5)
    caption = "document.getElementById('replay-caption').textContent"
    play = page.locator("[data-act='rp-play']")
    assert play.get_attribute("aria-pressed") == "false"
    page.select_option("#replay-speed", "4")  # the fastest: four steps a second
    play.click()
    assert play.get_attribute("aria-pressed") == "true"
    page.wait_for_function(f"() => /^Step [3-9]\\d* of/.test({caption})", timeout=5000)
    play.click()  # pause: the step stays
    assert play.get_attribute("aria-pressed") == "false"
    paused = page.evaluate(caption)
    page.wait_for_timeout(800)  # longer than three steps at that speed: nothing moved
    assert page.evaluate(caption) == paused
    # played to the end it stops by itself, on the last step
    jump(page, total - 2)
    play.click()
    page.wait_for_function(f"() => {caption}.startsWith('Step {total} of')", timeout=5000)
    pressed = "document.querySelector(\"[data-act='rp-play']\").getAttribute('aria-pressed')"
    page.wait_for_function(f"() => {pressed} === 'false'")
    # at the end, play starts again from the deal
    play.click()
    page.wait_for_function(f"() => /^Step [1-9]\\d* of {total}/.test({caption})", timeout=5000)
    page.keyboard.press("End")  # a step by hand stops it
    assert play.get_attribute("aria-pressed") == "false"
    assert not errors


# the trick on screen: each card's caption as the reader sees it (drawn, not only for screen
# readers), and whose card it is in the step's view
TRICK_JS = """() => {
  const r = window.cardroom.replay, game = r.games[r.g], v = game.steps[r.step].view;
  const plays = v.trick.cards.length ? v.trick.cards : (v.tricks.at(-1) || {cards: []}).cards;
  const names = plays.map(p => (game.names && game.names[p.seat]) || null);
  const shown = [...document.querySelectorAll('#replay-board .trick .play figcaption')]
    .filter(f => f.getBoundingClientRect().width > 8).map(f => f.innerText.trim());
  return {names, shown};
}"""


def test_on_a_touch_phone_the_trick_says_whose_card_is_whose_and_no_keys_line(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    room, token = finished(live, "sheepshead", 5)
    # a touch screen, and nothing else said about the device
    touch = {"viewport": {"width": 375, "height": 667}, "has_touch": True}
    page = seated(new_context(**touch), room, token).new_page()
    errors = watch_errors(page)
    page.goto(f"{live.base}/r/{room}/history")
    page.wait_for_selector("#replay-board .rp-seat")
    total = int(page.get_attribute("#replay-range", "max") or 0)
    for where in (total // 2, total // 2 + 2, total):  # tricks under way and the last one
        jump(page, where)
        trick = page.evaluate(TRICK_JS)
        assert trick["names"] and trick["shown"] == trick["names"], (where, trick)
    page.screenshot(path=str(SCREENSHOTS / "replay-touch-sheepshead-375.png"))
    got = layout(page)
    assert not got["keys"] or "←" not in got["keys"]  # no keyboard words on a touch screen
    assert not page.locator(".rp-keyline").is_visible()
    assert not errors


# the pile on screen: its runs of cards, each with the name under it
PILE_JS = """() => [...document.querySelectorAll('#replay-board .pile .pile-run')].map(f => ({
  cards: [...f.querySelectorAll('.card')].map(c => c.dataset.card),
  name: f.querySelector('figcaption').innerText.trim(),
  visible: f.querySelector('figcaption').getBoundingClientRect().width > 8,
}))"""
GAME_JS = "() => { const r = window.cardroom.replay; return r.games[r.g]; }"


def pile_runs(steps: list[dict[str, Any]], names: list[str]) -> list[dict[str, Any]]:
    """The top five pile cards of the last step in runs by the seat that played them, worked
    out here from the steps' played events (the last play of a card put it on the pile)."""
    by: dict[str, int] = {}
    for step in steps[1:]:
        for event in step["events"]:
            if event["kind"] == "played":
                by.update(dict.fromkeys(event["cards"], event["seat"]))
    runs: list[dict[str, Any]] = []
    for card in steps[-1]["view"]["pile"][-5:]:
        name = names[by[card]]
        if runs and runs[-1]["name"] == name:
            runs[-1]["cards"].append(card)
        else:
            runs.append({"cards": [card], "name": name})
    return runs


@pytest.mark.parametrize("device", ["phone", "desktop"])
def test_the_shithead_replays_pile_says_who_played_each_card(
    device: str, live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    room, token = finished(live, "shithead", 4)
    page = seated(new_context(**(PHONE if device == "phone" else DESKTOP)), room, token).new_page()
    errors = watch_errors(page)
    page.goto(f"{live.base}/r/{room}/history")
    page.wait_for_selector("#replay-board .rp-seat")
    total = int(page.get_attribute("#replay-range", "max") or 0)
    width = 375 if device == "phone" else 1280
    game = page.evaluate(GAME_JS)  # the steps as the server gave them to the page
    most = 0
    for where in range(1, total + 1):
        jump(page, where)
        runs = page.evaluate(PILE_JS)
        want = pile_runs(game["steps"][: where + 1], game["names"])
        assert [{"cards": r["cards"], "name": r["name"]} for r in runs] == want, (where, want)
        assert all(r["visible"] for r in runs), (where, runs)
        if len(want) > most:  # the most names on the pile so far: it still fits
            most = len(want)
            got = layout(page)
            assert got["width"] <= width and got["center_bottom"] <= (667 if width < 400 else 800)
            page.screenshot(path=str(SCREENSHOTS / f"replay-pile-seats-{width}.png"))
    assert most > 1  # some piles held cards of more than one seat
    check_axe(page, f"the Shithead replay's pile on a {device}")
    assert not errors
