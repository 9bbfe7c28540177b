"""The table's words as a player reads them: what the seat to act is deciding ("Bot 5 decides:
pick or pass", not "Bot 5 to play"), no "Trick 1" over the empty table of the pick, results in
the second person for the viewer ("Your side wins the hand", "You lost this game"), hands
counted as hands, Russian names left in the nominative, "click" with a mouse and "tap" on a
touch screen, and the keys explained at the table.

The renderers are given real views of the rules core (they take the data they draw)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page

from server.rooms.matches import Match
from server.rules.base import Game
from tests.support.games import play_out
from tests.web.conftest import ROOT, LiveServer, create_room

pytestmark = pytest.mark.slow

EN = json.loads((ROOT / "clients/web/i18n/en.json").read_text())

RENDER_JS = """async ([game, fn, view, seat, lang]) => {
    const i18n = await import('/js/i18n.js');
    await i18n.setLang(lang);
    const mod = await import('/js/' + game + '.js');
    const d = {view, events: [], sel: [], mode: null, seat, info: null, hint: "", after: "",
               name: (s) => i18n.t('lobby.botName', {n: s + 1})};
    const box = document.createElement('div');
    box.innerHTML = mod[fn](d);
    const prompt = box.querySelector('#prompt');
    return {prompt: prompt ? prompt.textContent : null, text: box.textContent,
            head: box.querySelector('.result h2')?.textContent ?? null};
}"""


def wire(view: Any) -> Any:
    return json.loads(json.dumps(view))


def drawn(page: Page, game: str, fn: str, view: Any, seat: int | None, lang: str = "en") -> Any:
    return page.evaluate(RENDER_JS, [game, fn, wire(view), seat, lang])


def at_phase(game: Game, phase: str) -> Game:
    for _ in range(500):
        if game.phase == phase:
            return game
        seat = game.to_act()[0]
        game.apply(seat, game.legal_actions(seat)[0])
    raise AssertionError(f"never reached {phase}")


def picked_hand() -> tuple[Game, dict[str, Any]]:
    """A Sheepshead hand played out in which someone picked (no leaster): the game, its result."""
    for seed in range(200):
        game = play_out(Match.create("sheepshead", 5, seed=seed).current, seed)
        r: Any = wire(game.view(None)).get("result")
        if (
            r
            and r.get("picker") is not None
            and not r.get("leaster")
            and r.get("partner") is not None
        ):
            return game, r
    raise AssertionError("no picked hand")


@pytest.fixture
def page(live: LiveServer, new_context: Callable[..., BrowserContext]) -> Page:
    p = new_context().new_page()
    p.goto(live.base + "/")
    p.wait_for_selector(".home")
    return p


def test_the_seat_to_act_is_named_with_what_it_decides_and_no_trick_before_play(page: Page) -> None:
    game = Match.create("sheepshead", 5, seed=4).current
    assert game.phase == "pick"
    seat = game.to_act()[0]
    got = drawn(page, "sheepshead", "render", game.view(None), None)
    assert got["prompt"] == f"Bot {seat + 1} decides: pick or pass"
    assert "Trick" not in got["text"]
    playing = at_phase(game, "play")
    got = drawn(page, "sheepshead", "render", playing.view(None), None)
    assert "Trick 1" in got["text"]


def test_results_speak_to_the_viewer(page: Page) -> None:
    game, r = picked_hand()
    picker, partner = r["picker"], r["partner"]
    won = r["picker_points"] >= 61
    defender = next(s for s in range(5) if s not in (picker, partner))
    assert drawn(page, "sheepshead", "resultHTML", game.view(picker), picker)["head"] == (
        "Your side wins the hand" if won else "The defenders beat you"
    )
    assert drawn(page, "sheepshead", "resultHTML", game.view(partner), partner)["head"] == (
        "Your side wins the hand" if won else "The defenders beat your side"
    )
    name = f"Bot {picker + 1}"
    assert drawn(page, "sheepshead", "resultHTML", game.view(defender), defender)["head"] == (
        f"{name}'s side beats you" if won else f"You and the defenders beat {name}"
    )
    # Russian: the name stays as written (no "Сторона Бот 3" wanting a declension)
    ru = drawn(page, "sheepshead", "resultHTML", game.view(None), None, "ru")["head"]
    assert f"(Бот {picker + 1})" in ru, ru

    sh = play_out(Match.create("shithead", 3, seed=7).current, 7)
    loser = wire(sh.view(None))["outcome"]["loser"]
    other = (loser + 1) % 3
    assert (
        drawn(page, "shithead", "resultHTML", sh.view(loser), loser)["head"] == "You lost this game"
    )
    assert drawn(page, "shithead", "resultHTML", sh.view(other), other)["head"] == (
        f"You got out: Bot {loser + 1} lost this game"
    )


def test_hands_are_counted_as_hands_and_between_them_is_not_game_over(page: Page) -> None:
    info = {"room": "AB3CD", "game": "sheepshead", "status": "between", "games_played": 2,
            "seats": [], "spectators": 0, "locked": False}  # fmt: skip
    text = page.evaluate(
        "async (info) => { const m = await import('/js/lobby.js');"
        " const box = document.createElement('div');"
        " box.innerHTML = m.seatsHTML({info, seat: null, host: false, name: () => ''});"
        " return box.textContent; }",
        info,
    )
    assert "Hands played: 2" in text and "Games played" not in text
    assert EN["status.betweenHands"] == "between hands" and "over" not in EN["status.between"]


def test_click_with_a_mouse_tap_on_a_touch_screen_and_keys_explained(
    live: LiveServer, new_context: Callable[..., BrowserContext], page: Page
) -> None:
    game = at_phase(Match.create("sheepshead", 5, seed=4).current, "play")
    seat = game.to_act()[0]
    assert (
        drawn(page, "sheepshead", "render", game.view(seat), seat)["prompt"]
        == (EN["ss.playHintClick"])
    )
    phone = new_context(viewport={"width": 375, "height": 667}, has_touch=True, is_mobile=True)
    touch = phone.new_page()
    touch.goto(live.base + "/")
    touch.wait_for_selector(".home")
    assert (
        drawn(touch, "sheepshead", "render", game.view(seat), seat)["prompt"] == (EN["ss.playHint"])
    )
    assert "tap" in EN["ss.playHint"] and "click" in EN["ss.playHintClick"]
    # the keys, one click away at a desktop table
    create_room(page, live.base, "Ann", "shithead", seats=2)
    page.click('[data-act="host"][data-op="start"]')
    page.wait_for_selector("#area .felt")
    page.click(".keys-help summary")
    assert "Enter plays" in page.inner_text(".keys-help")
