"""Shithead's house rules (SH-7): each rule on a known position, then every option set in
random games against an oracle written from the book (what may be played, who is skipped)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.cards import card_codes
from protocol.errors import ErrorCode
from protocol.messages import ShitheadOptions
from server.rules.base import Action
from server.rules.shithead import Shithead
from server.rules.shithead_deal import deck_from_deal
from server.rules.shithead_series import ShitheadSeries
from tests.rules.sh_helpers import act, all_ready, kinds, legal, refused
from tests.support.shithead import MAX_ACTIONS, choose, legal_or_unchanged

SEVEN = ShitheadOptions(seven_lower=True)
EIGHT = ShitheadOptions(eight_skips=True)
GLASS = ShitheadOptions(three_invisible=True)
option_sets = st.builds(
    ShitheadOptions,
    seven_lower=st.booleans(),
    eight_skips=st.booleans(),
    three_invisible=st.booleans(),
)


def position(
    hands: list[str],
    pile: str,
    options: ShitheadOptions,
    *,
    turn: int = 0,
    out: tuple[int, ...] = (),
    face_down: list[str] | None = None,
) -> Shithead:
    n = len(hands)
    return Shithead.from_position(
        hands=hands,
        face_up=[""] * n,
        face_down=face_down or ["JS", "JH", "JC", "JD", "QS"][:n],
        pile=pile,
        turn=turn,
        out=out,
        options=options,
    )


def plays(game: Shithead, seat: int = 0) -> list[str]:
    return [" ".join(card_codes(cs)) for cs in game.play_sets(seat)]


# --------------------------------------------------------------------- SH-7.1 the options


def test_every_option_off_is_the_book_game() -> None:
    # rule SH-7.1: with every option off the game is exactly SH-1…SH-6.
    for seed in range(20):
        book = Shithead.new(4, 1, seed=seed)
        off = Shithead.new(4, 1, seed=seed, options=ShitheadOptions())
        assert off.snapshot() == book.snapshot()
        assert off.deal_record() == book.deal_record()
        assert book.deal_record()["options"] == {}  # the record is as before house rules


def test_options_apply_to_every_game_of_the_series_and_are_recorded() -> None:
    # rule SH-7.1: the options apply to every game of the room's series and never change.
    rules = ShitheadOptions(seven_lower=True, three_invisible=True)
    series = ShitheadSeries(3, seed=4, options=rules)
    for _ in range(3):
        game = series.current
        assert game.options == rules
        assert game.deal_record()["options"] == {"seven_lower": True, "three_invisible": True}
        rebuilt = Shithead.from_deal_record(game.deal_record())
        assert rebuilt.options == rules and rebuilt.snapshot() == game.snapshot()
        rng = random.Random(1)
        while not game.is_over():
            seat = game.to_act()[0]
            game.apply(seat, choose(game, seat, rng))
        series.next_game()


def test_an_unknown_option_or_value_is_refused() -> None:
    with pytest.raises(ValueError, match="jokers"):
        Shithead.new(3, seed=1, options={"jokers": True})
    with pytest.raises(ValueError):
        Shithead.new(3, seed=1, options={"seven_lower": "sometimes"})


# --------------------------------------------------------------------- SH-7.2 seven_lower


def test_on_a_seven_only_three_to_seven_or_a_two_or_a_ten() -> None:
    # rule SH-7.2: while a 7 is the card to beat, the next play is an ordinary 3 to 7, a 2 or
    # a 10; a 9 is refused and nothing changes.
    game = position(["3C 5D 7S 9D AH 2H TS", "4C"], "KD 7H", SEVEN)
    assert plays(game) == ["3C", "5D", "7S", "2H", "TS"]
    assert refused(game, 0, "play 9D") == ErrorCode.ILLEGAL_CARD
    assert refused(game, 0, "play AH") == ErrorCode.ILLEGAL_CARD
    book = position(["3C 5D 7S 9D AH 2H TS", "4C"], "KD 7H", ShitheadOptions())
    assert plays(book) == ["7S", "9D", "AH", "2H", "TS"]  # without it a 7 is ordinary


def test_a_seven_is_played_the_ordinary_way_and_a_seven_on_a_seven_keeps_it() -> None:
    # rule SH-7.2: a 7 itself goes on a top card of 7 or lower; another 7 keeps the restriction.
    game = position(["7S 8C", "7D 6H 9C"], "8D", SEVEN)
    assert plays(game) == ["8C"]
    game = position(["7S 8C", "7D 6H 9C"], "5D", SEVEN)
    act(game, 0, "play 7S")
    act(game, 1, "play 7D")
    assert game.view(0)["to_beat"] == "7D"
    assert plays(game, 0) == []
    assert legal(game, 0) == ["pickup"]


def test_a_two_on_a_seven_frees_the_pile() -> None:
    # rule SH-7.2, SH-1.3: after a 2 any rank may be played again.
    game = position(["2C 4D", "AS KD"], "7H", SEVEN)
    act(game, 0, "play 2C")
    assert plays(game, 1) == ["KD", "AS"]


# --------------------------------------------------------------------- SH-7.3 eight_skips


def test_an_eight_skips_the_next_player_with_an_event() -> None:
    # rule SH-7.3: one 8 makes the next active player lose their turn; the events say so.
    game = position(["8C 4D", "5C", "6C", "7C"], "5D", EIGHT)
    events = act(game, 0, "play 8C")
    assert kinds(events) == ["played", "skipped"]
    assert events[1].seat == 1
    assert game.turn == 2
    # the view's turn agrees
    assert game.view(None)["turn"] == 2


def test_k_eights_skip_k_players_and_out_players_are_not_counted() -> None:
    # rule SH-7.3: k eights skip the next k active players; players who are out are not counted.
    game = position(
        ["8C 8D 4D", "", "6C", "7C", "9C"],
        "5D",
        EIGHT,
        out=(1,),
        face_down=["KS", "-", "KH", "KC", "KD"],
    )
    events = act(game, 0, "play 8C 8D")
    assert [(e.kind, e.seat) for e in events[1:]] == [("skipped", 2), ("skipped", 3)]
    assert game.turn == 4


def test_with_two_players_an_eight_gives_its_player_the_next_turn() -> None:
    # rule SH-7.3: the count goes round the table: two active players, one 8, same player again.
    game = position(["8C 4D", "5C"], "5D", EIGHT)
    events = act(game, 0, "play 8C")
    assert [(e.kind, e.seat) for e in events] == [("played", 0), ("skipped", 1)]
    assert game.turn == 0
    # three eights among three active players: round the table once, then the next one
    game = position(["8C 8D 8H 4D", "5C", "6C"], "5D", EIGHT)
    act(game, 0, "play 8C 8D 8H")
    assert game.turn == 1


def test_four_eights_burn_instead_of_skipping() -> None:
    # rule SH-7.3, SH-4.4: a play that completes four 8s burns: the same player plays again.
    game = position(["8C 8D 4D", "5C", "6C"], "5D 8H 8S", EIGHT)
    events = act(game, 0, "play 8C 8D")
    assert "skipped" not in kinds(events) and "burned" in kinds(events)
    assert game.turn == 0


def test_an_eight_turned_face_down_skips_too() -> None:
    # rule SH-7.3, SH-5.4: an 8 played from a face-down card skips.
    game = position(["", "5C", "6C"], "5D", EIGHT, face_down=["8C 9D", "KS", "KH"])
    events = act(game, 0, "flip #0")
    assert [(e.kind, e.seat) for e in events] == [("played", 0), ("skipped", 1)]
    assert game.turn == 2


def test_without_the_option_an_eight_skips_nobody() -> None:
    game = position(["8C 4D", "5C", "6C"], "5D", ShitheadOptions())
    assert kinds(act(game, 0, "play 8C")) == ["played"]
    assert game.turn == 1


# --------------------------------------------------------------------- SH-7.4 three_invisible


def test_a_glass_three_goes_on_anything_and_the_card_under_it_counts() -> None:
    # rule SH-7.4: a 3 may be played on anything; the card to beat is the topmost that is not
    # a 3.
    game = position(["3C 4D", "QD KD AH"], "KH", GLASS)
    assert plays(game) == ["3C"]
    act(game, 0, "play 3C")
    assert game.view(1)["to_beat"] == "KH" and game.view(1)["pile"][-1] == "3C"
    assert plays(game, 1) == ["KD", "AH"]
    assert refused(game, 1, "play QD") == ErrorCode.ILLEGAL_CARD


def test_glass_threes_over_a_two_or_nothing_allow_any_rank() -> None:
    # rule SH-7.4: if there is no card under the 3s, or it is a 2, any rank may be played.
    game = position(["4C", "QD"], "3H 3S", GLASS)
    assert game.to_beat is None and plays(game) == ["4C"]
    game = position(["4C", "QD"], "2H 3S", GLASS)
    assert plays(game) == ["4C"]


def test_four_glass_threes_still_burn() -> None:
    # rule SH-7.4, SH-4.4: four 3s on top burn.
    game = position(["3C 3D 9C", "QD"], "KH 3H 3S", GLASS)
    events = act(game, 0, "play 3C 3D")
    assert "burned" in kinds(events) and game.pile == [] and game.turn == 0


def test_a_glass_three_over_a_seven_keeps_the_seven_rule() -> None:
    # rule SH-7.4 with SH-7.2: the card to beat under the 3 is the 7, so 3 to 7 only.
    both = ShitheadOptions(seven_lower=True, three_invisible=True)
    game = position(["3C 4C", "5D 9D"], "7H", both)
    act(game, 0, "play 3C")
    assert plays(game, 1) == ["5D"]


def test_a_three_is_ordinary_without_the_option() -> None:
    game = position(["3C 4D", "QD"], "KH", ShitheadOptions())
    assert plays(game) == []


def test_with_glass_threes_the_fours_decide_who_starts() -> None:
    # rule SH-7.4, SH-3.3: 3s never decide who starts; SH-3.1 begins with the 4s.
    deck = deck_from_deal(
        2,
        0,
        down=["KC KD KH", "QC QD QH"],
        up=["9C 9D 4H", "3C 9H 9S"],
        hand=["JC JD JH", "JS QS KS"],
    )
    assert Shithead.new(2, 0, deck=deck).starter == 1  # the book: seat 1's face-up 3
    assert Shithead.new(2, 0, deck=deck, options=GLASS).starter == 0  # seat 0's face-up 4
    deck = deck_from_deal(
        2,
        0,
        down=["KC KD KH", "QC QD QH"],
        up=["9C 9D 9H", "3C 9S 8S"],
        hand=["JC JD 4H", "JS QS KS"],
    )
    assert Shithead.new(2, 0, deck=deck, options=GLASS).starter == 0  # the 4 in hand


def test_a_deal_of_only_twos_threes_and_tens_still_has_a_starter() -> None:
    # rule SH-7.4 (settled in docs/rules.md): with nothing above a 3 dealt up or in hand, the
    # 3s decide after all, as SH-3.1: no deal is refused.
    deck = deck_from_deal(
        2,
        0,
        down=["KC KD KH", "QC QD QH"],
        up=["2C 2D 2H", "3C 3D 3H"],
        hand=["TC TD TH", "2S 3S TS"],
    )
    game = Shithead.new(2, 0, deck=deck, options=GLASS)
    assert game.starter == 1  # seat 1's face-up 3, as SH-3.1
    all_ready(game)
    assert game.phase == "play"


# --------------------------------------------------------------------- SH-7.5 views


def test_the_view_shows_the_rules_in_force() -> None:
    # rule SH-7.5: every view shows the house rules in force.
    rules = ShitheadOptions(eight_skips=True)
    game = Shithead.new(3, 0, seed=5, options=rules)
    for seat in (None, 0, 1, 2):
        assert game.view(seat)["options"] == {
            "seven_lower": False,
            "eight_skips": True,
            "three_invisible": False,
        }


# --------------------------------------------------------------------- every option set


def playable(pile: list[str], rules: ShitheadOptions, rank: str) -> bool:
    """The book's answer (SH-4.1, SH-4.2, SH-7.2, SH-7.4), written without the core's tables."""
    if rank in "2T" or (rules.three_invisible and rank == "3"):
        return True
    under = [c[0] for c in pile]
    if rules.three_invisible:
        while under and under[-1] == "3":
            under.pop()
    if not under or under[-1] == "2":
        return True
    order = "3456789JQKA"
    if rules.seven_lower and under[-1] == "7":
        return rank in "34567"
    return order.index(rank) >= order.index(under[-1])


def skip_turn(game_before: Shithead, seat: int, k: int, out: list[int]) -> int:
    s = seat
    for _ in range(k + 1):
        s = (s + 1) % game_before.num_players
        while s in out:
            s = (s + 1) % game_before.num_players
    return s


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32), rules=option_sets)
def test_random_games_under_every_option_set_follow_the_book(
    players: int, seed: int, rules: ShitheadOptions
) -> None:
    # rule SH-7.1: options combine freely. rule SH-7.5: the legal plays reflect them.
    rng = random.Random(seed)
    game = Shithead.new(players, rng.randrange(players), seed=seed, options=rules)
    for _ in range(MAX_ACTIONS):
        if game.is_over():
            break
        seat = game.to_act()[rng.randrange(len(game.to_act()))]
        if game.phase == "play" and game.source != "face_down":
            pile = card_codes(game.pile)
            held = game.hands[seat] if game.source == "hand" else game.face_up[seat]
            want = {c[0] for c in card_codes(held) if playable(pile, rules, c[0])}
            assert {cs[0][0] for cs in map(card_codes, game.play_sets(seat))} == want
            # every card of the place it plays from is accepted exactly when the book allows
            for c in held:
                ok = playable(pile, rules, card_codes([c])[0][0])
                assert game.is_legal(seat, Action("play", (c,))) == ok
        before_pile = card_codes(game.pile)
        action = choose(game, seat, rng)
        events = game.apply(seat, action)
        skipped = [e.seat for e in events if e.kind == "skipped"]
        if not rules.eight_skips:
            assert not skipped
        first = events[0]
        if game.phase == "play" and first.kind == "played":
            rank = card_codes(first.cards)[0][0]
            assert playable(before_pile, rules, rank)
            burned = any(e.kind == "burned" for e in events)
            if rules.eight_skips and rank == "8" and not burned:
                # rule SH-7.3: k eights skip the next k active players
                assert len(skipped) == len(first.cards)
                assert game.turn == skip_turn(game, seat, len(first.cards), game.out)
            else:
                assert not skipped
        elif first.kind == "flipped":
            assert not playable(before_pile, rules, card_codes(first.cards)[0][0])
    rebuilt = Shithead.replay(game.deal_record(), game.log)
    assert rebuilt.snapshot() == game.snapshot() and rebuilt.options == rules


actions = st.builds(
    Action,
    kind=st.sampled_from(["play", "pickup", "flip", "ready"]),
    cards=st.lists(st.integers(0, 51), max_size=3).map(tuple),
    slot=st.integers(-1, 3),
)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(
    players=st.integers(2, 5),
    seed=st.integers(0, 2**32),
    rules=option_sets,
    stop=st.integers(0, 300),
    tries=st.lists(st.tuples(st.integers(0, 4), actions), min_size=1, max_size=20),
)
def test_under_every_option_set_any_action_is_legal_or_changes_nothing(
    players: int,
    seed: int,
    rules: ShitheadOptions,
    stop: int,
    tries: list[tuple[int, Action]],
) -> None:
    rng = random.Random(seed)
    game = Shithead.new(players, rng.randrange(players), seed=seed, options=rules)
    for _ in range(stop):
        if game.is_over():
            break
        seat = game.to_act()[rng.randrange(len(game.to_act()))]
        game.apply(seat, choose(game, seat, rng))
    for seat, action in tries:
        legal_or_unchanged(game, seat, action)
