"""Sheepshead cards, deal, picking, burying and calling (SS-1 … SS-4)."""

from __future__ import annotations

import pytest

from protocol.cards import card_codes, parse_card, parse_cards
from server.rules.base import Action, IllegalAction
from server.rules.sheepshead import Sheepshead
from server.rules.sheepshead_cards import (
    DECK32,
    POINTS,
    SUIT_CLASS,
    TRUMP,
    TRUMPS,
    trick_winner_index,
)
from tests.rules.ss_helpers import act, new

ALL_TRUMPS = "QC QS QH QD JC JS JH JD AD TD KD 9D 8D 7D"


def legal_strs(game: Sheepshead, seat: int) -> set[str]:
    return {a.to_str() for a in game.legal_actions(seat)}


# ---------------------------------------------------------------------------------- SS-1 cards


def test_deck_has_the_32_cards_seven_to_ace() -> None:
    # rule SS-1.1
    assert len(DECK32) == 32
    assert {c >> 2 for c in DECK32} == {parse_card(r + "C") >> 2 for r in "789TJQKA"}
    assert all(sum(1 for c in DECK32 if c & 3 == s) == 8 for s in range(4))
    assert parse_card("6C") not in DECK32 and parse_card("2H") not in DECK32


def test_fourteen_trumps_in_order() -> None:
    # rule SS-1.2
    assert card_codes(TRUMPS) == ALL_TRUMPS.split()
    # Every trump beats every lower trump whichever is led.
    for i, hi in enumerate(TRUMPS):
        for lo in TRUMPS[i + 1 :]:
            assert trick_winner_index([lo, hi]) == 1
            assert trick_winner_index([hi, lo]) == 0
    # The lowest trump beats the highest fail card.
    assert trick_winner_index(parse_cards("AC 7D")) == 1


def test_fail_suits_rank_a_t_k_9_8_7_and_queens_jacks_are_trump() -> None:
    # rule SS-1.3
    order = parse_cards("AH TH KH 9H 8H 7H")
    for i, hi in enumerate(order):
        for lo in order[i + 1 :]:
            assert trick_winner_index([lo, hi]) == 1
    for code in ("QC", "JC", "QS", "JH"):
        assert SUIT_CLASS[parse_card(code)] == TRUMP
    assert SUIT_CLASS[parse_card("7D")] == TRUMP
    # A jack of clubs does not follow a club lead: holding only JC among "clubs", any card goes.
    game = new({1: "AC QS QH QD JD 8S", 2: "JC 7H 8H 9H KH TH"}, blind="7S 9S")
    act(game, 1, "pass")
    for seat in (2, 3, 4, 0):
        act(game, seat, "pass")
    act(game, 1, "play AC")
    assert len(game.legal_actions(2)) == 6


def test_card_points_total_120() -> None:
    # rule SS-1.4
    expected = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
    for c in DECK32:
        assert POINTS[c] == expected[card_codes([c])[0][0]]
    assert sum(POINTS[c] for c in DECK32) == 120


# ---------------------------------------------------------------------------------- SS-2 deal


def test_explicit_deck_deals_six_each_from_dealers_left_then_blind() -> None:
    # rule SS-2.1
    deck = list(DECK32)
    game = Sheepshead.new(5, dealer=3, deck=deck)
    for i in range(5):
        seat = (3 + 1 + i) % 5
        assert sorted(game.hand(seat)) == sorted(deck[6 * i : 6 * i + 6])
    assert game.card_places()[deck[30]] == "blind"
    assert game.card_places()[deck[31]] == "blind"
    assert sum(len(game.hand(s)) for s in range(5)) == 30


def test_seeded_deal_is_reproducible_and_uses_its_own_random() -> None:
    # rule SS-2.1
    a = Sheepshead.new(5, 0, seed=42).deal_record()
    b = Sheepshead.new(5, 0, seed=42).deal_record()
    c = Sheepshead.new(5, 0, seed=43).deal_record()
    assert a == b and a != c
    assert sorted(parse_cards(a["deck"])) == list(DECK32)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 4}, "5 players"),
        ({"dealer": 5}, "dealer"),
        ({"deck": list(DECK32)[:31]}, "32 cards"),
        ({"options": {"double_on_bump": True}}, "bad sheepshead options"),
        ({"options": {"partner": "called_ten"}}, "bad sheepshead options"),
        ({"multiplier": 2}, "only the doubler"),
        ({"multiplier": 3, "options": {"no_pick": "doubler"}}, "1, 2, 4 or 8"),
    ],
)
def test_bad_construction_is_refused(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"num_players": 5, "dealer": 0, "seed": 1} | kwargs
    with pytest.raises(ValueError, match=message):
        Sheepshead.new(**args)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------- SS-3 picking


def test_pick_or_pass_in_turn_from_dealers_left() -> None:
    # rule SS-3.1
    game = Sheepshead.new(5, dealer=2, seed=9)
    order = []
    for _ in range(3):
        seat = game.to_act()[0]
        order.append(seat)
        assert legal_strs(game, seat) == {"pick", "pass"}
        assert all(game.legal_actions(s) == [] for s in range(5) if s != seat)
        act(game, seat, "pass")
    assert order == [3, 4, 0]
    events = act(game, 1, "pick")
    assert events[0].kind == "picked" and game.picker == 1
    # Nobody after the picker is asked: the picker buries next.
    assert game.phase == "bury" and game.to_act() == (1,)


