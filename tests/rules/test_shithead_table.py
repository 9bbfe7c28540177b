"""Shithead: table cards, going out and the result (SH-5, SH-6)."""

from __future__ import annotations

from protocol.cards import card_codes
from server.rules.shithead import Shithead
from server.rules.shithead_series import ShitheadSeries
from server.tools.sim.shithead import lowest_policy, play_game
from tests.rules.sh_helpers import act, kinds, legal, refused


def test_face_up_cards_played_when_hand_and_stock_are_gone() -> None:
    # rule SH-5.1: no stock, no hand: play face-up cards, one or several of one rank.
    game = Shithead.from_position(
        hands=["", "KC"],
        face_up=["6S 6D 9H", "AS"],
        face_down=["5D 5H 5C", "5S"],
        pile="4C",
        turn=0,
    )
    assert game.source == "face_up"
    assert {"play 6D", "play 6D 6S", "play 9H"} <= set(legal(game, 0))
    assert refused(game, 0, "flip #0") == "must_play_face_up"
    act(game, 0, "play 6S 6D")
    assert card_codes(game.face_up[0]) == ["9H"] and game.turn == 1
    # with a stock still there, a hand is never empty at the start of a turn: no table play
    game = Shithead.from_position(
        hands=["3C", "KC"],
        face_up=["6S", "AS"],
        face_down=["5D", "5S"],
        pile="",
        stock="QH",
        turn=0,
    )
    assert refused(game, 0, "play 6S") == "must_play_from_hand"


def test_pickup_instead_of_a_legal_face_up_play_adds_a_face_up_card() -> None:
    # rule SH-5.2: choosing to pick up though a face-up card could be played: first add one
    # face-up card of your choice to the pile, then take it all.
    game = Shithead.from_position(
        hands=["", "KC"],
        face_up=["6S 3D 9H", "AS"],
        face_down=["5D 5H 5C", "4S"],
        pile="4C 6C",
        turn=0,
    )
    assert {"pickup 3D", "pickup 6S", "pickup 9H"} <= set(legal(game, 0))
    assert "pickup" not in legal(game, 0)
    assert refused(game, 0, "pickup") == "must_add_face_up"
    assert refused(game, 0, "pickup KC") == "cards_not_held"
    events = act(game, 0, "pickup 3D")
    assert kinds(events) == ["picked_up"]
    assert card_codes(events[0].cards) == ["4C", "6C", "3D"]
    assert sorted(card_codes(game.face_up[0])) == ["6S", "9H"]
    assert sorted(card_codes(game.hands[0])) == ["3D", "4C", "6C"]
    assert game.turn == 1 and game.pile == []
    # no playable face-up card: just pick up the pile
    game = Shithead.from_position(
        hands=["", "KC"],
        face_up=["6S 3D 9H", "AS"],
        face_down=["5D 5H 5C", "4S"],
        pile="4C QC",
        turn=0,
    )
    assert legal(game, 0) == ["pickup"]
    assert refused(game, 0, "pickup 3D") == "unexpected_card"
    act(game, 0, "pickup")
    assert sorted(card_codes(game.face_up[0])) == ["3D", "6S", "9H"]


def test_after_pickup_play_the_hand_before_the_table() -> None:
    # rule SH-5.3
    game = Shithead.from_position(
        hands=["", "KC QC"],
        face_up=["6S", "AS"],
        face_down=["5D", "4S"],
        pile="QD",
        turn=0,
    )
    act(game, 0, "pickup")
    act(game, 1, "play KC")
    assert game.source == "hand"
    assert refused(game, 0, "play 6S") == "must_play_from_hand"
    assert legal(game, 0) == ["pickup"]  # QD cannot beat KC; the face-up 6 is not an option


def test_face_down_flip_played_or_picked_up() -> None:
    # rule SH-5.4: exactly one face-down card, by position; no other action; a legal card stays
    # played with its effects; an illegal one goes to the hand with the whole pile.
    game = Shithead.from_position(
        hands=["", "KC"],
        face_up=["", "AS"],
        face_down=["4C 9C TC", "4S"],
        pile="7D",
        turn=0,
    )
    assert game.source == "face_down"
    assert legal(game, 0) == ["flip #0", "flip #1", "flip #2"]
    assert refused(game, 0, "pickup") == "must_flip"
    assert refused(game, 0, "play 9C") == "must_flip"
    assert refused(game, 0, "flip #3") == "bad_slot"
    events = act(game, 0, "flip #1")  # 9C on 7D: legal, stays
    assert kinds(events) == ["played"] and events[0].data == {"source": "face_down", "slot": 1}
    assert card_codes(game.pile) == ["7D", "9C"] and game.turn == 1
    act(game, 1, "play KC")
    assert refused(game, 0, "flip #1") == "bad_slot"  # already turned
    events = act(game, 0, "flip #0")  # 4C on KC: illegal, picked up with the pile
    assert kinds(events) == ["flipped", "picked_up"]
    assert sorted(card_codes(game.hands[0])) == ["4C", "7D", "9C", "KC"]
    assert game.turn == 1
    # a face-down 10 burns, and its player goes again
    game = Shithead.from_position(
        hands=["", "KC"],
        face_up=["", "AS"],
        face_down=["4C - TC", "4S"],
        pile="AD",
        turn=0,
    )
    events = act(game, 0, "flip #2")
    assert kinds(events) == ["played", "burned"] and game.turn == 0
    # a face-down 2 resets
    game = Shithead.from_position(
        hands=["", "3C"],
        face_up=["", "AS"],
        face_down=["2C 4D", "4S"],
        pile="AD",
        turn=0,
    )
    act(game, 0, "flip #0")
    assert legal(game, 1) == ["play 3C", "pickup"]


