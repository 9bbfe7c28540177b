"""What a screen reader says through a whole Shithead game and a whole Sheepshead hand: every
move of every seat, in the order the server's log has them, and each prompt of the table (what
it asks of the player: swap, play, pick, bury, call) when it comes, read from the page's
accessibility tree (the live region's lines, as an assistive technology gets them)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from playwright.sync_api import BrowserContext, Page

from protocol.cards import RANK_LABELS, RANKS, SUIT_SYMBOLS, SUITS
from tests.support.web import ANNOUNCE_SPY, act_first, scripted_deal
from tests.web.conftest import ROOT, LiveServer, create_room, wait_turn, watch_errors

pytestmark = pytest.mark.slow


# the moves a screen reader need not hear (the swap's exchanges show in the face-up cards)
UNSAID = {"swap"}
# what the line of a move says besides its player's name (English)
WORDS = {
    "ready": "ready",
    "pickup": "picked up",
    "pass": "passed",
    "pick": "picked up the blind",
    "bury": "buried",
    "call": "called",
    "alone": "alone",
}


ENGLISH: dict[str, str] = json.loads((ROOT / "clients/web/i18n/en.json").read_text("utf-8"))


def texts(*keys: str) -> set[str]:
    return {ENGLISH[k] for k in keys}


# the prompt a seat's move answers, by the move's kind (a mouse's words: "click")
SHITHEAD_PROMPTS = {
    "ready": texts("sh.swapHint"),
    "play": texts("sh.playHintClick", "sh.playHintEmptyClick"),
    "pickup": texts("sh.playHintClick", "sh.mustPickup"),
    "flip": texts("sh.flipHint"),
}
SHEEPSHEAD_PROMPTS = {
    "pick": texts("ss.pickHint"),
    "pass": texts("ss.pickHint"),
    "bury": texts("ss.buryHint"),
    "call": texts("ss.callHint", "ss.jdHint"),
    "alone": texts("ss.callHint", "ss.jdHint"),
    "jd_partner": texts("ss.jdHint"),
    "play": texts("ss.playHintClick"),
}


def label(code: str) -> str:
    """A card as the page writes it: ``10♦``."""
    return RANK_LABELS[RANKS.index(code[0])] + SUIT_SYMBOLS[SUITS.index(code[1])]


def said_for(name: str, move: str) -> Callable[[str], bool]:
    """Whether a line says ``move`` (``"play 7D"``, as the server logs it) by ``name``."""
    kind, *cards = move.split()
    words = [WORDS[kind]] if kind in WORDS else []
    if kind in ("play", "call"):
        words += [label(c) for c in cards]

    def says(line: str) -> bool:
        return line.startswith(name + " ") and all(w in line for w in words)

    return says


def tree_lines(page: Page) -> list[str]:
    """The live region's lines as the accessibility tree has them."""
    snapshot = page.locator("#announce").aria_snapshot()
    found = re.finditer(r"^- paragraph: (.*)$", snapshot, re.M)
    # a text with a colon is quoted, YAML's double quotes (JSON's escapes)
    return [json.loads(t) if t.startswith('"') else t for t in (m.group(1) for m in found)]