def test_picker_takes_blind_and_buries_any_two_even_trumps() -> None:
    # rule SS-3.2
    game = new({1: "QC QS 7H 8H 9S TS"}, blind="AD KD")
    blind = parse_cards("AD KD")
    act(game, 1, "pick")
    assert sorted(game.hand(1)) == sorted(parse_cards("QC QS 7H 8H 9S TS AD KD"))
    assert len(game.legal_actions(1)) == 28  # any two of eight
    assert "bury QC QS" in legal_strs(game, 1)
    events = act(game, 1, "bury QC QS")
    assert [e.kind for e in events] == ["buried"] and events[0].cards == ()
    assert all(c in game.hand(1) for c in blind)
    assert game.card_places()[parse_card("QC")] == "buried"
    assert game.phase == "call"


def test_all_pass_is_a_leaster() -> None:
    # rule SS-3.3
    game = Sheepshead.new(5, dealer=0, seed=5)
    events = []
    for seat in (1, 2, 3, 4, 0):
        events += act(game, seat, "pass")
    assert [e.kind for e in events][-1] == "leaster"
    assert game.leaster and game.phase == "play" and game.picker is None
    assert game.to_act() == (1,)


# ---------------------------------------------------------------------------------- SS-4 calling


def called_options(hand: str, blind: str, bury: str) -> set[str]:
    game = new({1: hand}, blind=blind)
    act(game, 1, "pick")
    act(game, 1, "bury " + bury)
    return legal_strs(game, 1)


def test_call_ace_of_a_fail_suit_with_a_hold_card() -> None:
    # rule SS-4.1
    # Hearts: hold 7H, no AH -> AH. Spades: 9S and TS buried, no hold -> no AS. No clubs.
    assert called_options("QC JD 7H 8H 9S TS", "AD KD", "9S TS") == {"call AH", "alone"}
    # Holding an ace makes it uncallable; a buried ace can never be called either.
    assert called_options("QC JD 7H AC 7C 8S", "AH KD", "AH KD") == {"call AS", "alone"}


def test_called_card_holder_is_partner_and_never_the_picker() -> None:
    # rule SS-4.1
    game = new({1: "QC JD 7H 8H 9S TS", 3: "AH 7C 8C 9C KC TC"}, blind="AD KD")
    act(game, 1, "pick")
    act(game, 1, "bury 9S TS")
    events = act(game, 1, "call AH")
    assert events[0].kind == "called" and events[0].cards == (parse_card("AH"),)
    assert events[0].data == {"alone": False, "unknown": False}
    assert game.view(3)["you_are_partner"] is True
    assert all(game.view(s)["you_are_partner"] is False for s in (0, 1, 2, 4))
    with pytest.raises(IllegalAction) as err:
        game.apply(1, Action.from_str("call AH"))
    assert err.value.code == "wrong_phase"


def test_picker_with_three_fail_aces_calls_a_ten() -> None:
    # rule SS-4.2
    assert called_options("AC AS AH TH QC QS", "JD JC", "JD JC") == {
        "call TC",
        "call TS",
        "alone",
    }
    # A buried ten cannot be called.
    assert called_options("AC AS AH 7H QC QS", "TC JC", "TC JC") == {
        "call TS",
        "call TH",
        "alone",
    }


def test_unknown_card_call_when_only_fail_aces_or_no_fail() -> None:
    # rule SS-4.3
    options = called_options("AC QC QS QH QD JC", "JS JH", "JS JH")
    hand = ["AC", "QC", "QS", "QH", "QD", "JC"]
    assert options == {f"call_unknown {a} {c}" for a in ("AS", "AH") for c in hand} | {"alone"}
    # No fail card at all: any of the three aces.
    options = called_options("QC QS QH QD JC JS", "JH JD", "JH JD")
    assert {o.split()[1] for o in options if o != "alone"} == {"AC", "AS", "AH"}


def test_unknown_call_not_allowed_when_an_ordinary_call_is_possible() -> None:
    # rule SS-4.3
    game = new({1: "7H QC QS QH QD JC"}, blind="JS JH")
    act(game, 1, "pick")
    act(game, 1, "bury JS JH")
    assert legal_strs(game, 1) == {"call AH", "alone"}
    before = game.view(1)
    with pytest.raises(IllegalAction) as err:
        act(game, 1, "call_unknown AC QC")
    assert err.value.code == "cannot_call"
    assert game.view(1) == before


def test_alone_always_possible_and_forced_when_nothing_callable() -> None:
    # rule SS-4.4
    # Clubs hold their own ace, no other fail suit: nothing can be called.
    assert called_options("AC 7C QC QS QH QD", "JS JH", "JS JH") == {"alone"}
    game = new({1: "QC JD 7H 8H 9S TS"}, blind="AD KD")
    act(game, 1, "pick")
    act(game, 1, "bury 9S TS")
    events = act(game, 1, "alone")
    assert events[0].data == {"alone": True, "unknown": False}
    assert game.phase == "play" and game.called is None
    assert all(game.view(s)["you_are_partner"] is False for s in range(5))
