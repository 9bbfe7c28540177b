"""SH-6.6: a game of Shithead cannot last for ever; it ends after its 1,000th play-phase action."""

from __future__ import annotations

import pytest

from protocol.views import outcome_of
from server.rules.base import Action
from server.rules.shithead import MAX_PLAY_ACTIONS, Shithead, ShitheadOutcome
from server.rules.shithead_series import ShitheadSeries
from tests.rules.sh_helpers import act, all_ready, kinds, refused
from tests.support.shithead_loop import highest, looping, lowest, play_out


def _position(game: Shithead) -> str:
    snap = game.snapshot()
    del snap["log"], snap["plays"]
    return repr(snap)


@pytest.mark.slow
def test_two_fixed_policies_passing_the_pile_end_at_the_cap() -> None:
    # rule SH-6.6: two fixed policies that pass the pile back and forth for ever
    game = looping()
    policies = (lowest, highest)
    seen: set[str] = set()
    repeated = False
    moves = 0
    while not game.is_over():
        position = _position(game)
        repeated = repeated or position in seen  # a position came back: a cycle, for ever
        seen.add(position)
        seat = game.turn
        events = game.apply(seat, policies[seat](game, seat))
        moves += 1
        assert moves <= MAX_PLAY_ACTIONS, "the game went past its cap"
    assert repeated
    assert moves == MAX_PLAY_ACTIONS
    assert kinds(events)[-1] == "game_over"
    assert events[-1].data == {"loser": events[-1].seat, "ended": "length_cap"}
    outcome = game.outcome()
    assert outcome is not None and outcome.ended == "length_cap"
    # the views say why it ended, for players and spectators alike
    for viewer in (None, 0, 1):
        view = game.view(viewer)
        assert view["phase"] == "over" and outcome_of(view)["ended"] == "length_cap"
    assert refused(game, 0, "pickup") == "game_over"


def test_swaps_and_ready_do_not_count() -> None:
    # rule SH-6.6: only the play phase's plays, pick-ups and turned cards count
    game = Shithead.new(2, dealer=0, seed=4)
    hand, up = game.hands[0][0], game.face_up[0][0]
    swap = Action("swap", (hand, up))
    for _ in range(3):
        game.apply(0, swap)
        swap = Action("swap", (up, hand))
        hand, up = up, hand
    all_ready(game)
    swaps = len(game.log)
    while not game.is_over():
        seat = game.turn
        game.apply(seat, lowest(game, seat))
    plays = len(game.log) - swaps
    outcome = game.outcome()
    assert outcome is not None
    assert plays <= MAX_PLAY_ACTIONS
    assert (plays == MAX_PLAY_ACTIONS) == (outcome.ended == "length_cap")


def test_the_loser_holds_most_cards() -> None:
    # rule SH-6.6: the active player holding most cards (hand, face-up, face-down) loses
    game = Shithead.from_position(
        hands=["3C 4C", "3D", "3H 4H 5H 6H"],
        face_up=["", "6D", ""],
        face_down=["- - -", "9D - -", "- - 9H"],
        pile="",
        turn=0,
        plays=MAX_PLAY_ACTIONS - 1,
    )
    events = act(game, 0, "play 3C")
    assert kinds(events) == ["played", "game_over"]
    outcome = game.outcome()
    assert outcome is not None and outcome.loser == 2 and outcome.ended == "length_cap"
    assert outcome.scores == (0, 0, 1)
    assert events[-1].data == {"loser": 2, "ended": "length_cap"}


def capped(hands: list[str], turn: int, action: str, out: tuple[int, ...] = ()) -> ShitheadOutcome:
    """The outcome when ``turn``'s ``action`` is the game's last play-phase action (SH-6.6),
    with only hands held (no face-up or face-down cards)."""
    n = len(hands)
    game = Shithead.from_position(
        hands=hands,
        face_up=[""] * n,
        face_down=["- - -"] * n,
        turn=turn,
        out=list(out),
        plays=MAX_PLAY_ACTIONS - 1,
    )
    act(game, turn, action)
    outcome = game.outcome()
    assert outcome is not None and outcome.ended == "length_cap"
    return outcome


def test_ties_go_to_the_first_clockwise_from_the_next_turn() -> None:
    # rule SH-6.6: seats 0 and 2 hold three cards each; seat 1 plays, seat 2 would be next
    assert capped(["3C 4C 5C", "6D 7D", "3H 4H 5H"], 1, "play 6D").loser == 2
    # seats out are not active: with seat 2 out, seat 0 holds most
    outcome = capped(["3C 4C 5C", "6D 7D", ""], 1, "play 6D", out=(2,))
    assert outcome.loser == 0 and outcome.out_order == (2,)


def test_a_burn_keeps_the_turn_for_the_tie() -> None:
    # rule SH-6.6: a 10 burns and its player would play again, so the count starts from them
    outcome = capped(["TC 3C 4C", "5D 6D", ""], 0, "play TC", out=(2,))
    assert outcome.loser == 0  # 2 cards each: seat 0's turn again


def test_a_game_that_ends_normally_says_so() -> None:
    # rule SH-6.4 beside SH-6.6: the last player holding cards loses, as before
    game = Shithead.from_position(
        hands=["3C", "5D 6D"], face_up=["", ""], face_down=["- - -", "- - -"], turn=0
    )
    events = act(game, 0, "play 3C")
    assert events[-1].data == {"loser": 1, "ended": "last_player"}
    outcome = game.outcome()
    assert outcome is not None and outcome.to_json()["ended"] == "last_player"


def test_the_series_counts_a_capped_game() -> None:
    # rule SH-6.6 with SH-6.5: a game ended by the cap counts one loss for its loser
    series = ShitheadSeries(2, seed=0, dealer=0)
    game = series.current
    all_ready(game)
    outcome = play_out(game).outcome()
    assert outcome is not None and outcome.ended == "length_cap"
    assert series.totals()[outcome.loser] == 1 and sum(series.totals()) == 1
    assert series.next_game().phase == "swap"  # the next game is dealt as after any other


def test_a_replayed_capped_game_ends_the_same() -> None:
    # rule SH-6.6: the cap is part of the rules core, so a replay of the log ends identically
    game = play_out(looping())
    again = Shithead.from_deal_record(game.deal_record())
    for seat, action in game.log:
        again.apply(seat, action)
    assert again.outcome() == game.outcome()
    assert game.clone().outcome() == game.outcome()
