"""House rules in the browser: the room form's options (SH-7, SS-10), the rules in
force in the lobby and on the table, a Sheepshead hand with the jack of diamonds, the doubler
and cracking played through a crack to its score, and a Shithead game with all three options."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page

from protocol.messages import SheepsheadOptions, ShitheadOptions
from tests.support.house import HOUSE_SH, HOUSE_SS, crack_deal, thrown_in_deal
from tests.support.web import PHONE, act_first, finished, seated, shoot
from tests.web.conftest import (
    ROOT,
    SCREENSHOTS,
    LiveServer,
    can_act,
    open_room_form,
    shithead_click_turn,
    wait_turn,
    watch_errors,
)

LANGS = ("en", "ru", "pt", "fr")


def table(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((ROOT / "clients/web/i18n" / f"{lang}.json").read_text())
    return data


def test_every_option_and_value_on_the_wire_has_a_label_and_a_line_in_every_language() -> None:
    # house.js builds its keys from the wire's names: each one is a sentence in each language
    wanted = []
    for model in (ShitheadOptions, SheepsheadOptions):
        for key, field in model.model_fields.items():
            if field.annotation is bool:
                wanted += [f"house.{key}", f"house.{key}Note"]
            else:
                values = field.annotation.__args__  # type: ignore[union-attr]
                wanted += [f"house.{key}Legend"]
                wanted += [f"house.{key}.{v}{end}" for v in values for end in ("", "Note")]
    for lang in LANGS:
        missing = [k for k in wanted if k not in table(lang)]
        assert not missing, (lang, missing)
    # the leaster is the rules pages' word (rule SS-10.3)
    assert table("pt")["house.no_pick.leaster"] == "Menor"
    assert table("fr")["house.no_pick.leaster"] == "Moindre"


#: The Shithead moves made with the mouse; the rest of the game goes through the client.
CLICKED = 12

LOG_JS = """async () => {
    const log = await import("/js/log.js");
    const { GAMES } = await import("/js/screens.js");
    const app = window.cardroom;
    return app.log.map((e) => log.text(e, GAMES, (s) => app.nameOf(s))).filter(Boolean);
}"""


def log_lines(page: Page) -> list[str]:
    """Every line of the room's log the page keeps (the panel shows the last few)."""
    lines: list[str] = page.evaluate(LOG_JS)
    return lines


def open_form(page: Page, base: str, game: str, name: str = "Ann") -> None:
    open_room_form(page, base)
    page.fill("#name", name)
    page.check(f'input[name="game"][value="{game}"]')
    page.click(f'details[data-house="{game}"] summary')


def create_from_form(
    page: Page, base: str, game: str, options: dict[str, Any], hints: bool = False
) -> str:
    """Create a room with ``options`` chosen in the form's controls (and hints, if asked);
    return its code."""
    open_form(page, base, game)
    if hints:
        page.check("#hints")
    if game == "shithead":
        page.select_option("#seats", "2")
    page.select_option("#level", "basic")
    for key, value in options.items():
        if value is True:
            page.check(f'input[name="{game}.{key}"]')
        else:
            page.check(f'input[name="{game}.{key}"][value="{value}"]')
    page.click('#create-form button[type="submit"]')
    page.wait_for_selector(".lobby .code")
    return page.inner_text(".lobby .code").strip()


def start_dealt(live: LiveServer, page: Page, code: str, seed: int) -> None:
    """Start the room ``code`` (the host's page) with its first hand dealt from ``seed``."""

    def set_seed() -> None:
        live.server.manager.rooms[code].core.seed = seed

    live.call(set_seed)
    page.click('[data-act="host"][data-op="start"]')


def pass_until_crack(page: Page) -> None:
    """Pass when asked to pick (a bot may pick first), then wait to be asked to crack."""
    page.wait_for_selector('[data-act="pass"], [data-act="crack"]', timeout=15_000)
    if page.is_visible('[data-act="pass"]'):
        page.click('[data-act="pass"]')
    page.wait_for_selector('[data-act="crack"]', timeout=15_000)