@dataclass
class Listener:
    """A screen reader's user at a table: checks each prompt as their turn comes."""

    page: Page
    mark: int = 0  # lines handed over before this seat's last move
    prompts: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        got: list[str] = self.page.evaluate("window.__lines")
        return got

    def turn(self) -> None:
        """At this seat's turn: the prompt on screen was said since its last move, after every
        move it follows, and the tree holds the lines handed over last."""
        prompt = self.page.inner_text("#prompt").strip()
        lines = self.lines()
        assert prompt, "a turn without a prompt"
        since = lines[self.mark :]
        self.mark = len(lines)
        if self.page.evaluate("window.cardroom.state.view.phase") == "swap":
            # everyone swaps at once: a Ready sent as another seat's lands is sent again, and
            # its prompt, said once at the deal, still stands
            assert prompt in lines, (prompt, lines)
            if prompt in self.prompts:
                return
        else:  # the others wait for this seat: its prompt is the last thing said
            assert since and since[-1] == prompt, (prompt, since)
        # in the swap the others' lines may come between two readings: read both again then
        for _ in range(20):
            tree, lines = tree_lines(self.page), self.lines()
            if tree and tree == lines[-len(tree) :]:
                break
            self.page.wait_for_timeout(100)
        assert tree and tree == lines[-len(tree) :], (tree, lines[-len(tree) :])
        self.prompts.append(prompt)

    def heard_every_move(self, names: list[str], moves: list[list[int | str]]) -> None:
        """Each move of the server's log has a line of its own, in the log's order."""
        lines = iter(self.lines())
        for seat, move in moves:
            assert isinstance(seat, int) and isinstance(move, str)
            if move.split()[0] in UNSAID:
                continue
            says = said_for(names[seat], move)
            assert any(says(line) for line in lines), (names[seat], move, self.lines())

    def answered(self, seat: int, moves: list[list[int | str]], asks: dict[str, set[str]]) -> None:
        """Each move of ``seat`` followed the prompt that asks for it (the k-th prompt heard at
        its turn, the k-th move it made)."""
        mine = [str(m) for s, m in moves if s == seat]
        assert len(mine) == len(self.prompts), (mine, self.prompts)
        for move, prompt in zip(mine, self.prompts, strict=True):
            assert prompt in asks[move.split()[0]], (move, prompt)


def play_through(page: Page, prefer: str | None = None) -> Listener:
    listener = Listener(page)
    for _ in range(400):
        what = wait_turn(page, timeout=20_000)
        if what == "over":
            break
        listener.turn()
        act_first(page, prefer)
    else:
        raise AssertionError("the game did not end")
    page.wait_for_timeout(300)  # the last lines
    return listener


def names_of(page: Page) -> list[str]:
    got: list[str] = page.evaluate(
        "window.cardroom.info.seats.map((_, s) => window.cardroom.nameOf(s))"
    )
    return got


def test_a_whole_shithead_game_is_said_move_by_move_with_each_prompt(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    ctx = new_context()
    ctx.add_init_script(ANNOUNCE_SPY)
    page = ctx.new_page()
    errors = watch_errors(page)
    code = create_room(page, live.base, "Ann", "shithead", seats=3)
    page.click('[data-act="host"][data-op="start"]')
    listener = play_through(page, prefer="ready")
    record = live.record(code)
    assert record["match"] is not None
    moves = record["match"]["logs"][0]
    assert len(moves) > 20, moves
    listener.heard_every_move(names_of(page), moves)
    # the swap, then the plays: each prompt was said when it came
    listener.answered(0, moves, SHITHEAD_PROMPTS)
    assert not errors, errors


def test_a_whole_sheepshead_hand_is_said_move_by_move_with_each_prompt(
    live: LiveServer, new_context: Callable[..., BrowserContext]
) -> None:
    ctx = new_context()
    ctx.add_init_script(ANNOUNCE_SPY)
    page = ctx.new_page()
    errors = watch_errors(page)
    code = create_room(page, live.base, "Ann", "sheepshead")
    seed, _ = scripted_deal()  # this seat is asked first, picks, buries, then calls an ace
    live.call(lambda: setattr(live.server.manager.rooms[code].core, "seed", seed))
    page.click('[data-act="host"][data-op="start"]')
    listener = play_through(page, prefer="pick")
    record = live.record(code)
    assert record["match"] is not None
    moves = record["match"]["logs"][0]
    assert sum(1 for _, m in moves if str(m).startswith("play")) == 30, moves  # six tricks
    listener.heard_every_move(names_of(page), moves)
    # the pick, the bury and the call, three questions to one seat in a row: each said
    listener.answered(0, moves, SHEEPSHEAD_PROMPTS)
    mine = [str(m).split()[0] for s, m in moves if s == 0]
    assert mine[:3] == ["pick", "bury", "call"], mine
    assert not errors, errors
