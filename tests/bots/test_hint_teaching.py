"""Shithead hints that teach: a hint keeps to the usual play (the rule of thumb) unless the
strong bot's playouts put another action clearly ahead, and then its reason names the usual
play, the fact that sets the two apart and both chances of losing; never only "the playouts say
so", and never a rule of thumb the hint itself breaks. House rules change the reasons too."""

from __future__ import annotations

import random
from typing import Any, cast

import pytest

from protocol.messages import ShitheadOptions
from protocol.views import View
from server.bots.advice import HINT_MARGIN, Advice
from server.bots.reasons import SEARCH_KEYS, TEXTS, Reason, explain
from server.bots.shithead_strong import ShitheadStrongBot
from server.rules.base import Action
from server.rules.shithead import Shithead
from tests.support.shithead import random_game


def _a(text: str) -> Action:
    return Action.from_str(text)


def _view(**fields: Any) -> dict[str, Any]:
    """A Shithead play-phase view of seat 0 of three, with the fields explain reads."""
    seats = [
        {
            "hand_count": 3,
            "face_up": ["4C", "5D", "6H"],
            "face_down": [True] * 3,
            "out": False,
            "known_in_hand": [],
        }
        for _ in range(3)
    ]
    base: dict[str, Any] = {
        "game": "shithead",
        "phase": "play",
        "seat": 0,
        "players": 3,
        "pile": [],
        "to_beat": None,
        "hand": [],
        "source": "hand",
        "stock": 10,
        "seats": seats,
        "legal": [],
    }
    base.update(fields)
    if base["pile"] and "to_beat" not in fields:
        base["to_beat"] = base["pile"][-1]
    return base


def _legal(*plays: str) -> list[dict[str, Any]]:
    return [{"kind": "play", "cards": p.split()} for p in plays] + [{"kind": "pickup"}]


def _why(view: dict[str, Any], action: str, advice: Advice | None = None) -> Reason:
    reason = explain(cast(View, view), _a(action), advice=advice)
    assert reason.text  # renders with its params
    return reason


def test_a_hint_keeps_to_the_usual_play_unless_another_is_clearly_ahead() -> None:
    usual, other = _a("play 4C"), _a("play QS")
    close = Advice(usual, ((usual, 0.30), (other, 0.30 - HINT_MARGIN / 2)))
    clear = Advice(usual, ((usual, 0.30), (other, 0.30 - 1.2 * HINT_MARGIN)))
    assert close.settle(other) == usual
    assert clear.settle(other) == other
    assert clear.settle(usual) == usual


def test_the_hint_opens_with_every_card_of_the_lowest_rank_and_says_why() -> None:
    # rule SH-4.2: several cards of one rank go together; the hint plays the pair it names
    g = Shithead.from_position(
        hands=["3C 3D KS", "5C 6C 7C 9H"], face_up=["", ""], face_down=["8C", "8D"], turn=0
    )
    action, advice = ShitheadStrongBot(1).advise(g.view(0))
    assert advice is not None and action == advice.usual == _a("play 3C 3D")
    reason = explain(g.view(0), action, advice=advice)
    assert reason.key == "hint.sh_open_low" and reason.params == {"ranks": "3 3"}


def test_a_departure_names_the_usual_play_the_fact_and_both_figures() -> None:
    # rule SH-4.6: picking up is allowed with a play in hand; here it is clearly better
    g = Shithead.from_position(
        hands=["4C 2S JS", "5C 6C"],
        face_up=["", "AH"],
        face_down=["8C", "8D"],
        pile="9C",
        turn=0,
        known=["", "5C 6C"],
    )
    view = g.view(0)
    action, advice = ShitheadStrongBot(0).advise(view)
    assert advice is not None
    assert action == _a("pickup") and advice.usual == _a("play JS")
    mine, usual = advice.loss(action), advice.loss(advice.usual)
    assert mine is not None and usual is not None and usual - mine >= HINT_MARGIN
    reason = explain(view, action, advice=advice)
    assert reason.key == "hint.sh_pickup_small"
    assert reason.params == {
        "usual": "J",
        "loss": round(100 * mine),
        "other_loss": round(100 * usual),
    }
    assert "keep the J for later" in reason.text