@pytest.mark.slow
def test_the_form_offers_each_games_house_rules_with_the_book_as_default(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context().new_page()
    errors = watch_errors(page)
    open_form(page, live.base, "sheepshead")
    # only the chosen game's rules show; the book's are checked (SS-10.1)
    assert page.is_hidden('details[data-house="shithead"]')
    assert page.is_checked("#opt-partner-called_ace") and page.is_checked("#opt-no_pick-leaster")
    assert not page.is_checked("#opt-crack")
    assert page.inner_text('[data-house-now="sheepshead"]') == "Book rules"
    page.check("#opt-partner-jack_of_diamonds")
    page.check("#opt-crack")
    # the summary says what is set, so a folded form still tells
    assert page.inner_text('[data-house-now="sheepshead"]') == "Jack of diamonds partner · Cracking"
    # the daily is always the book's: no options offered there, and a line says why
    assert "no house rules in the daily" in page.inner_text(".daily")
    # the form with the rules open, at a phone's and a desktop's width, checked by axe at both
    shoot(page, "house-form-sheepshead-en")
    page.check('input[name="game"][value="shithead"]')
    assert page.is_hidden('details[data-house="sheepshead"]')
    # another language: the same form, translated
    page.select_option("#lang", "fr")
    page.wait_for_selector('html[lang="fr"]')
    page.click('details[data-house="shithead"] summary')
    assert "Le 7 fait descendre" in page.inner_text('details[data-house="shithead"]')
    shoot(page, "house-form-shithead-fr")
    assert not errors, errors


@pytest.mark.slow
def test_the_room_made_from_the_form_has_the_options_and_the_lobby_shows_them(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context().new_page()
    errors = watch_errors(page)
    code = create_from_form(page, live.base, "sheepshead", {"no_pick": "forced"})
    info = page.evaluate("window.cardroom.info")
    assert info["options"] == {"partner": "called_ace", "no_pick": "forced", "crack": False}
    # rule SS-10.1: shown to everyone before the first hand, a spectator too
    assert page.inner_text(".lobby .house-rules").endswith("Dealer must pick")
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(SCREENSHOTS / "house-lobby-375.png"), full_page=True)
    watcher = new_context().new_page()
    watcher.goto(live.base + "/")
    watcher.fill("#code", code)
    watcher.click('[data-act="watch"]')
    watcher.wait_for_selector(".lobby .house-rules")
    assert "Dealer must pick" in watcher.inner_text(".lobby .house-rules")
    # a room of the book's rules says so
    other = new_context().new_page()
    create_from_form(other, live.base, "shithead", {})
    assert "Book rules" in other.inner_text(".lobby .house-rules")
    assert other.evaluate("window.cardroom.info.options") == {
        "seven_lower": False,
        "eight_skips": False,
        "three_invisible": False,
    }
    assert not errors, errors


@pytest.mark.slow
def test_a_sheepshead_hand_with_the_jack_the_doubler_and_a_crack_to_its_score(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(viewport=PHONE).new_page()
    errors = watch_errors(page)
    seed = crack_deal()
    code = create_from_form(page, live.base, "sheepshead", HOUSE_SS)
    assert page.evaluate("window.cardroom.info.options") == HOUSE_SS
    start_dealt(live, page, code, seed)  # the four empty seats get basic bots
    # the table says which rules it plays (rule SS-10.6)
    page.wait_for_selector(".felt .house-rules")
    chips = page.inner_text(".felt .house-rules")
    assert all(c in chips for c in ("Jack of diamonds partner", "Doubler", "Cracking")), chips
    # seat 0 passes; a bot picked and took the jack's partner or went alone; seat 0 may crack
    pass_until_crack(page)
    assert page.is_visible('[data-act="no_crack"]')
    assert not page.is_visible('[data-act="recrack"]')  # only the picker re-cracks
    assert "Crack?" in page.inner_text("#prompt")
    shoot(page, "house-crack-buttons")
    view = page.evaluate("window.cardroom.state.view")
    assert view["phase"] == "crack" and view["multiplier"] == 1
    picker = view["picker"]
    page.click('[data-act="crack"]')
    # the crack is public: the stakes double, at the cracker's seat and in the log
    page.wait_for_function("() => window.cardroom.state.view.cracked === 0")
    page.wait_for_selector('.info:has-text("Stakes ×")')
    assert page.inner_text(".me .badge.bad") == "cracked"
    page.wait_for_selector('#log li:has-text("cracked: the stakes double")')
    page.set_viewport_size(PHONE)  # shoot() left the page at its last, widest width
    page.screenshot(path=str(SCREENSHOTS / "house-cracked-table-375.png"), full_page=True)

    while (what := wait_turn(page, timeout=20_000)) != "over":
        assert what == "play", what
        card = page.locator('.me .hand button.card.playable[data-act="card"]').first
        version = page.evaluate("window.cardroom.state.version")
        try:
            card.dblclick(timeout=2000)  # a double click plays at once
            page.wait_for_function("(n) => window.cardroom.state.version > n", arg=version)
        except Exception:  # the view moved on under the click: look again
            continue
    result = page.evaluate("window.cardroom.state.view.result")
    recracked = page.evaluate("window.cardroom.state.view.recracked")
    assert result["picker"] == picker and sum(result["units"]) == 0
    # rule SS-10.5: a crack doubles, a re-crack doubles again
    assert result["multiplier"] == (4 if recracked is not None else 2)
    text = page.inner_text(".result")
    assert f"×{result['multiplier']} the stakes" in text
    assert f"{result['units'][0]:+d}" in text
    log = "\n".join(log_lines(page))
    assert "Bot 2 cracked" not in log and "Ann cracked: the stakes double" in log
    if "plays with the jack of diamonds as partner" in log and result["partner"] is not None:
        assert "played the jack of diamonds: the partner" in log
    assert not errors, errors


@pytest.mark.slow
def test_a_shithead_game_with_all_three_house_rules_to_the_end(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context().new_page()
    errors = watch_errors(page)
    create_from_form(page, live.base, "shithead", HOUSE_SH)
    assert page.evaluate("window.cardroom.info.options") == HOUSE_SH
    page.click('[data-act="host"][data-op="start"]')
    page.wait_for_selector(".felt .house-rules")
    chips = page.inner_text(".felt .house-rules")
    assert all(c in chips for c in ("7 plays lower", "8 skips", "3 is glass")), chips
    shoot(page, "house-shithead-table")
    deadline = time.monotonic() + 40
    moves = 0
    shot = False
    while (what := can_act(page)) != "over":
        assert time.monotonic() < deadline, "the game did not end in time"
        if what is None:
            page.wait_for_timeout(5)
            continue
        # under a glass 3 or a 7 the pile says what to beat (SH-7.4, SH-7.2), as the view does
        beat = page.locator(".pile .to-beat")
        if beat.count() and not shot:
            view = page.evaluate("window.cardroom.state.view")
            lower = view["to_beat"][0] == "7"
            assert lower or view["to_beat"] != view["pile"][-1], view
            assert ("7 or lower" in beat.inner_text()) == lower
            page.screenshot(path=str(SCREENSHOTS / "house-shithead-to-beat.png"))
            shot = True
        if moves < CLICKED:
            shithead_click_turn(page)
        else:  # the rest of the game through the client, faster (the clicks were checked)
            act_first(page, "play")
        moves += 1
    print(f"{moves} moves by the person")
    assert moves > 5
    outcome = page.evaluate("window.cardroom.state.view.outcome")
    assert outcome["loser"] in (0, 1)
    page.wait_for_selector(".result h2")
    # the skips the server announced are lines in the log (rule SH-7.3)
    skipped = page.evaluate("window.cardroom.log.filter(x => x.e && x.e.kind === 'skipped').length")
    assert "\n".join(log_lines(page)).count("is skipped") == skipped
    assert not errors, errors


@pytest.mark.slow
def test_playing_again_with_the_same_table_keeps_its_house_rules(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    # a match of ten hands with house rules played to its end, then one tap: the same table
    options = {"partner": "called_ace", "no_pick": "doubler", "crack": True}
    room, token = finished(live, "sheepshead", 5, games=10, options=options)
    page = seated(new_context(viewport=PHONE), room, token).new_page()
    errors = watch_errors(page)
    page.goto(f"{live.base}/r/{room}")
    page.click('[data-act="again"]')
    page.wait_for_function(
        "(old) => window.cardroom.room && window.cardroom.room !== old && window.cardroom.state",
        arg=room,
    )
    # rule SS-10.1: the new room plays the same house rules, shown on its table
    assert page.evaluate("window.cardroom.info.options") == options
    assert page.evaluate("window.cardroom.state.view.options") == options
    page.wait_for_selector(".felt .house-rules")
    assert "Doubler" in page.inner_text(".felt .house-rules")
    assert not errors, errors


@pytest.mark.slow
def test_a_doubler_hand_all_pass_is_thrown_in_and_the_next_one_pays_double(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(viewport=PHONE).new_page()
    errors = watch_errors(page)
    code = create_from_form(page, live.base, "sheepshead", {"no_pick": "doubler"})
    seed = thrown_in_deal({"no_pick": "doubler"})
    start_dealt(live, page, code, seed)
    page.click('[data-act="pass"]')
    # rule SS-10.3: all five passed, the hand is thrown in unplayed, nobody pays
    page.wait_for_selector('.result h2:has-text("thrown in")')
    assert "the next hand's stakes double" in page.inner_text(".result")
    assert page.evaluate("window.cardroom.state.view.result.units") == [0] * 5
    assert any("thrown in and the next one pays double" in x for x in log_lines(page))
    page.screenshot(path=str(SCREENSHOTS / "house-thrown-in-375.png"), full_page=True)
    page.click('[data-act="host"][data-op="next_game"]')
    page.wait_for_function("() => window.cardroom.state.view.phase !== 'over'")
    assert page.evaluate("window.cardroom.state.view.multiplier") == 2
    assert "Stakes ×2" in page.inner_text(".info")
    assert not errors, errors


@pytest.mark.slow
def test_a_hint_at_the_crack_marks_its_button(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(viewport=PHONE).new_page()
    errors = watch_errors(page)
    code = create_from_form(page, live.base, "sheepshead", HOUSE_SS, hints=True)
    seed = crack_deal()
    start_dealt(live, page, code, seed)
    pass_until_crack(page)
    page.click('[data-act="hint"]')
    page.wait_for_selector(".hint-reason", timeout=20_000)
    # rule SS-10.4: the suggestion is one of the two answers, and its button is marked
    kind = page.evaluate("window.cardroom.hint.action.kind")
    assert kind in ("crack", "no_crack"), kind
    assert page.locator(f'.actions [data-act="{kind}"].suggested').count() == 1
    assert page.locator(".actions .suggested").count() == 1
    assert not errors, errors


@pytest.mark.slow
def test_the_replay_of_a_house_rules_hand_shows_its_rules_and_stakes(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    room, token = finished(live, "sheepshead", 5, options=HOUSE_SS)
    page = seated(new_context(viewport=PHONE), room, token).new_page()
    errors = watch_errors(page)
    page.goto(f"{live.base}/r/{room}/history")
    page.wait_for_selector("#replay-board .house-rules")
    # rule SS-10.6: the rules the hand was played by, on every step
    assert "Jack of diamonds partner" in page.inner_text("#replay-board .house-rules")
    page.click("[data-act='rp-last']")
    page.wait_for_selector("#replay-board .result")
    view = page.evaluate("window.cardroom.replay.games[0].steps.at(-1).view")
    if view["multiplier"] > 1:  # a crack or a re-crack raised the stakes: said in the result
        assert f"×{view['multiplier']} the stakes" in page.inner_text("#replay-board .result")
    assert not errors, errors
