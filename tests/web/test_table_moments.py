"""The moments at the table, in both games at 375 × 667 and 1280 × 800 where they apply: a card
tapped once is raised and not played (tapped again it is), the last Sheepshead trick opened
after the next one started, the "your turn" sound unless muted (the mute remembered), "your
turn" in the title of a tab in the background, and the log across a reload and a language."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page, ViewportSize

from tests.support.web import PHONE, act_first, start_scripted, watch_console
from tests.web.conftest import CORNER, ROOT, LiveServer, create_room, wait_turn, watch_errors

pytestmark = pytest.mark.slow

# The page's sounds, heard through the audio calls: every oscillator started, by frequency;
# and a tab that can be sent to the background (document.hidden) by the test.
AUDIO_SPY = """
(() => {
  window.__tones = [];
  const Real = window.AudioContext;
  window.AudioContext = class extends Real {
    createOscillator() {
      const osc = super.createOscillator();
      const start = osc.start.bind(osc);
      osc.start = (...a) => { window.__tones.push(osc.frequency.value); return start(...a); };
      return osc;
    }
  };
  window.__hidden = false;
  Object.defineProperty(Document.prototype, "hidden", {
    configurable: true, get: () => window.__hidden });
  Object.defineProperty(Document.prototype, "visibilityState", {
    configurable: true, get: () => (window.__hidden ? "hidden" : "visible") });
})();
"""
# the tab sent to the background (true) or brought back (false)
BACKGROUND_JS = """(hidden) => {
  window.__hidden = hidden;
  document.dispatchEvent(new Event("visibilitychange"));
}"""
# the first card of the hand the page offers to play
HAND_CARD_JS = """() => {
  const hand = window.cardroom.state.view.hand;
  const offered = [...document.querySelectorAll('.me button.card.playable[data-act="card"]')];
  return offered.map((b) => b.dataset.card).find((c) => hand.includes(c));
}"""
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
BUBBLE_MS = 5000  # a chat bubble stays this long (js/table.js)
TRICK_HOLD_MS = 1600  # a won trick stays in the middle this long (js/table.js)
TURN_TONE = 880  # tones of the cues (js/alerts.js): your turn, a card, a trick, a burn, the end
PLAY_TONE, TRICK_TONE, BURN_TONE, END_TONE = 300, 520, 160, 784
# "mine" while it is my move; once the hand is over, what the page shows at that moment
END_OR_MINE_JS = """() => {
  const app = window.cardroom, v = app && app.state && app.state.view;
  if (!v) return false;
  if (v.phase === "over") return {
    result: !!document.querySelector(".result"),
    trick: document.querySelectorAll(".trick.last .plays .card").length };
  return !app.acting && v.to_act.includes(app.seat) && v.legal.length > 0 ? "mine" : false;
}"""  # the last tone of the "your turn" cue (js/alerts.js)


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["375", "1280"])
@pytest.mark.parametrize("game", ["shithead", "sheepshead"])
def test_a_card_tapped_once_is_raised_and_not_played(
    game: str, size: ViewportSize, live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(viewport=size).new_page()
    errors = watch_errors(page)
    console = watch_console(page)
    create_room(page, live.base, "Ann", game, seats=2 if game == "shithead" else None)
    page.click('[data-act="host"][data-op="start"]')
    # past the swap, or the pick, the bury and the call: cards to play
    # and a card of the hand among them (not only a picker's unknown card, set aside out of the
    # hand: rule SS-4.3)
    while (
        wait_turn(page, timeout=20_000) != "play"
        or view(page)["phase"] != "play"
        or not (card := page.evaluate(HAND_CARD_JS))
    ):
        assert view(page)["phase"] != "over"
        act_first(page, prefer="ready")
    version = page.evaluate("window.cardroom.state.version")
    page.click(f'.me button.card[data-card="{card}"]', position=CORNER)
    raised = page.locator(f'.me button.card.selected[data-card="{card}"]')
    raised.wait_for()
    assert raised.get_attribute("aria-pressed") == "true"
    assert page.is_enabled('[data-act="play"]')
    # nothing was sent: the same state, the card still mine
    page.wait_for_timeout(150)
    assert page.evaluate("window.cardroom.state.version") == version
    assert card in page.evaluate("window.cardroom.state.view.hand")
    raised.click(position=CORNER)  # tapped again: played
    page.wait_for_function("(n) => window.cardroom.state.version > n", arg=version)
    assert card not in page.evaluate("window.cardroom.state.view.hand")
    assert not errors and not console, (errors, console)


def test_the_last_sheepshead_trick_can_be_opened_after_the_next_one_started(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    for viewport in (PHONE, {"width": 1280, "height": 800}):
        page = new_context(viewport=viewport).new_page()
        errors = watch_errors(page)
        console = watch_console(page)
        create_room(page, live.base, "Sam", "sheepshead")
        page.click('[data-act="host"][data-op="start"]')
        # play on (the first legal move) until a trick is done and the next one led to us
        while True:
            assert wait_turn(page, timeout=20_000) != "over", "no second trick led to us"
            v = page.evaluate("window.cardroom.state.view")
            if v["phase"] == "play" and v["tricks"] and v["trick"]["cards"]:
                break
            act_first(page)
        last = v["tricks"][-1]
        now = [p["card"] for p in v["trick"]["cards"]]
        shown = (
            "() => [...document.querySelectorAll('.trick .plays .card')].map(c => c.dataset.card)"
        )
        # the held trick gives way to the one being played
        same = f"(want) => JSON.stringify(({shown})()) === JSON.stringify(want)"
        page.wait_for_function(same, arg=now)
        page.click('[data-act="last-trick"]')
        page.wait_for_selector('.trick.opened [data-act="last-trick"][aria-pressed="true"]')
        assert page.evaluate(shown) == [p["card"] for p in last["cards"]]
        winner = page.evaluate(f"window.cardroom.nameOf({last['winner']})")
        assert winner in page.inner_text(".trick .lbl")
        # its winner's card is marked, and it is still my turn (the view blocks nothing)
        assert page.get_attribute(".trick .play.won", "data-seat") == str(last["winner"])
        assert page.locator('.me button.card.playable[data-act="card"]').count() > 0
        page.click('[data-act="last-trick"]')
        page.wait_for_selector('.trick:not(.opened) [data-act="last-trick"][aria-pressed="false"]')
        assert page.evaluate(shown) == now
        assert not errors and not console, (errors, console)
        page.close()


def test_your_turn_sounds_unless_muted_and_shows_in_a_background_tab_title(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    ctx = new_context(viewport=PHONE)
    ctx.add_init_script(AUDIO_SPY)
    page = ctx.new_page()
    errors = watch_errors(page)
    console = watch_console(page)
    create_room(page, live.base, "Ann", "shithead", seats=2)
    page.click('[data-act="host"][data-op="start"]')
    assert wait_turn(page) == "ready"
    # the swap phase: my turn, and its sound
    page.wait_for_function(f"() => window.__tones.includes({TURN_TONE})")
    assert "Your turn" not in page.title()  # the tab is in front
    page.evaluate(BACKGROUND_JS, True)
    page.wait_for_function("() => document.title.startsWith('● Your turn')")
    page.evaluate(BACKGROUND_JS, False)
    page.wait_for_function("() => !document.title.includes('Your turn')")

    # muted: remembered across a reload, and no sound at all on the next turn
    page.click('[data-act="mute"]')
    page.wait_for_selector('[data-act="mute"][aria-pressed="true"]')
    page.reload()
    page.wait_for_selector('[data-act="mute"][aria-pressed="true"]')
    assert wait_turn(page) == "ready"
    page.click('[data-act="ready"]')  # a tap: the page could make sound from now on
    while (what := wait_turn(page)) != "play":
        assert what != "over"
        act_first(page)
    assert page.evaluate("window.__tones") == []
    # and back on: the next turn sounds again
    page.click('[data-act="mute"]')
    page.wait_for_selector('[data-act="mute"][aria-pressed="false"]')
    act_first(page)  # my card, then the bot's: each one heard
    page.wait_for_function("() => window.__tones.length > 0")
    assert not errors and not console, (errors, console)


def test_your_turn_sounds_in_sheepshead_on_a_desktop_and_not_once_muted(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    ctx = new_context(viewport=DESKTOP)
    ctx.add_init_script(AUDIO_SPY)
    page = ctx.new_page()
    errors = watch_errors(page)
    create_room(page, live.base, "Ann", "sheepshead")
    page.click('[data-act="host"][data-op="start"]')
    wait_turn(page, timeout=20_000)  # the pick, or a pass: my turn, and its sound
    page.wait_for_function(f"() => window.__tones.includes({TURN_TONE})")
    page.click('[data-act="mute"]')
    page.wait_for_selector('[data-act="mute"][aria-pressed="true"]')
    heard = page.evaluate("window.__tones.length")
    for _ in range(3):  # my next turns, and the bots' cards between them: silent
        act_first(page)
        if wait_turn(page, timeout=20_000) == "over":
            break
    assert page.evaluate("window.__tones.length") == heard
    # sound on again: a card played, a trick won and the end of the hand each have their cue
    page.click('[data-act="mute"]')
    page.wait_for_selector('[data-act="mute"][aria-pressed="false"]')
    while wait_turn(page, timeout=20_000) != "over":
        act_first(page)
    page.wait_for_function(f"() => window.__tones.includes({END_TONE})")
    tones = page.evaluate("window.__tones")
    assert PLAY_TONE in tones and TRICK_TONE in tones, tones
    assert not errors, errors


def test_cards_travel_from_their_seat_unless_the_system_asks_for_reduced_motion(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    moves = {}
    for motion in ("no-preference", "reduce"):
        page = new_context(viewport=PHONE, reduced_motion=motion).new_page()
        errors = watch_errors(page)
        create_room(page, live.base, "Sam", "sheepshead")
        page.click('[data-act="host"][data-op="start"]')
        # play on until a trick was won and the next one led to us
        while True:
            assert wait_turn(page, timeout=20_000) != "over"
            v = page.evaluate("window.cardroom.state.view")
            if v["phase"] == "play" and v["tricks"] and v["trick"]["cards"]:
                break
            act_first(page)
        # the trick won is held a moment (swept to its winner just before), then gives way
        page.wait_for_selector(".trick:not(.last) .plays .card", timeout=TRICK_HOLD_MS + 2000)
        moves[motion] = page.evaluate("import('/js/motion.js').then(m => ({...m.stats}))")
        # the hand stays playable through every move
        assert page.locator('.me button.card.playable[data-act="card"]').count() > 0
        assert not errors, errors
        page.close()
    assert moves["no-preference"]["travels"] >= 4 and moves["no-preference"]["sweeps"] >= 4
    # the bots' cards, played one right after another, travel quicker
    assert 0 < moves["no-preference"]["quick"] <= moves["no-preference"]["travels"]
    assert moves["reduce"] == {"travels": 0, "sweeps": 0, "quick": 0}


def test_chat_shows_at_the_senders_seat_and_is_counted_while_the_chat_box_is_away(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    ann = new_context(viewport=PHONE).new_page()
    bob = new_context().new_page()
    errors = [watch_errors(ann), watch_errors(bob)]
    code = create_room(ann, live.base, "Ann", "shithead", seats=2)
    bob.goto(f"{live.base}/r/{code}")
    bob.fill("#name", "Bob")
    bob.click('#join-form button[type="submit"]')
    ann.wait_for_selector(".seat:nth-child(2) >> text=Bob")
    ann.click('[data-act="host"][data-op="start"]')
    assert wait_turn(ann) == "ready"
    assert ann.locator(".chat-pill").count() == 0
    bob.fill("#chat-text", "nice pile")
    bob.press("#chat-text", "Enter")
    # on Ann's phone the chat box is below the table: the words come up at Bob's seat
    ann.wait_for_selector('.felt .seatbox[data-seat="1"] .bubble:has-text("nice pile")')
    ann.wait_for_selector('.top .chat-pill:has-text("1")')
    ann.click(".top .chat-pill")
    ann.wait_for_function("() => document.activeElement.id === 'chat-text'")
    ann.wait_for_selector(".top .chat-pill", state="detached")
    # the bubble goes by itself; the line stays in the chat box
    ann.wait_for_selector(".felt .bubble", state="detached", timeout=BUBBLE_MS + 3000)
    assert "nice pile" in ann.inner_text("#chat-lines")
    assert all(not e for e in errors), errors


def view(page: Page) -> Any:
    return page.evaluate("window.cardroom.state.view")


# my first move's log line, in English and its table's key (what a language switch rewrites)
MY_LINE = {
    "shithead": ("Ann is ready", "ev.ready"),
    "sheepshead": ("Sam picked up the blind", "ev.picked"),
}


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["375", "1280"])
@pytest.mark.parametrize("game", ["shithead", "sheepshead"])
def test_the_log_survives_a_reload_and_follows_a_language_switch(
    game: str, size: ViewportSize, live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(viewport=size).new_page()
    errors = watch_errors(page)
    if game == "shithead":
        create_room(page, live.base, "Ann", game, seats=2)
        page.click('[data-act="host"][data-op="start"]')
    else:  # a deal where Sam is asked first: the game waits on his bury once he picks
        start_scripted(page, live)
    wait_turn(page, timeout=20_000)
    act_first(page, prefer="ready" if game == "shithead" else "pick")
    english, key = MY_LINE[game]
    name = english.split()[0]
    page.wait_for_selector(f"#log li:has-text('{english}')")
    before = page.inner_text("#log")
    page.reload()
    page.wait_for_selector(".felt")
    page.wait_for_selector(f"#log li:has-text('{english}')")
    assert page.inner_text("#log") == before  # the same lines, none twice
    # another language: the same lines, written in it
    page.select_option("#lang", "fr")
    french = json.loads((ROOT / "clients/web/i18n/fr.json").read_text())
    mine_fr = french[key].replace("{name}", name)
    page.wait_for_function(
        "(s) => document.getElementById('log').innerText.includes(s)", arg=mine_fr
    )
    assert english not in page.inner_text("#log")
    assert not errors, errors


def test_the_last_trick_of_a_hand_stays_in_view_before_the_result(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(viewport=PHONE).new_page()
    errors = watch_errors(page)
    create_room(page, live.base, "Sam", "sheepshead")
    page.click('[data-act="host"][data-op="start"]')
    # my moves until the hand is over; at the moment it is (the page draws each state as it
    # comes): its last trick in the middle, the result not yet over it
    while True:
        at_end = page.wait_for_function(END_OR_MINE_JS, timeout=20_000).json_value()
        if at_end != "mine":
            break
        act_first(page)
    assert at_end == {"result": False, "trick": 5}
    page.wait_for_selector(".result", timeout=TRICK_HOLD_MS + 3000)
    assert not errors, errors


# every class the pile has had, and every kind of event a state brought, since the page loaded
PILE_SPY = """
(() => {
  window.__pile = new Set();
  new MutationObserver(() => {
    const pile = document.querySelector('.felt .pile');
    if (pile) pile.classList.forEach(c => window.__pile.add(c));
  }).observe(document, {subtree: true, childList: true, attributes: true});
})();
"""


def test_burns_and_pick_ups_show_on_the_pile_as_what_they_are(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    ctx = new_context(viewport=PHONE, reduced_motion="no-preference")
    ctx.add_init_script(PILE_SPY)
    ctx.add_init_script(AUDIO_SPY)
    page = ctx.new_page()
    errors = watch_errors(page)
    create_room(page, live.base, "Ann", "shithead", seats=2)
    page.click('[data-act="host"][data-op="start"]')
    kinds: set[str] = set()
    for _ in range(3):  # games until a burn and a pick-up happened (a game almost always has both)
        while wait_turn(page, timeout=20_000) != "over":
            act_first(page, prefer="pickup" if "picked_up" not in kinds else None)
            kinds |= set(page.evaluate("window.cardroom.log.map(x => x.e && x.e.kind)"))
        seen = set(page.evaluate("[...window.__pile]"))
        if {"burned", "picked_up"} <= kinds:
            break
        page.click('[data-act="host"][data-op="next_game"]')
    # rule SH-4.6 (a pick-up takes the pile), SH-4.3 and SH-4.4 (a burn): each drawn as itself
    assert {"burned", "picked_up"} <= kinds, kinds
    assert {"burn", "taken"} <= seen, seen
    assert BURN_TONE in page.evaluate("window.__tones")  # and a burn sounds as one
    assert not errors, errors