def test_the_fact_that_sets_a_departure_apart() -> None:
    usual = _a("play 5H")
    figures = ((usual, 0.40),)

    def advice(action: str) -> Advice:
        return Advice(usual, (*figures, (_a(action), 0.20)))

    # what the next player is known to hold (cards seen going into their hand)
    view = _view(pile=["4S"], legal=_legal("5H", "QD", "2C"))
    view["seats"][1]["known_in_hand"] = ["6C", "9D", "KH"]
    reason = _why(view, "play QD", advice("play QD"))
    assert reason.key == "hint.sh_unusual_known"
    assert reason.params["cards"] == "6C 9D" and reason.params["usual"] == "5"
    assert reason.params == {**reason.params, "loss": 20, "other_loss": 40}
    # a 2 instead of an ordinary card: the ordinary card is kept for later
    assert _why(view, "play 2C", advice("play 2C")).key == "hint.sh_keep_for_later"
    # the next player nearly out (no stock, two cards left)
    near = _view(pile=["4S"], stock=0, legal=_legal("5H", "QD"))
    near["seats"][1].update(hand_count=2, face_up=[], face_down=[False] * 3)
    assert _why(near, "play QD", advice("play QD")).key == "hint.sh_unusual_block"
    # one card of a pair where the usual play is both
    pair = Advice(_a("play 5H 5S"), ((_a("play 5H 5S"), 0.4), (_a("play 5H"), 0.2)))
    split = _why(_view(pile=["4S"], legal=_legal("5H", "5H 5S")), "play 5H", pair)
    assert split.key == "hint.sh_split" and split.params["usual"] == "5 5"
    # nothing else sets them apart: the figures, against the usual play by name
    plain = _why(_view(pile=["4S"], legal=_legal("5H", "QD")), "play QD", advice("play QD"))
    assert plain.key == "hint.sh_unusual" and plain.params["usual"] == "5"
    # the usual play itself is explained by its rule, whatever the advice
    assert _why(view, "play 5H", advice("play QD")).key == "hint.sh_play_low"


def test_house_rules_change_the_reasons() -> None:
    # rule SH-7.2: on a 7 only 3 to 7 (or a 2 or 10) may follow
    seven = {"seven_lower": True, "eight_skips": False, "three_invisible": False}
    v = _view(pile=["7S"], legal=_legal("4H", "6D"), options=seven)
    assert _why(v, "play 4H").key == "hint.sh_play_low_seven"
    # rule SH-7.4: under a glass 3 the card to beat is the one below it
    glass = {"seven_lower": False, "eight_skips": False, "three_invisible": True}
    v = _view(pile=["9H", "3C"], to_beat="9H", legal=_legal("JD", "3S"), options=glass)
    assert _why(v, "play JD").params == {"ranks": "J", "top": "9"}
    assert _why(v, "play 3S").key == "hint.sh_glass"
    # rule SH-7.3: an 8 skips the next player, about to go out
    skip = {"seven_lower": False, "eight_skips": True, "three_invisible": False}
    v = _view(pile=["4S"], stock=0, legal=_legal("8H", "KD"), options=skip)
    v["seats"][1].update(hand_count=1, face_up=[], face_down=[False] * 3)
    assert _why(v, "play 8H").key == "hint.sh_skip"


@pytest.mark.slow
def test_hints_over_random_games_keep_to_the_usual_play_or_say_why_not() -> None:
    # rule SH-7.5: under random house rules, the hints read the rules from the view
    seed = 5
    rng = random.Random(seed)
    asked = departed = 0
    for n in range(6):
        options = ShitheadOptions(
            seven_lower=rng.random() < 0.5,
            eight_skips=rng.random() < 0.5,
            three_invisible=rng.random() < 0.5,
        )
        for i, g in enumerate(random_game(rng.choice([2, 3, 4]), seed * 10 + n, options)):
            if g.phase != "play" or i % 11 or g.is_over():
                continue
            seat = g.to_act()[0]
            view = g.view(seat)
            if sum(1 for a in view["legal"] if a["kind"] == "play") < 2:
                continue
            action, advice = ShitheadStrongBot(seed, iterations=64).advise(view)
            asked += 1
            assert action.to_json() in view["legal"]
            reason = explain(view, action, advice=advice)
            assert reason.key in TEXTS
            assert reason.key.startswith("hint.sh_"), reason  # a fact of its own, never quick
            if advice is None or action == advice.usual:
                assert reason.key not in SEARCH_KEYS, (reason, action, view)
                continue
            departed += 1
            mine, usual = advice.loss(action), advice.loss(advice.usual)
            assert mine is not None and usual is not None and usual - mine >= HINT_MARGIN
            assert reason.key in SEARCH_KEYS
            assert reason.params["loss"] == round(100 * mine)
            assert reason.params["other_loss"] == round(100 * usual)
    assert asked >= 10
    assert departed < asked  # most hints keep to the usual play
