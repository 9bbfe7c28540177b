"""Reasons for hints: each decision kind of both games, explained truly from the view alone.

Positions are seat views cut to the fields :func:`explain` reads (plus a sweep over real views
from played games, which checks that every legal action of every kind gets a reason)."""

from __future__ import annotations

import random
import re
from typing import Any, cast

import pytest

from protocol.messages import ShitheadOptions
from protocol.views import View
from server.bots.base import make_bot
from server.bots.reasons import CARD_PARAMS, RANK_PARAMS, TEXTS, Reason, explain
from server.rules.base import Action
from server.rules.registry import game_spec
from tests.support.shithead import random_game

# a view with only the fields explain reads (the tests set the ones each case is about)
PartialView = dict[str, Any]


def sh_view(**fields: Any) -> PartialView:
    """A Shithead view of seat 0 in the play phase, three seats, stock left."""
    seats = [
        {"hand_count": 3, "face_up": ["4C", "5D", "6H"], "face_down": [True] * 3, "out": False}
        for _ in range(3)
    ]
    base: PartialView = {
        "game": "shithead",
        "phase": "play",
        "seat": 0,
        "pile": [],
        "hand": [],
        "source": "hand",
        "stock": 10,
        "seats": seats,
        "legal": [],
    }
    base.update(fields)
    return base


def plays(*sets: str, pickup: bool = True) -> list[dict[str, Any]]:
    legal: list[dict[str, Any]] = [{"kind": "play", "cards": s.split()} for s in sets]
    if pickup:
        legal.append({"kind": "pickup"})
    return legal


def why(view: PartialView, action: str) -> Reason:
    reason = explain(cast(View, view), Action.from_str(action))
    assert reason.key in TEXTS
    assert reason.text  # the English text renders with its params
    return reason


# ------------------------------------------------------------------------------ Shithead


def test_play_the_lowest_card_that_beats_the_top() -> None:
    # rule SH-4.1: at least as high as the top card; the lowest such keeps the high ones
    v = sh_view(pile=["9H"], hand=["3S", "JD", "AC"], legal=plays("JD", "AC"))
    r = why(v, "play JD")
    assert r.key == "hint.sh_play_low"
    assert r.text == "play the J: the lowest card that beats the 9 keeps your high cards"
    assert why(v, "play AC").key != "hint.sh_play_low"  # the ace is not the lowest that beats


def test_open_an_empty_pile_low() -> None:
    # rule SH-4.1: on an empty pile any rank may be played
    v = sh_view(hand=["3S", "3D", "KD"], legal=plays("3S", "3D", "3S 3D", "KD", pickup=False))
    r = why(v, "play 3S 3D")
    assert r.key == "hint.sh_open_low"
    assert r.text.startswith("open with the 3 + 3:")


def test_after_a_two_anything_goes() -> None:
    # rule SH-1.3: after a 2 any rank may be played
    v = sh_view(pile=["KC", "2D"], hand=["4S", "QD"], legal=plays("4S", "QD"))
    assert why(v, "play 4S").key == "hint.sh_play_low_any"


def test_four_of_a_kind_burns() -> None:
    # rule SH-4.4: the seed's example, 7s on top and two more completing four
    v = sh_view(pile=["5C", "7H", "7C"], hand=["7D", "7S", "KD"], legal=plays("7D 7S", "KD"))
    r = why(v, "play 7D 7S")
    assert r.key == "hint.sh_play_four"
    assert "burn" in r.text and "play again" in r.text
    # four in one play burn too
    v = sh_view(pile=["5C"], hand=["7C", "7D", "7H", "7S"], legal=plays("7C 7D 7H 7S", "7C"))
    assert why(v, "play 7C 7D 7H 7S").key == "hint.sh_play_four"
    assert why(v, "play 7C").key != "hint.sh_play_four"


def test_a_ten_burns_the_pile() -> None:
    # rule SH-4.3: a 10 burns the pile and the same player plays again
    v = sh_view(pile=["QC", "KH", "AS"], hand=["TD", "4S"], legal=plays("TD"))
    r = why(v, "play TD")
    assert r.key == "hint.sh_burn"
    assert r.text == "play the 10: it burns the pile and you play again"


