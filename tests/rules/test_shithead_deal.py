"""Shithead: the deal, the swap phase, and who starts (SH-2, SH-3)."""

from __future__ import annotations

import pytest

from protocol.cards import card_codes, parse_cards
from server.rules.shithead import Shithead
from server.rules.shithead_deal import deck_from_deal
from server.rules.shithead_series import ShitheadSeries
from tests.rules.sh_helpers import act, all_ready, legal, refused


def test_deal_order_from_explicit_deck() -> None:
    # rule SH-2.2: one card at a time clockwise from the dealer's left: 3 rounds face down,
    # 3 face up, 3 into the hand; the rest is the stock, top first.
    deck = list(range(52))
    game = Shithead.new(3, dealer=1, deck=deck)
    # Dealing order is seat 2, seat 0, seat 1.
    assert [c for c in game.face_down[2]] == [0, 3, 6]
    assert [c for c in game.face_down[0]] == [1, 4, 7]
    assert [c for c in game.face_down[1]] == [2, 5, 8]
    assert game.face_up[2] == [9, 12, 15]
    assert game.hands[1] == [20, 23, 26]
    assert game.stock[-1] == 27 and len(game.stock) == 52 - 27
    assert game.stock[0] == 51


def test_deal_from_seed_is_deterministic_and_complete() -> None:
    # rule SH-2.2
    a = Shithead.new(5, dealer=2, seed=99)
    b = Shithead.new(5, dealer=2, seed=99)
    assert a.snapshot() == b.snapshot()
    assert len(a.stock) == 52 - 45
    assert all(len(h) == 3 for h in a.hands)


def test_series_first_dealer_random_then_rotates_left() -> None:
    # rule SH-2.1: the first dealer is drawn at random (from the seed), then passes left.
    dealers = {ShitheadSeries(4, seed=s).dealer for s in range(40)}
    assert dealers == {0, 1, 2, 3}
    series = ShitheadSeries(4, seed=11)
    first = series.dealer
    for i in range(1, 6):
        game = series.current
        _finish_any(game)
        series.next_game()
        assert series.current.dealer == (first + i) % 4


def _finish_any(game: Shithead) -> None:
    from server.tools.sim.shithead import lowest_policy, play_game

    _, capped = play_game(game, lowest_policy, 20000)
    assert not capped


def test_swap_phase_exchanges_hand_and_face_up() -> None:
    # rule SH-2.3: free exchanges between hand and face-up, always keeping three face up;
    # face-down cards cannot be exchanged; play starts when every seat is ready.
    deck = deck_from_deal(
        2,
        0,
        down=["2C 2D 2H", "2S 3C 3D"],
        up=["4C 4D 4H", "4S 5C 5D"],
        hand=["6C 6D AH", "6S 7C 7D"],
    )
    game = Shithead.new(2, 0, deck=deck)
    # (the phase read from the snapshot: mypy would keep game.phase narrowed past act)
    assert game.snapshot()["phase"] == "swap" and game.to_act() == (0, 1)
    assert "ready" in legal(game, 0)
    act(game, 0, "swap AH 4C")
    assert card_codes(game.face_up[0]) == ["AH", "4D", "4H"]
    assert sorted(card_codes(game.hands[0])) == ["4C", "6C", "6D"]
    act(game, 0, "swap 4C AH")  # and back again, as often as they like
    assert card_codes(game.face_up[0]) == ["4C", "4D", "4H"]
    assert len(game.face_up[0]) == 3
    assert refused(game, 0, "swap 6C 2D") == "cards_not_held"  # 2D is face down
    assert refused(game, 0, "swap 6C") == "malformed_action"
    assert refused(game, 0, "play 6C") == "wrong_phase"
    act(game, 0, "ready")
    assert game.to_act() == (1,)
    assert refused(game, 0, "swap 6C 4C") == "already_ready"
    assert refused(game, 0, "ready") == "already_ready"
    assert game.snapshot()["phase"] == "swap"
    act(game, 1, "ready")
    assert game.phase == "play"


def test_starter_is_decided_before_swaps() -> None:
    # rule SH-2.3, SH-3.1: who starts is read off the deal, before any swap.
    deck = deck_from_deal(
        2,
        0,
        down=["2C 2D 2H", "2S 8C 8D"],
        up=["4C 4D 4H", "4S 3C 5D"],
        hand=["6C 3D AH", "6S 7C 7D"],
    )
    game = Shithead.new(2, 0, deck=deck)
    assert game.starter == 1
    act(game, 1, "swap 6S 3C")  # the face-up 3 goes into the hand
    all_ready_rest(game)
    assert game.turn == 1


