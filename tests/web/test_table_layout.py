"""The table on a 375 x 667 phone and a 1280 x 800 desktop, in both games, through every phase:
the felt, the hand and the buttons fit in the viewport without scrolling, the seats sit in
clockwise play order from the viewer, and the cards grow with the space. Screenshots of every
phase at both sizes and in all four languages go to build/screenshots/table/ (look at them)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page, ViewportSize

from tests.support.web import PHONE, act_first, create_hints_room, start_scripted
from tests.web.conftest import SCREENSHOTS, LiveServer, create_room, wait_turn, watch_errors

pytestmark = pytest.mark.slow

LANGS = ("en", "ru", "pt", "fr")
LANG_TAGS = {"en": "en", "ru": "ru", "pt": "pt-BR", "fr": "fr"}  # js/i18n.js LANG_TAGS
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
BIG: ViewportSize = {"width": 1920, "height": 1080}
SHOTS = SCREENSHOTS / "table" / os.environ.get("CARDROOM_SHOTS", "after")

# What must be inside the viewport at scroll 0: the felt's seats and middle, the hand, the
# buttons, the result and its "next" button; and nothing wider than the screen.
FIT_JS = """() => {
  const W = innerWidth, H = innerHeight;
  const out = [];
  let bottom = 0;
  if (document.documentElement.scrollWidth > W) {
    const wide = [...document.querySelectorAll("body *")]
      .filter(e => e.getBoundingClientRect().right > W + 0.5)
      .map(e => e.tagName + "." + e.className).slice(0, 3);
    const by = document.documentElement.scrollWidth - W;
    out.push("page wider by " + by + ": " + wide.join(", "));
  }
  const sel = ".felt .seatbox, .felt .center, .felt .me .hand .card, " +
    ".felt .me .tablecards .card, .felt .actions button, .felt .result, .felt .result .btn, " +
    ".felt .prompt";
  for (const el of document.querySelectorAll(sel)) {
    const r = el.getBoundingClientRect();
    if (!r.width && !r.height) continue;
    const name = el.className.split(" ")[0] + (el.dataset.card ? ":" + el.dataset.card : "") +
      (el.dataset.act ? "[" + el.dataset.act + "]" : "");
    bottom = Math.max(bottom, r.bottom);
    if (r.bottom > H + 0.5) out.push(name + " bottom " + Math.round(r.bottom) + " > " + H);
    if (r.right > W + 0.5 || r.left < -0.5) {
      out.push(name + " outside x " + Math.round(r.left) + ".." + Math.round(r.right));
    }
  }
  return [out, Math.round(bottom)];
}"""

# the seats' marks whose words do not fit their badge (drawn cut short with an ellipsis)
CLIPPED_JS = """() => [...document.querySelectorAll('.felt .seatbox .badge')]
  .filter(b => b.getBoundingClientRect().width > 0 && b.scrollWidth > b.clientWidth + 1)
  .map(b => b.textContent.trim())"""

# two frames drawn: the layout (and fitHands after a resize) has settled
FRAMES_JS = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"

# The opponents' seat numbers left to right as drawn (by the middle of each box)
SEATS_JS = """() => [...document.querySelectorAll('.felt .seatbox')]
  .map(e => [e.getBoundingClientRect(), Number(e.dataset.seat)])
  .sort((a, b) => (a[0].left + a[0].width / 2) - (b[0].left + b[0].width / 2))
  .map(p => p[1])"""


# Which seats carry each mark (the dealer's chip, "leads", the partner's badge, the player to
# act) and, for each card of the trick on the felt, its seat and whether it lies under that
# seat's box (within its left and right edges): the viewer's own place counts as its seat.
MARKS_JS = """([me, partner]) => {
  const places = [...document.querySelectorAll('.felt .seatbox[data-seat]')]
    .map(b => [Number(b.dataset.seat), b]);
  const mine = document.querySelector('.felt .me');
  if (mine) places.push([me, mine]);
  const seats = (keep) => places.filter(([, b]) => keep(b)).map(([s]) => s).sort();
  const badge = (b, sel, words) => [...b.querySelectorAll(sel)]
    .some(e => words === null || e.textContent.trim() === words);
  const box = new Map(places);
  const plays = [...document.querySelectorAll('.felt .trick .play[data-seat]')].map(p => {
    const seat = Number(p.dataset.seat), r = p.getBoundingClientRect();
    const b = box.get(seat).getBoundingClientRect(), x = (r.left + r.right) / 2;
    return [seat, x >= b.left - 1 && x <= b.right + 1];
  });
  return {
    dealer: seats(b => badge(b, ':scope > header .badge.dealer', null)),
    lead: seats(b => badge(b, ':scope > header .badge.lead', null)),
    partner: seats(b => badge(b, ':scope > header .badge.gold', partner)),
    turn: seats(b => b.classList.contains('turn')),
    plays,
  };
}"""


# Each opponent's strip of cards seen going into their hand: its text, and its height against
# one line of its own text (a strip that grew to a grid is taller)
KNOWN_JS = """() => Object.fromEntries([...document.querySelectorAll('.felt .seatbox[data-seat]')]
  .map(b => [b.dataset.seat, b.querySelector('.known')])
  .filter(([, k]) => k)
  .map(([s, k]) => [s, {text: [...k.querySelectorAll('[aria-hidden="true"]')]
    .map(e => e.textContent).join(' '),
    lines: k.getBoundingClientRect().height / (parseFloat(getComputedStyle(k).lineHeight) || 16),
  }]))"""


class Phases:
    """Walks a page through phases: at each, every language of ``langs`` at both sizes is
    measured and photographed (the game waits on the viewer meanwhile)."""

    def __init__(self, page: Page, game: str, langs: tuple[str, ...] = ("en",)) -> None:
        self.page = page
        self.game = game
        self.langs = langs
        self.misfits: dict[str, list[str]] = {}
        self.card_widths: dict[str, tuple[float, float]] = {}
        self.bottoms: dict[str, int] = {}
        self.known_seen = 0  # opponents' known-cards strips checked

    def speak(self, lang: str) -> None:
        """Switch the page to ``lang`` in its header, as a player would."""
        self.page.select_option("#lang", lang)
        self.page.wait_for_function(
            f"() => document.documentElement.lang === {json.dumps(LANG_TAGS[lang])}"
        )

    def at(self, phase: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        widths = []
        for lang in self.langs:
            if len(self.langs) > 1:
                self.speak(lang)
            game = self.game if lang == "en" else f"{self.game}-{lang}"
            for size in (DESKTOP, PHONE):  # the phone last: the game goes on at that size
                self.page.set_viewport_size(size)
                self.page.evaluate(FRAMES_JS)
                self.page.evaluate("() => window.scrollTo(0, 0)")
                name = f"{game}-{phase}-{size['width']}"
                self.page.screenshot(path=str(SHOTS / f"{name}.png"))
                bad, bottom = self.page.evaluate(FIT_JS)
                self.bottoms[name] = bottom
                bad += [f"mark cut short: {b}" for b in self.page.evaluate(CLIPPED_JS)]
                if bad:
                    self.misfits[name] = bad
                widths.append(
                    self.page.evaluate(
                        "() => { const c = document.querySelector('.felt .me .hand .card');"
                        " return c ? c.getBoundingClientRect().width : 0; }"
                    )
                )
        if len(self.langs) > 1:
            self.speak(self.langs[0])
        self.card_widths[phase] = (widths[1], widths[0])

    def order(self, phase: str, want: list[int]) -> None:
        """The seats left to right as drawn, at both sizes."""
        for size in (DESKTOP, PHONE):  # the phone last: the game goes on at that size
            self.page.set_viewport_size(size)
            self.page.evaluate(FRAMES_JS)
            got = self.page.evaluate(SEATS_JS)
            if got != want:
                where = f"{self.game}-{phase}-{size['width']}-order"
                self.misfits[where] = [f"seats left to right {got}, want {want}"]

    def known(self, phase: str) -> None:
        """Shithead: each opponent's known cards as a labelled line, at most four and "+n"."""
        v = view(self.page)
        got = self.page.evaluate(KNOWN_JS)
        label = text(self.page, "sh.knownShort")
        for seat, s in enumerate(v["seats"]):
            known = s["known_in_hand"]
            if seat == v["seat"] or not known:
                continue
            self.known_seen += 1
            shown = got.get(str(seat))
            more = f" +{len(known) - 4}" if len(known) > 4 else ""
            ok = (
                shown is not None
                and shown["text"].startswith(label)
                and shown["text"].endswith(more)
                and shown["text"].count("♠")
                + shown["text"].count("♥")
                + shown["text"].count("♦")
                + shown["text"].count("♣")
                == min(4, len(known))
                and shown["lines"] < 1.6
            )
            if not ok:
                self.misfits[f"{self.game}-{phase}-known-{seat}"] = [f"{shown} for {known}"]

    def marks(self, phase: str) -> None:
        """Each seat's marks as the view has them, and each trick card under its seat's box
        (once a trick held in view has given way to the one being played)."""
        v = view(self.page)
        me = self.page.evaluate("window.cardroom.seat")
        cards = [p["seat"] for p in v["trick"]["cards"]] if self.game == "sheepshead" else []
        if cards:
            self.page.wait_for_function(
                "(n) => document.querySelectorAll('.felt .trick .play[data-seat]').length === n"
                " && !document.querySelector('.felt .trick.last')",
                arg=len(cards),
                timeout=5000,
            )
        partner = text(self.page, "ss.partner")
        got = self.page.evaluate(MARKS_JS, [me, partner])
        mate = v.get("partner")
        if mate is None and v.get("you_are_partner"):
            mate = me
        want = {
            "dealer": [v["dealer"]],
            "lead": [v["trick"]["leader"]] if cards else [],
            "partner": [mate] if self.game == "sheepshead" and mate is not None else [],
            "turn": sorted(v["to_act"]),
            "plays": [[seat, True] for seat in cards],
        }
        if got != want:
            self.misfits[f"{self.game}-{phase}-marks"] = [f"{got} != {want}"]

    def expect(self, ok: bool, what: str) -> None:
        """A check recorded, not raised: the walk goes on (for the screenshots), the test fails
        at the end."""
        if not ok:
            self.misfits[f"{self.game}-{what}"] = ["not so"]

    def check(self) -> None:
        # the figures for the notes: how far down the table reaches, how wide a hand card is
        # (in the first language)
        figures = {
            "bottom": self.bottoms,
            "hand_card_width": self.card_widths,
            "known_strips_checked": self.known_seen,
        }
        (SHOTS / f"{self.game}-figures.json").write_text(json.dumps(figures, indent=1))
        assert not self.misfits, self.misfits