def test_a_two_when_nothing_ordinary_beats_the_top() -> None:
    # rule SH-4.2: a 2 may be played on anything
    v = sh_view(pile=["AS"], hand=["2D", "4S"], legal=plays("2D"))
    r = why(v, "play 2D")
    assert r.key == "hint.sh_two" and r.params == {"top": "A"}


def test_block_a_player_about_to_go_out() -> None:
    v = sh_view(pile=["5C"], hand=["6S", "KD"], stock=0, legal=plays("6S", "KD"))
    v["seats"][1] = {"hand_count": 1, "face_up": [], "face_down": [False] * 3, "out": False}
    assert why(v, "play KD").key == "hint.sh_block"
    v["seats"][1] = {"hand_count": 3, "face_up": [], "face_down": [True] * 3, "out": False}
    # nobody is about to go out: the fact is the lower card kept
    r = why(v, "play KD")
    assert r.key == "hint.sh_play_higher" and r.params == {"ranks": "K", "top": "5", "usual": "6"}


def test_face_up_cards_after_the_hand() -> None:
    # rule SH-5.1: no stock and no hand: the face-up cards are played
    v = sh_view(pile=["5C"], hand=[], source="face_up", stock=0, legal=plays("6H", "KD"))
    assert why(v, "play 6H").key == "hint.sh_play_face_up"


def test_pick_up_when_nothing_beats_the_top() -> None:
    # rule SH-4.6: instead of playing you may always pick up the pile
    v = sh_view(pile=["9C", "AS"], hand=["4S", "8D"], legal=[{"kind": "pickup"}])
    r = why(v, "pickup")
    assert r.key == "hint.sh_pickup_forced"
    assert r.text == "pick up the pile: nothing you can play beats the A"
    keep = sh_view(pile=["9C", "AS"], hand=["4S", "2D"], legal=plays("2D"))
    assert why(keep, "pickup").key == "hint.sh_pickup_keep"


def test_give_up_a_face_up_card_to_pick_up() -> None:
    # rule SH-5.2: picking up though a face-up card could be played adds one first
    legal = [{"kind": "play", "cards": ["KD"]}, {"kind": "pickup", "cards": ["KD"]}]
    v = sh_view(pile=["JC"], source="face_up", stock=0, legal=legal)
    r = why(v, "pickup KD")
    assert r.key == "hint.sh_give_up" and r.params == {"card": "KD"}
    assert "K♦" in r.text


def test_flip_a_face_down_card() -> None:
    # rule SH-5.4: a face-down card is turned over blind, its position chosen
    v = sh_view(
        pile=["JC"], stock=0, legal=[{"kind": "flip", "slot": 1}, {"kind": "flip", "slot": 2}]
    )
    v["seats"][0] = {"hand_count": 0, "face_up": [], "face_down": [False, True, True], "out": False}
    assert why(v, "flip #2").key == "hint.sh_flip"
    assert why(v, "flip #2").text.startswith("turn over face-down card 3:")
    v["seats"][0]["face_down"] = [False, False, True]
    v["legal"] = [{"kind": "flip", "slot": 2}, {"kind": "pickup"}]
    assert why(v, "flip #2").key == "hint.sh_flip_last"


def test_swap_and_ready() -> None:
    # rule SH-2.3: hand and face-up cards may be exchanged before the first play
    v = sh_view(phase="swap", hand=["AS", "3D", "7C"], legal=[{"kind": "ready"}])
    v["seats"][0]["face_up"] = ["4C", "TD", "9D"]
    r = why(v, "swap AS 4C")
    assert r.key == "hint.sh_swap" and r.params == {"card": "AS", "other": "4C"}
    assert r.text.startswith("swap: put the A♠ face up and take the 4♣ in hand")
    # not a stronger card going up: the 10 comes into the hand, where it goes on anything
    r = why(v, "swap 3D TD")
    assert r.key == "hint.sh_swap_special" and r.text.startswith("swap: take the 10♦ in hand")
    assert why(v, "swap 7C 9D").key == "hint.sh_swap_play_sooner"
    r = why(v, "ready")  # a stronger hand card could go up: the best one face up is named
    assert r.key == "hint.sh_ready_best" and r.params == {"card": "TD"}
    v["seats"][0]["face_up"] = ["AS", "TD", "2D"]
    v["hand"] = ["4C", "3D", "7C"]
    assert why(v, "ready").key == "hint.sh_ready"