def test_going_out_when_everything_is_gone() -> None:
    # rule SH-6.1: no hand, no face-up, no face-down cards: out, and skipped from then on.
    game = Shithead.from_position(
        hands=["", "KC 4D", "5D 6D"],
        face_up=["", "AS", "AH"],
        face_down=["- 9C -", "4S", "3S"],
        pile="7D",
        turn=0,
    )
    events = act(game, 0, "flip #1")
    assert kinds(events) == ["played", "went_out"] and events[1].data == {"place": 1}
    assert game.turn == 1
    act(game, 1, "play KC")
    assert game.turn == 2
    act(game, 2, "pickup")
    assert game.turn == 1  # seat 0 is skipped
    assert game.view(None)["seats"][0]["out"] is True


def test_last_blind_card_must_be_legal_the_seed_example() -> None:
    # rule SH-6.2: the seed's example: a blind 4♣ on Q♥, the last card, is picked up with the
    # pile.
    game = Shithead.from_position(
        hands=["", "KC"],
        face_up=["", "AS"],
        face_down=["- 4C -", "4S"],
        pile="9D QH",
        turn=0,
    )
    events = act(game, 0, "flip #1")
    assert kinds(events) == ["flipped", "picked_up"]
    assert sorted(card_codes(game.hands[0])) == ["4C", "9D", "QH"]
    assert game.out == [] and not game.is_over()
    assert game.turn == 1


def test_last_card_burning_goes_out_and_next_opens() -> None:
    # rule SH-6.3: the last card burns the pile: out, and the next active player opens.
    game = Shithead.from_position(
        hands=["TC", "KC", "5D"],
        face_up=["", "AS", "AH"],
        face_down=["", "4S", "3S"],
        pile="7D",
        turn=0,
    )
    events = act(game, 0, "play TC")
    assert kinds(events) == ["played", "burned", "went_out"]
    assert game.turn == 1 and game.pile == []
    assert refused(game, 1, "pickup") == "empty_pile"


def test_last_player_holding_cards_loses() -> None:
    # rule SH-6.4: when one player still holds cards the game ends and that player lost; the
    # order of going out is recorded.
    game = Shithead.from_position(
        hands=["", "KC", "5D"],
        face_up=["", "", "AH"],
        face_down=["- 9C -", "", "3S"],
        pile="7D",
        turn=1,
        out=[],
    )
    events = act(game, 1, "play KC")
    assert kinds(events) == ["played", "went_out"]
    assert game.turn == 2
    act(game, 2, "pickup")
    events = act(game, 0, "flip #1")
    assert kinds(events) == ["played", "went_out", "game_over"]
    assert game.is_over() and game.phase == "over" and game.to_act() == ()
    outcome = game.outcome()
    assert outcome is not None and outcome.loser == 2 and outcome.out_order == (1, 0)
    assert outcome.scores == (0, 0, 1)
    assert refused(game, 2, "play 5D") == "game_over"
    assert game.view(None)["outcome"] == {
        "loser": 2,
        "out_order": [1, 0],
        "losses": [0, 0, 1],
        "ended": "last_player",
    }


def test_series_counts_losses_and_shares_places() -> None:
    # rule SH-6.5: one loss per game for its loser; ranked by fewest losses; ties share.
    series = ShitheadSeries(3, seed=8)
    losers = []
    for _ in range(6):
        _, capped = play_game(series.current, lowest_policy, 20000)
        assert not capped
        outcome = series.current.outcome()
        assert outcome is not None
        losers.append(outcome.loser)
        series.next_game()
    assert series.totals() == [losers.count(s) for s in range(3)]
    assert sum(series.totals()) == 6
    places = series.standings()
    for place, _seat, losses in places:
        assert place == 1 + sum(1 for t in series.totals() if t < losses)
    series2 = ShitheadSeries(2, seed=1)
    assert series2.standings() == [(1, 0, 0), (1, 1, 0)]  # equal totals share a place