def all_ready_rest(game: Shithead) -> None:
    for seat in game.to_act():
        act(game, seat, "ready")


def test_first_face_up_three_in_dealing_order_starts() -> None:
    # rule SH-3.1: the first face-up 3 dealt, in dealing order (round by round from the
    # dealer's left), decides: seat 2's 3 in the first face-up round beats seat 1's in round 2.
    deck = deck_from_deal(
        3,
        0,
        down=["2C 2D 2H", "2S 8C 8D", "8H 8S 9C"],
        up=["4C 4D 4H", "4S 3C 5D", "3D 5C 5H"],
        hand=["6C 3H AH", "6S 7C 7D", "6D 6H 3S"],
    )
    game = Shithead.new(3, 0, deck=deck)
    assert game.starter == 2


def test_three_in_hand_first_clockwise_from_dealers_left() -> None:
    # rule SH-3.2: no face-up 3: a 3 in hand, first clockwise from the dealer's left.
    deck = deck_from_deal(
        4,
        1,
        down=["2C 2D 2H", "2S 8C 8D", "8H 8S 9C", "9D 9H 9S"],
        up=["4C 4D 4H", "4S 5C 5D", "KD 5S 5H", "6D 6H 6S"],
        hand=["3C 7H 7S", "JC JD JH", "JS QC 3D", "QD QH QS"],
    )
    game = Shithead.new(4, 1, deck=deck)
    # Clockwise from the dealer's left: 2, 3, 0, 1 -> seat 2 holds 3D, seat 0 3C: seat 2.
    assert game.starter == 2


def test_no_threes_look_for_fours_and_skip_twos_and_tens() -> None:
    # rule SH-3.3: no 3 face up or in hand: the same search with 4, then 5, …; 2s and 10s
    # never decide.
    deck = deck_from_deal(
        2,
        0,
        down=["3C 3D 3H", "3S 8C 8D"],
        up=["2C TD 9H", "TC 2D 5D"],
        hand=["6C 7H 4S", "6S 7C 7D"],
    )
    game = Shithead.new(2, 0, deck=deck)
    assert game.starter == 0  # the only 4 is in seat 0's hand; no face-up 4
    deck = deck_from_deal(
        2,
        1,
        down=["3C 3D 3H", "3S 4C 4D"],
        up=["2C TD 9H", "TC 2D 5D"],
        hand=["6C 7H 4S", "6S 7C 7D"],
    )
    game = Shithead.new(2, 1, deck=deck)
    assert game.starter == 0  # 4S in hand (no face-up 4)
    deck = deck_from_deal(
        2,
        1,
        down=["3C 3D 3H", "3S 4C 4D"],
        up=["2C TD 9H", "TC 2D 4H"],
        hand=["6C 7H 4S", "6S 7C 7D"],
    )
    game = Shithead.new(2, 1, deck=deck)
    assert game.starter == 1  # the face-up 4H beats seat 0's 4 in hand


def test_starter_opens_with_any_card() -> None:
    # rule SH-3.4: the starter need not play the 3; any card or set of one rank from the hand.
    deck = deck_from_deal(
        2,
        0,
        down=["2C 2D 2H", "2S 8C 8D"],
        up=["4C 4D 4H", "3C 5C 5D"],
        hand=["6C 3D AH", "KS KC 7D"],
    )
    game = Shithead.new(2, 0, deck=deck)
    all_ready(game)
    assert game.turn == 1
    assert {"play KC", "play KC KS", "play 7D"} <= set(legal(game, 1))
    events = act(game, 1, "play KS KC")
    assert events[0].kind == "played"
    assert card_codes(game.pile) == ["KS", "KC"]
    assert game.turn == 0


def test_explicit_deck_must_hold_each_card_once() -> None:
    # rule SH-2.2: an explicit deck is the 52 cards, each once.
    with pytest.raises(ValueError):
        Shithead.new(2, 0, deck=[0, *range(51)])
    with pytest.raises(ValueError):
        deck_from_deal(
            2,
            0,
            down=["2C 2C 2H", "2S 8C 8D"],
            up=["4C 4D 4H", "3C 5C 5D"],
            hand=["6C 3D AH", "KS KC 7D"],
        )
    with pytest.raises(ValueError):
        Shithead.new(6, 0, seed=1)
    assert Shithead.new(2, 0, deck=parse_cards(Shithead.new(2, 0, seed=4).deal_record()["deck"]))