# ------------------------------------------------------------------------------ Sheepshead


def ss_view(**fields: Any) -> PartialView:
    """A Sheepshead view of seat 0 in the play phase: seat 0 picked, called the ace of hearts."""
    base: PartialView = {
        "game": "sheepshead",
        "phase": "play",
        "seat": 0,
        "players": 5,
        "hand": [],
        "passed": [],
        "picker": 0,
        "leaster": False,
        "called": "AH",
        "alone": False,
        "unknown_call": False,
        "called_suit_led": False,
        "you_are_partner": False,
        "partner": None,
        "buried": ["7C", "8C"],
        "trick": {"number": 2, "leader": 0, "cards": []},
        "tricks": [],
        "legal": [],
    }
    base.update(fields)
    return base


def ss_plays(*cards: str) -> list[dict[str, Any]]:
    return [{"kind": "play", "cards": [c]} for c in cards]


def trick(*plays: tuple[int, str | None]) -> dict[str, Any]:
    return {
        "number": 2,
        "leader": plays[0][0],
        "cards": [{"seat": s, "card": c, "face_down": c is None} for s, c in plays],
    }


def test_pick_with_both_black_queens() -> None:
    # rule SS-1.2: QC and QS are the two highest trumps
    v = ss_view(phase="pick", picker=None, called=None, hand=["QC", "QS", "JD", "AD", "7H", "9S"])
    v["legal"] = [{"kind": "pick"}, {"kind": "pass"}]
    r = why(v, "pick")
    assert r.key == "hint.ss_pick_black_queens"
    assert r.text == "pick: 4 trumps including both black queens"


def test_pick_or_pass_by_trumps() -> None:
    v = ss_view(phase="pick", picker=None, called=None, hand=["QH", "JC", "JS", "TD", "7H", "9S"])
    v["legal"] = [{"kind": "pick"}, {"kind": "pass"}]
    assert why(v, "pick").params == {"n": 4, "queens": 1}
    weak = ss_view(
        phase="pick", picker=None, called=None, hand=["JD", "7D", "AC", "7H", "9S", "KS"]
    )
    weak["legal"] = v["legal"]
    assert why(weak, "pass").key == "hint.ss_pass_few"
    # rule SS-3.3: if the last seat passes too, the hand is a leaster
    weak["passed"] = [1, 2, 3, 4]
    assert why(weak, "pick").key == "hint.ss_pick_last"


def test_bury_a_short_suit() -> None:
    # rule SS-3.2: buried cards' points count for the picker
    hand = ["QC", "QS", "JD", "AD", "TD", "TS", "KS", "9H"]
    v = ss_view(phase="bury", called=None, buried=None, hand=hand, legal=[{"kind": "bury"}] * 2)
    r = why(v, "bury TS KS")
    assert r.key == "hint.ss_bury_void_points"
    assert r.params == {"cards": "TS KS", "suit": "S", "points": 14}
    assert r.text == ("bury the 10♠ + K♠: void in spades, you can trump it, and 14 points are safe")
    assert why(v, "bury QC JD").key == "hint.ss_bury_search"  # trumps buried: no claim


def test_call_an_ace_with_a_hold_card() -> None:
    # rule SS-4.1: the picker holds a card of the called ace's suit but not the ace
    legal = [{"kind": "call", "cards": ["AH"]}, {"kind": "alone"}]
    v = ss_view(phase="call", called=None, hand=["QC", "QS", "JD", "AD", "9H", "7H"], legal=legal)
    r = why(v, "call AH")
    assert r.key == "hint.ss_call_ace" and r.params == {"card": "AH", "hold": "7H"}
    assert r.text.startswith("call the A♥: you hold the 7♥")


