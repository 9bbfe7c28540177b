"""Bots only ever propose legal actions, in every phase, over many games."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from server.bots import Bot, make_bot
from server.bots.sheepshead_strong import SheepsheadStrongBot
from server.bots.shithead_strong import ShitheadStrongBot
from server.rules.base import Action, Game
from server.rules.sheepshead import Sheepshead
from server.rules.sheepshead_cards import DECK32, SUIT_CLASS, TRUMP
from server.rules.shithead import Shithead

pytestmark = pytest.mark.slow


def play(game: Game, bots: Sequence[Bot], cap: int = 3000) -> tuple[set[str], bool]:
    """Play ``game`` to the end; every action must be accepted. Returns the phases and action
    kinds seen (``phase:kind``) and whether the cap stopped the game."""
    seen: set[str] = set()
    for _ in range(cap):
        if game.is_over():
            return seen, False
        seat = game.to_act()[0]
        view = game.view(seat)
        action = bots[seat].choose(view)
        assert isinstance(action, Action)
        legal = game.legal_actions(seat)
        if action.kind not in ("swap", "play", "pickup"):
            assert action in legal, (action, legal)
        game.apply(seat, action)  # raises IllegalAction if the bot proposed an illegal one
        seen.add(f"{view['phase']}:{action.kind}")
        if view.get("source") == "face_down":
            seen.add("face_down")
        if view.get("leaster") and action.kind == "play":
            seen.add("leaster")
    return seen, not game.is_over()


@pytest.mark.parametrize("level", ["random", "basic"])
def test_shithead_bots_play_legally_over_many_games(level: str) -> None:
    rng = random.Random(11)
    kinds: set[str] = set()
    capped = 0
    games = 300 if level == "basic" else 120
    for i in range(games):
        players = 2 + i % 4
        bots = [make_bot(level, "shithead", seed=i * 10 + s) for s in range(players)]
        game = Shithead.new(players, i % players, seed=rng.getrandbits(32))
        seen, was_capped = play(game, bots)
        kinds |= seen
        capped += was_capped
    assert {"swap:ready", "play:play", "play:pickup", "play:flip", "face_down"} <= kinds
    if level == "basic":
        assert "swap:swap" in kinds
        assert capped == 0


@pytest.mark.parametrize("level", ["random", "basic"])
def test_sheepshead_bots_play_legally_over_many_hands(level: str) -> None:
    rng = random.Random(12)
    kinds: set[str] = set()
    for i in range(1500):
        bots = [make_bot(level, "sheepshead", seed=i * 10 + s) for s in range(5)]
        game = Sheepshead.new(5, i % 5, seed=rng.getrandbits(32))
        seen, _ = play(game, bots)
        kinds |= seen
    expected = {"pick:pick", "pick:pass", "bury:bury", "call:call", "call:alone", "play:play"}
    assert expected | {"leaster"} <= kinds
    if level == "random":
        assert "call:call_unknown" in kinds


def test_sheepshead_mixed_tables_cover_unknown_card_calls() -> None:
    """Basic pickers facing the unknown-card call choose it legally (dealt on purpose)."""
    rng = random.Random(5)
    unknown = 0
    for i in range(1500):
        game = Sheepshead.new(5, i % 5, seed=rng.getrandbits(32))
        bots = [make_bot("basic", "sheepshead", seed=s) for s in range(5)]
        # Force a pick by the first seat so that many different picking hands are tried.
        seat = game.to_act()[0]
        game.apply(seat, Action("pick"))
        seen, _ = play(game, bots)
        unknown += "call:call_unknown" in seen
    assert unknown > 0


def test_strong_bots_play_legally() -> None:
    rng = random.Random(13)
    for i in range(25):
        bots_ss = [SheepsheadStrongBot(seed=i + s, iterations=12, bid_samples=8) for s in range(5)]
        game_ss = Sheepshead.new(5, i % 5, seed=rng.getrandbits(32))
        play(game_ss, bots_ss)
    for i in range(6):
        players = 3 + i % 3
        bots_sh = [ShitheadStrongBot(seed=i + s, iterations=8, horizon=20) for s in range(players)]
        game_sh = Shithead.new(players, 0, seed=rng.getrandbits(32))
        _, capped = play(game_sh, bots_sh)
        assert not capped


def test_strong_sheepshead_in_forced_leasters() -> None:
    """Strong bots sampling in leasters stay legal."""
    rng = random.Random(21)
    for i in range(6):
        game = Sheepshead.new(5, i % 5, seed=rng.getrandbits(32))
        for _ in range(5):
            game.apply(game.to_act()[0], Action("pass"))
        assert game.leaster
        bots = [SheepsheadStrongBot(seed=i + s, iterations=10, bid_samples=8) for s in range(5)]
        play(game, bots)


def test_strong_sheepshead_after_unknown_card_calls() -> None:
    """Strong bots sampling after an unknown-card call (SS-4.3) stay legal, the picker included
    when it must play the face-down card. Each hand gives the picker only trumps, so the only
    calls open to it are unknown-card calls (and alone)."""
    # rule SS-4.3, SS-6.4
    rng = random.Random(22)
    trumps = [c for c in DECK32 if SUIT_CLASS[c] == TRUMP]
    for i in range(8):
        dealer = i % 5
        picker = (dealer + 1) % 5
        mine = rng.sample(trumps, 8)
        rest = [c for c in DECK32 if c not in mine]
        rng.shuffle(rest)
        deck = mine[:6] + rest[:24] + mine[6:]  # the picker's six cards, the others', the blind
        game = Sheepshead.new(5, dealer, deck=deck)
        game.apply(picker, Action("pick"))
        game.apply(picker, rng.choice(game.legal_actions(picker)))
        calls = game.legal_actions(picker)
        assert {a.kind for a in calls} == {"call_unknown", "alone"}
        game.apply(picker, rng.choice([a for a in calls if a.kind == "call_unknown"]))
        assert game.unknown_card is not None
        bots = [SheepsheadStrongBot(seed=i + s, iterations=10, bid_samples=8) for s in range(5)]
        play(game, bots)
        assert game.is_over()
        # the unknown card was played face down, by the picker, in some trick
        assert [t.seats[t.face_down] for t in game.tricks if t.face_down >= 0] == [picker]
