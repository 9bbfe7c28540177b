"""Shithead: ranks, turns, burns, drawing, picking up (SH-1, SH-4)."""

from __future__ import annotations

from protocol.cards import card_code, card_codes, parse_cards
from server.rules.shithead import Shithead
from server.rules.shithead_deal import deck_from_deal
from tests.rules.sh_helpers import act, all_ready, kinds, legal, refused


def pos(hands: list[str], pile: str = "", stock: str = "", turn: int = 0) -> Shithead:
    """A play-phase position; each seat gets face-up and face-down cards from the unused ones."""
    used = set(parse_cards(" ".join([*hands, pile, stock])))
    pool = [card_code(c) for c in range(51, -1, -1) if c not in used]
    n = len(hands)
    up = [" ".join(pool[6 * s : 6 * s + 3]) for s in range(n)]
    down = [" ".join(pool[6 * s + 3 : 6 * s + 6]) for s in range(n)]
    return Shithead.from_position(
        hands=hands, face_up=up, face_down=down, pile=pile, stock=stock, turn=turn
    )


def test_ordinary_ranks_low_to_high() -> None:
    # rule SH-1.1: 3 4 5 6 7 8 9 J Q K A; suits never matter.
    game = pos(["JS 9H QC", "KD"], pile="9C")
    assert set(legal(game, 0)) == {"play 9H", "play JS", "play QC", "pickup"}
    assert refused(game, 0, "play 9H 9H") == "malformed_action"
    game = pos(["8S JS", "KD"], pile="JD")
    assert refused(game, 0, "play 8S") == "illegal_card"
    act(game, 0, "play JS")  # equal rank, another suit
    game = pos(["AS 3S", "KD"], pile="KC")
    assert legal(game, 0) == ["play AS", "pickup"]


def test_only_two_and_ten_are_special() -> None:
    # rule SH-1.2: no other card has a power: an 8, a 7, a jack do nothing but lie there.
    for rank in "3456789JQKA":
        game = pos([f"{rank}S 4C", "KD"], pile="3D")
        events = act(game, 0, f"play {rank}S")
        assert kinds(events) == ["played"]
        assert game.turn == 1 and card_codes(game.pile) == ["3D", f"{rank}S"]


def test_two_goes_on_anything_and_resets() -> None:
    # rule SH-1.3: a 2 on an ace; after it any rank, even a 3.
    game = pos(["2S 4C", "3D 5C"], pile="AC")
    act(game, 0, "play 2S")
    assert game.turn == 1
    assert set(legal(game, 1)) == {"play 3D", "play 5C", "pickup"}
    act(game, 1, "play 3D")
    assert card_codes(game.pile) == ["AC", "2S", "3D"]


def test_ten_goes_on_anything_and_burns() -> None:
    # rule SH-1.4, SH-4.3: a 10 on an ace burns the pile; the same player plays again onto
    # the empty pile.
    game = pos(["TS 4C 5C", "3D 5D"], pile="AC KC")
    events = act(game, 0, "play TS")
    assert kinds(events) == ["played", "burned"]
    assert events[1].data == {"count": 3, "reason": "ten"}
    assert game.pile == [] and game.turn == 0
    assert card_codes(game.burned[-3:]) == ["AC", "KC", "TS"]
    assert "pickup" not in legal(game, 0)  # nothing to pick up: must play
    assert refused(game, 0, "pickup") == "empty_pile"


def test_one_or_several_of_a_rank_at_least_as_high() -> None:
    # rule SH-4.1: one card or several of one rank, at least as high as the top card; the
    # number need not match the previous play.
    game = pos(["7S 7C 7H 9D", "8C 8D 8H 3D"], pile="6C 6D")
    assert {"play 7C", "play 7C 7H", "play 7C 7H 7S", "play 9D"} <= set(legal(game, 0))
    assert refused(game, 0, "play 7S 9D") == "mixed_ranks"
    act(game, 0, "play 7S")
    act(game, 1, "play 8C 8D 8H")
    assert card_codes(game.pile) == ["6C", "6D", "7S", "8C", "8D", "8H"]
    assert refused(game, 0, "play 7C") == "illegal_card"
    # any equivalent choice of suits is accepted, not only the listed representative
    game = pos(["7S 7C 7H", "8C"], pile="6C")
    act(game, 0, "play 7H 7S")
    assert card_codes(game.hands[0]) == ["7C"]


def test_two_and_ten_playable_on_anything_even_aces() -> None:
    # rule SH-4.2
    game = pos(["2D TD 3C", "KD"], pile="AS")
    assert set(legal(game, 0)) == {"play 2D", "play TD", "pickup"}


def test_four_sevens_across_plays_burn_the_seed_example() -> None:
    # rule SH-4.4: the seed's example: the pile ends 7♥ 7♣; you hold 7♦ 7♠; you play both, the
    # four sevens burn, you draw up to three, and you play again.
    deck = deck_from_deal(
        2,
        0,
        down=["2C 2D 2H", "2S 8C 8D"],
        up=["4C 4D 4H", "3C 5C 5D"],
        hand=["7D 7S KH", "7H 7C JD"],
        stock="9C 9D QS",
    )
    game = Shithead.new(2, 0, deck=deck)
    all_ready(game)
    assert game.turn == 1
    act(game, 1, "play 7H 7C")  # draws 9C, 9D
    assert card_codes(game.pile) == ["7H", "7C"]
    events = act(game, 0, "play 7D 7S")
    assert kinds(events) == ["played", "drew", "burned"]
    assert events[2].data == {"count": 4, "reason": "four"}
    assert game.pile == [] and game.turn == 0
    assert len(game.hands[0]) == 3 and {"KH", "QS"} <= set(card_codes(game.hands[0]))
    act(game, 0, "play KH")  # plays again onto the empty pile
    assert card_codes(game.pile) == ["KH"] and game.turn == 1