def test_call_a_ten_and_an_unknown_card() -> None:
    # rule SS-4.2: all three fail aces held: a ten is called
    legal = [{"kind": "call", "cards": ["TH"]}, {"kind": "alone"}]
    v = ss_view(phase="call", called=None, hand=["QC", "AC", "AS", "AH", "9H", "7D"], legal=legal)
    assert why(v, "call TH").key == "hint.ss_call_ten"
    # rule SS-4.3: only aces as fail cards: the unknown card
    legal = [{"kind": "call_unknown", "cards": ["AH", "7D"]}, {"kind": "alone"}]
    v = ss_view(phase="call", called=None, hand=["QC", "QS", "AC", "JD", "8D", "7D"], legal=legal)
    r = why(v, "call_unknown AH 7D")
    assert r.key == "hint.ss_call_unknown" and r.params == {"ace": "AH", "card": "7D"}


def test_alone_forced_or_chosen() -> None:
    # rule SS-4.4: the picker must play alone when nothing can be called
    v = ss_view(phase="call", called=None, hand=["QC", "QS", "QH", "QD", "JC", "JS"])
    v["legal"] = [{"kind": "alone"}]
    assert why(v, "alone").key == "hint.ss_alone_forced"
    v["legal"] = [{"kind": "alone"}, {"kind": "call", "cards": ["AH"]}]
    assert why(v, "alone").params == {"n": 6, "queens": 4}


def test_lead_trump_holding_the_top_two() -> None:
    v = ss_view(hand=["QC", "QS", "JD", "9H"], legal=ss_plays("QC", "QS", "JD", "9H"))
    r = why(v, "play QC")
    assert r.key == "hint.ss_lead_top_trumps" and r.text == "lead trump: you hold the top two"
    # once the queen of clubs is gone, the queens of spades and hearts are the top two
    v = ss_view(hand=["QS", "QH", "9H"], legal=ss_plays("QS", "QH", "9H"))
    v["tricks"] = [trick((1, "QC"), (2, "7D"), (3, "8D"), (4, "9D"), (0, "JD"))]
    assert why(v, "play QS").key == "hint.ss_lead_top_trumps"
    v["hand"] = ["QS", "JC", "9H"]
    assert why(v, "play QS").key == "hint.ss_lead_trump"


def test_lead_the_called_suit() -> None:
    # rule SS-6.2: the partner must play the called card when its suit is first led
    v = ss_view(hand=["QC", "9H", "7S"], legal=ss_plays("QC", "9H", "7S"))
    r = why(v, "play 9H")
    assert r.key == "hint.ss_lead_called" and r.params == {"card": "9H", "called": "AH"}
    partner = ss_view(picker=2, you_are_partner=True, buried=None, hand=["AH", "KH", "7S"])
    partner["legal"] = ss_plays("AH", "7S")
    assert why(partner, "play AH").key == "hint.ss_lead_called_card"
    v["called_suit_led"] = True
    assert why(v, "play 9H").key != "hint.ss_lead_called"


def test_follow_take_trump_in_schmear_and_duck() -> None:
    # rule SS-5.3: the highest trump wins; else the highest card of the suit led
    v = ss_view(seat=2, picker=0, buried=None, hand=["KC", "9C", "JD"])
    v["trick"] = trick((0, "TC"), (1, "8C"))
    v["legal"] = ss_plays("KC", "9C")
    # rule SS-5.2: must follow suit; neither club beats the ten
    assert why(v, "play 9C").key == "hint.ss_duck"
    v["legal"] = ss_plays("KC", "9C", "JD")
    v["hand"] = ["KS", "7H", "JD"]
    v["legal"] = ss_plays("KS", "7H", "JD")
    r = why(v, "play JD")
    assert r.key == "hint.ss_trump_in" and r.params == {"card": "JD", "suit": "C"}
    assert r.text.startswith("trump in with the J♦: you have no clubs")
    # a defender whose fellow defender wins (the partner is known: seat 3) gives points
    v = ss_view(seat=2, picker=0, partner=3, buried=None, hand=["TS", "7H", "8H"])
    v["trick"] = trick((4, "AC"), (0, "9C"), (1, "KC"), (3, "8C"))
    v["legal"] = ss_plays("TS", "7H", "8H")
    assert why(v, "play TS").key == "hint.ss_schmear"
    assert why(v, "play 7H").key == "hint.ss_duck"
    # playing last and winning
    v["hand"] = ["QD", "7H"]
    v["legal"] = ss_plays("QD", "7H")
    r = why(v, "play QD")
    assert r.key == "hint.ss_follow_win_last" and r.params == {"card": "QD", "points": 18}