def my_turn(page: Page, timeout: float = 20_000) -> str:
    return wait_turn(page, timeout=timeout)


def view(page: Page) -> Any:
    return page.evaluate("window.cardroom.state.view")


def text(page: Page, key: str) -> str:
    return str(page.evaluate(f"import('/js/i18n.js').then(m => m.t('{key}'))"))


def test_sheepshead_fits_a_phone_in_every_phase_in_every_language_and_seats_go_clockwise(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(viewport=PHONE).new_page()
    errors = watch_errors(page)
    bury = start_scripted(page, live)
    phases = Phases(page, "sheepshead", LANGS)
    page.wait_for_selector('[data-act="pick"]')
    # rule SS-3.1 / SS-5.1: play goes clockwise, seat 1 at seat 0's left: drawn left to right
    # from the viewer's left, the seats after me in play order
    phases.order("pick", [1, 2, 3, 4])
    phases.at("pick")
    page.click('[data-act="pick"]')
    page.wait_for_selector('[data-act="bury"]')
    phases.at("bury")
    # the two cards of the blind are marked in the hand and named; nothing is buried yet
    blind = view(page)["blind"]
    marked = page.eval_on_selector_all(
        ".me .hand .from-blind", "els => els.map(e => e.dataset.card)"
    )
    phases.expect(sorted(marked) == sorted(blind) and len(blind) == 2, "blind marked")
    info = page.inner_text(".info")
    phases.expect(text(page, "ss.blindWas") in info, "blind named")
    phases.expect(text(page, "ss.buried") not in info, "no dangling Buried:")
    for card in bury:
        page.click(f'.me .hand button.card[data-card="{card}"]')
    phases.at("bury-chosen")
    page.click('[data-act="bury"]:not([disabled])')
    page.wait_for_selector('[data-act="call"]')
    phases.at("call")
    page.click('[data-act="call"]')
    shot_trick = shot_later = False
    while True:
        what = my_turn(page)
        if what == "over":
            break
        v = view(page)
        if v["phase"] == "play" and v["trick"]["cards"] and not shot_trick:
            phases.marks("trick")  # the dealer, the leader, the partner once known, my turn
            phases.at("trick")
            shot_trick = True
        elif v["phase"] == "play" and len(v["tricks"]) >= 3 and not shot_later:
            phases.marks("later-trick")
            # a seat's count of tricks reads "tricks: 1", never "1 tricks"
            felt = page.inner_text(".felt")
            one = text(page, "ss.tricksN").replace("{n}", "1")
            ones = sum(1 for n in v["tricks_won"] if n == 1)
            phases.expect("1 tricks" not in felt and felt.count(one) >= ones, "tricks: n")
            phases.at("later-trick")
            shot_later = True
        act_first(page)
    page.wait_for_selector('.result [data-op="next_game"]')
    phases.at("result")
    phases.check()
    assert not errors, errors


def test_shithead_fits_a_phone_in_every_phase_in_every_language_and_seats_go_clockwise(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(viewport=PHONE).new_page()
    errors = watch_errors(page)
    create_room(page, live.base, "Ann", "shithead", seats=5)
    phases = Phases(page, "shithead", LANGS)
    page.click('[data-act="host"][data-op="add_bot"][data-seat="1"]')
    page.wait_for_selector(".seat:nth-child(2) >> text=Bot 2")
    phases.at("lobby")  # the lobby too, in every language
    page.click('[data-act="host"][data-op="start"]')
    assert wait_turn(page) == "ready"
    # rule SH-4.1: play goes clockwise; the seats after mine, from my left
    phases.order("swap", [1, 2, 3, 4])
    phases.at("swap")
    # on a bigger screen the cards grow with it
    hand_card = "() => document.querySelector('.me .hand .card').getBoundingClientRect().width"
    widths = []
    for size in (PHONE, DESKTOP, BIG):
        page.set_viewport_size(size)
        widths.append(page.evaluate(hand_card))
    phases.expect(widths[0] < widths[1] < widths[2], f"cards grow with the screen {widths}")
    page.set_viewport_size(PHONE)
    page.click(".me .hand button.card.playable")
    phases.at("swap-chosen")
    page.click('[data-act="ready"]')
    shot_play = shot_big = False
    for _ in range(400):
        what = my_turn(page, timeout=20_000)
        if what == "over":
            break
        v = view(page)
        if v["phase"] == "play" and v["pile"] and not shot_play:
            phases.marks("play")  # the dealer and my turn
            phases.at("play")
            shot_play = True
        if v["phase"] == "play":
            phases.known("play")  # the cards seen going into the others' hands, capped
        if len(v["hand"] or []) >= 16 and not shot_big:
            phases.at("big-hand")
            shot_big = True
        # pick up whenever it is allowed until the hand is big (two rows on a phone), then play
        act_first(page, prefer="pickup" if not shot_big else None)
    assert shot_big, "the hand never grew to 16 cards"
    page.wait_for_selector(".result")
    phases.at("result")
    phases.check()
    assert not errors, errors


def test_the_end_of_a_sheepshead_match_lists_every_players_total_and_fits(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(viewport=PHONE).new_page()
    errors = watch_errors(page)
    create_room(page, live.base, "Sam", "sheepshead")
    page.click('[data-act="host"][data-op="start"]')
    hands = 0
    while True:
        what = my_turn(page, timeout=20_000)
        if what != "over":
            act_first(page)
            continue
        hands += 1
        # rule SS-9.1: a match is ten hands
        status = page.evaluate("window.cardroom.info.status")
        if status == "over":
            break
        assert hands < 10, status
        page.click('[data-act="host"][data-op="next_game"]')
        page.wait_for_function("() => window.cardroom.state.view.phase !== 'over'")
    assert hands == 10
    # the log marks where each hand began (the last one's line is still kept)
    assert {"sep": 10} in [
        {"sep": e["sep"]} for e in page.evaluate("window.cardroom.log") if "sep" in e
    ]
    phases = Phases(page, "sheepshead-match", LANGS)  # the end in every language
    phases.at("over")
    phases.check()
    page.wait_for_selector(".result .final")
    totals = page.evaluate("window.cardroom.info.totals")
    rows = page.locator(".final li")
    assert rows.count() == 5
    listed = [rows.nth(i).inner_text() for i in range(5)]
    names = [page.evaluate(f"window.cardroom.nameOf({s})") for s in range(5)]
    # every player with their total, best first
    for seat, total in enumerate(totals):
        line = next(x for x in listed if names[seat] in x)
        assert line.split()[-1] == (f"+{total}" if total > 0 else str(total)), (line, total)
    shown = [int(x.split()[-1]) for x in listed]
    assert shown == sorted(totals, reverse=True)
    assert "mine" in (rows.filter(has_text=names[0]).get_attribute("class") or "")
    assert not errors, errors


@pytest.mark.parametrize("game", ["shithead", "sheepshead"])
def test_a_hint_and_its_reason_fit_the_phone_too(
    live: LiveServer, new_context: Callable[..., BrowserContext], game: str
) -> None:
    page = new_context(viewport=PHONE).new_page()
    errors = watch_errors(page)
    create_hints_room(page, live.base, "Ann", game, seats=5)
    page.click('[data-act="host"][data-op="start"]')
    phases = Phases(page, f"{game}-hints")
    # on to a card decision with cards on the table: the pile, or a trick led to us
    while True:
        assert my_turn(page, timeout=20_000) != "over"
        v = view(page)
        if v["phase"] == "play" and (v.get("pile") or (v.get("trick") or {}).get("cards")):
            break
        act_first(page)
    page.click('[data-act="hint"]')
    page.wait_for_selector(".hint-reason")
    phases.at("hint")
    phases.check()
    assert not errors, errors