def test_four_of_a_kind_over_several_players_and_plays() -> None:
    # rule SH-4.4: four consecutive cards of one rank on top, from several plays and players.
    game = pos(["5C 5D", "5H QD", "5S 4C"], pile="3C")
    act(game, 0, "play 5C")
    act(game, 1, "play 5H")
    act(game, 2, "play 5S")
    events = act(game, 0, "play 5D")
    assert kinds(events) == ["played", "burned"]
    assert game.turn == 0 and game.pile == []
    # not consecutive: a 2 in between breaks the run
    game = pos(["5C 5D", "2H QD", "5S 5H"], pile="3C")
    act(game, 0, "play 5C")
    act(game, 1, "play 2H")
    act(game, 2, "play 5S 5H")
    events = act(game, 0, "play 5D")
    assert kinds(events) == ["played"] and game.turn == 1


def test_four_twos_burn_as_well() -> None:
    # rule SH-4.4: a rank is a rank, 2s included.
    game = pos(["2C 2D", "2H 2S QD"], pile="9C")
    act(game, 0, "play 2C 2D")
    events = act(game, 1, "play 2H 2S")
    assert "burned" in kinds(events) and game.turn == 1


def test_draw_back_to_three_before_anything_else() -> None:
    # rule SH-4.5: after every play, while the stock lasts, draw up to 3 before anything else;
    # a short stock gives what is left; a bigger hand is kept as it is.
    game = pos(["4C 5C 6C", "KD KC"], pile="3C", stock="QS QH")
    events = act(game, 0, "play 4C")
    assert kinds(events) == ["played", "drew"] and events[1].data == {"count": 1}
    assert sorted(card_codes(game.hands[0])) == ["5C", "6C", "QS"]
    game = pos(["4C 4D 6C", "KD KC"], pile="3C", stock="QS")
    act(game, 0, "play 4C 4D")
    assert sorted(card_codes(game.hands[0])) == ["6C", "QS"] and game.stock == []
    game = pos(["4C 5D 6C 7C 8C", "KD KC"], pile="3C", stock="QS")
    events = act(game, 0, "play 4C")
    assert kinds(events) == ["played"] and len(game.hands[0]) == 4 and len(game.stock) == 1
    # a burn: draw first, then play again
    game = pos(["TC 5D 6C", "KD KC"], pile="3C", stock="QS")
    events = act(game, 0, "play TC")
    assert kinds(events) == ["played", "drew", "burned"] and game.turn == 0


def test_pick_up_whenever_you_like_and_next_player_opens() -> None:
    # rule SH-4.6: picking up is always allowed (even with a legal play); the turn ends; the
    # next player opens the new empty pile with anything; an empty pile cannot be picked up.
    game = pos(["AC 5D", "3D 4C", "KS"], pile="3C 4H")
    events = act(game, 0, "pickup")
    assert kinds(events) == ["picked_up"]
    assert sorted(card_codes(game.hands[0])) == ["3C", "4H", "5D", "AC"]
    assert game.pile == [] and game.turn == 1
    assert set(legal(game, 1)) == {"play 3D", "play 4C"}
    assert refused(game, 1, "pickup") == "empty_pile"
    # picked-up cards were public and stay known to everyone
    assert game.view(2)["seats"][0]["known_in_hand"] == ["3C", "4H"]


def test_burned_cards_never_return_and_pickup_never_burns() -> None:
    # rule SH-4.7
    game = pos(["TC 6D 6C", "KD KC"], pile="3C 4C")
    act(game, 0, "play TC")
    burned = list(game.burned)
    act(game, 0, "play 6D")
    act(game, 1, "pickup")
    assert all(c in game.burned for c in burned)
    assert not set(burned) & set(game.hands[1])
    # a pick-up of a pile holding four of a kind on top burns nothing
    game2 = Shithead.from_position(
        hands=["", "KC"],
        face_up=["4S 9S", "AS AC AD"],
        face_down=["5C", "5S"],
        pile="4C 4D 4H",
        turn=0,
    )
    # seat 0 may add its face-up 4S (making four 4s on top) and pick up: no burn
    events = act(game2, 0, "pickup 9S")
    assert kinds(events) == ["picked_up"]
    assert sorted(card_codes(game2.hands[0])) == ["4C", "4D", "4H", "9S"]


def test_hand_first_even_if_it_empties() -> None:
    # rule SH-4.8: with cards in hand at the start of the turn, only hand cards may be played.
    game = Shithead.from_position(
        hands=["5C", "KC"],
        face_up=["9S 9D 6H", "AS"],
        face_down=["5D", "5S"],
        pile="4C",
        turn=0,
    )
    assert refused(game, 0, "play 9S") == "must_play_from_hand"
    assert refused(game, 0, "flip #0") == "must_play_from_hand"
    act(game, 0, "play 5C")  # hand now empty, but the turn is over: one play a turn
    assert game.turn == 1
    act(game, 1, "pickup")
    assert game.source == "face_up" and "play 9D" in legal(game, 0)


def test_burn_gives_new_turn_that_may_use_table_cards() -> None:
    # rule SH-4.8, SH-4.3: a burn starts a new turn; with the hand now empty, table cards play.
    game = Shithead.from_position(
        hands=["TC", "KC"],
        face_up=["9S 9D 6H", "AS"],
        face_down=["5D", "5S"],
        pile="4C",
        turn=0,
    )
    act(game, 0, "play TC")
    assert game.turn == 0 and game.source == "face_up"
    assert set(legal(game, 0)) == {"play 6H", "play 9D", "play 9D 9S"}