def test_only_card_and_leaster() -> None:
    v = ss_view(hand=["9H"], legal=ss_plays("9H"))
    assert why(v, "play 9H").key == "hint.ss_only_card"
    # rule SS-8.1: in a leaster everyone plays for themselves
    lv = ss_view(seat=1, picker=None, called=None, leaster=True, buried=None, hand=["7C", "AC"])
    lv["trick"] = trick((0, "QC"))
    lv["legal"] = ss_plays("7C", "AC")
    assert why(lv, "play 7C").key == "hint.ss_leaster_duck"


# ------------------------------------------------------------------------------ real views


def _params_render(reason: Reason) -> None:
    for name, value in reason.params.items():
        if name in CARD_PARAMS:
            assert isinstance(value, str) and re.fullmatch(r"([2-9TJQKA][CDHS] ?)+", value)
        elif name in RANK_PARAMS:
            assert isinstance(value, str) and re.fullmatch(r"([2-9TJQKA] ?)+", value)
        elif name == "suit":
            assert value in ("C", "D", "H", "S")
        else:
            assert isinstance(value, int), (name, value)
    assert set(re.findall(r"\{(\w+)\}", TEXTS[reason.key])) == set(reason.params)


@pytest.mark.parametrize("game,players", [("shithead", 3), ("sheepshead", 5)])
def test_every_legal_action_in_played_games_gets_a_reason(game: str, players: int) -> None:
    kinds: set[str] = set()
    keys: set[str] = set()
    for seed in range(6):
        rng = random.Random(seed)
        g = game_spec(game).game.new(players, dealer=seed % players, seed=seed)
        bot = make_bot("basic", game, seed=seed)
        for _ in range(400):
            if g.is_over():
                break
            seat = g.to_act()[0]
            view = g.view(seat)
            for entry in view["legal"]:
                reason = explain(view, Action.from_json(entry))
                _params_render(reason)
                kinds.add(entry["kind"])
                keys.add(reason.key)
            action = (
                bot.choose(view)
                if rng.random() < 0.7
                else Action.from_json(rng.choice(view["legal"]))
            )
            g.apply(seat, action)
    expected = (
        {"ready", "swap", "play", "pickup", "flip"}
        if game == "shithead"
        else {"pick", "pass", "bury", "call", "alone", "play"}
    )
    assert expected <= kinds
    assert len(keys) >= 10


# ------------------------------------------------------------------------------ Conventions


def test_the_partner_leading_trump_is_named_as_the_convention() -> None:
    partner = ss_view(seat=2, picker=0, you_are_partner=True, buried=None, hand=["JC", "9S", "7S"])
    partner["legal"] = ss_plays("JC", "9S", "7S")
    r = why(partner, "play JC")
    assert r.key == "hint.ss_partner_lead_trump"
    assert (
        r.text
        == "lead trump: the partner leads trump, to draw the defenders' trumps for the picker"
    )
    picker = ss_view(hand=["JC", "9S", "7S"], legal=ss_plays("JC", "9S", "7S"))
    assert why(picker, "play JC").key == "hint.ss_lead_trump"


def test_a_defender_leading_fail_holding_trump_is_named_as_the_convention() -> None:
    v = ss_view(seat=2, picker=0, buried=None, hand=["JC", "9S", "KS"])
    v["legal"] = ss_plays("JC", "9S", "KS")
    r = why(v, "play 9S")
    assert r.key == "hint.ss_defender_lead_fail" and r.params == {"card": "9S"}
    assert r.text == "lead the 9♠: defenders lead fail, not trump (a trump lead helps the picker)"
    # no trump in hand: no choice to name
    v["hand"], v["legal"] = ["9S", "KS"], ss_plays("9S", "KS")
    assert why(v, "play 9S").key == "hint.ss_lead_low"
    # rule SS-6.2: the called suit's lead keeps its own reason
    v["hand"], v["legal"] = ["JC", "9H"], ss_plays("JC", "9H")
    assert why(v, "play 9H").key == "hint.ss_lead_called"


