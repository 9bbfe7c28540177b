"""A Sheepshead result says in words what decided it: a leaster names its rule and the players
who took no trick (so could not win, SS-8.2), a schneider and a schwarz are said as such
(SS-7.2, SS-7.3). The views are real: hands played out by the rules core; the page's own result
drawing (js/sheepshead.js, the same the table and the replay use) writes them."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import BrowserContext

from server.rooms.matches import Match
from tests.support.web import PHONE
from tests.web.conftest import ROOT, LiveServer, watch_errors

pytestmark = pytest.mark.slow

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve"]
EN = json.loads((ROOT / "clients/web/i18n/en.json").read_text())

# the result drawn by the page's Sheepshead module for a finished hand's view, as text
RESULT_JS = """async ([view, names]) => {
  const m = await import('/js/sheepshead.js');
  const box = document.createElement('div');
  box.innerHTML = m.resultHTML({view, info: null, seat: null, name: (s) => names[s]});
  document.body.append(box);
  const text = box.innerText;
  box.remove();
  return text;
}"""


def played_out(seed: int, everyone_passes: bool) -> Any:
    """A hand of random legal moves (every seat passes first, for a leaster): its final view."""
    rng = random.Random(seed)
    game = Match.create("sheepshead", 5, seed=seed).current
    while not game.is_over():
        seat = game.to_act()[0]
        legal = game.legal_actions(seat)
        passes = [a for a in legal if a.kind == "pass"]
        action = passes[0] if everyone_passes and passes else rng.choice(legal)
        game.apply(seat, action)
    return game.view(None)


def find(want: Callable[[Any], bool], everyone_passes: bool = False) -> Any:
    for seed in range(3000):
        view = played_out(seed, everyone_passes)
        if want(view["result"]):
            return view
    raise AssertionError("no such hand in 3000 deals")


def test_a_leaster_a_schneider_and_a_schwarz_are_said_in_words(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(viewport=PHONE).new_page()
    errors = watch_errors(page)
    page.goto(live.base + "/")
    page.wait_for_selector(".home")

    # rule SS-8.2: the fewest points among those who took a trick; the others are named
    leaster = find(lambda r: r["leaster"] and 0 in r["seat_tricks"], everyone_passes=True)
    text = page.evaluate(RESULT_JS, [leaster, NAMES])
    trickless = [NAMES[s] for s, n in enumerate(leaster["result"]["seat_tricks"]) if n == 0]
    assert EN["ss.leasterRule"] in text, text
    assert EN["ss.noTrick"].replace("{names}", ", ".join(trickless)) in text, text

    # rule SS-7.2 / SS-7.3: the losers took 30 points or fewer, or no trick at all
    schneider = find(lambda r: not r["leaster"] and r["schneider"] and not r["schwarz"])
    text = page.evaluate(RESULT_JS, [schneider, NAMES])
    assert EN["ss.schneider"] in text and EN["ss.schwarz"] not in text, text
    schwarz = find(lambda r: not r["leaster"] and r["schwarz"])
    text = page.evaluate(RESULT_JS, [schwarz, NAMES])
    assert EN["ss.schwarz"] in text, text
    plain = find(lambda r: not r["leaster"] and not r["schneider"])
    text = page.evaluate(RESULT_JS, [plain, NAMES])
    assert EN["ss.schneider"] not in text and EN["ss.leasterRule"] not in text, text
    assert not errors, errors