def test_a_schmear_on_the_partners_trick_names_the_partner() -> None:
    # the partner (seat 2) gives points to the picker's (seat 0) winning trick
    v = ss_view(seat=2, picker=0, you_are_partner=True, buried=None, hand=["TS", "7H"])
    v["trick"] = trick((0, "QC"), (1, "9S"))
    v["legal"] = ss_plays("TS", "7H")
    r = why(v, "play TS")
    assert r.key == "hint.ss_schmear_partner"
    assert r.text == "schmear the 10♠: your partner is winning the trick, so give it points"
    # the picker on the known partner's (seat 3) trick
    picker = ss_view(partner=3, hand=["TS", "7H"], legal=ss_plays("TS", "7H"))
    picker["trick"] = trick((3, "QC"), (4, "9S"))
    assert why(picker, "play TS").key == "hint.ss_schmear_partner"


def test_save_the_ten_when_an_ordinary_card_plays() -> None:
    # rule SH-1.2, SH-4.2: the 10 goes on anything; here the J beats the 9 as well
    v = sh_view(pile=["9H"], hand=["TC", "JD", "AC"], legal=plays("TC", "JD", "AC"))
    r = why(v, "play JD")
    assert r.key == "hint.sh_save_special" and r.params == {"ranks": "J", "cards": "TC"}
    assert r.text.startswith("play the J and save the 10♣: an ordinary card plays")
    # rule SH-7.4: under glass 3s a 3 is saved too
    glass = {"seven_lower": False, "eight_skips": False, "three_invisible": True}
    v = sh_view(pile=["9H"], hand=["3C", "JD"], legal=plays("3C", "JD"), options=glass)
    assert why(v, "play JD").params == {"ranks": "J", "cards": "3C"}


# ------------------------------------------------------------------------------ Facts

# the Shithead reasons without params: each states the rule of the game that decides the move
RULE_FACTS = frozenset(
    {"hint.sh_burn", "hint.sh_flip_last", "hint.sh_ready", "hint.sh_skip", "hint.sh_glass"}
)


def _visible(view: Any) -> set[str]:
    """The cards a Shithead seat sees that a reason may name: its hand and face-up cards, the
    pile, and the cards of its legal actions."""
    me = view["seats"][view["seat"]]
    cards = {*(view["hand"] or []), *me["face_up"], *(view["pile"] or [])}
    for entry in view["legal"]:
        cards.update(entry.get("cards", []))
    return cards


def test_every_shithead_hint_names_a_fact_of_its_position() -> None:
    # rule SH-7.5: under random house rules too; every legal action (each may be a hint), as
    # the strong bot's choice and as a quick rule's: never a reason that only points at a bot
    rng = random.Random(41)
    keys: set[str] = set()
    positions = 0
    for n in range(16):
        options = ShitheadOptions(
            seven_lower=rng.random() < 0.5,
            eight_skips=rng.random() < 0.5,
            three_invisible=rng.random() < 0.5,
        )
        for g in random_game(rng.choice([2, 3, 4, 5]), 4100 + n, options):
            if g.is_over():
                continue
            for seat in g.to_act():
                view = g.view(seat)
                positions += 1
                visible = _visible(view)
                ranks = {c[0] for c in visible}
                for entry in view["legal"]:
                    for searched in (True, False):
                        reason = explain(view, Action.from_json(entry), searched=searched)
                        where = (reason, entry, view["pile"], view["hand"])
                        assert reason.key.startswith("hint.sh_"), where  # never hint.quick
                        assert reason.params or reason.key in RULE_FACTS, where
                        assert "bot" not in reason.text, where
                        _params_render(reason)
                        for name, value in reason.params.items():
                            if name in CARD_PARAMS:  # a card named is one the seat sees
                                assert set(str(value).split()) <= visible, where
                            elif name in RANK_PARAMS:
                                assert set(str(value).split()) <= ranks, where
                        if "top" in reason.params:  # the card to beat, as the view has it
                            top = view.get("to_beat") or view["pile"][-1]
                            assert reason.params["top"] == top[0], where
                        keys.add(reason.key)
    assert positions > 1000
    # the moves of every kind met their facts (the fallbacks among them)
    assert {"hint.sh_play_higher", "hint.sh_pickup_rather", "hint.sh_swap_special"} <= keys
    assert len(keys) >= 20, keys
