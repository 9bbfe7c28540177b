"""Sheepshead refusals: each code, and a refused action leaves the state exactly unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.cards import parse_card
from server.rules.base import Action, IllegalAction
from server.rules.sheepshead import Sheepshead
from tests.rules.ss_helpers import act, main_deal, new, play


def snapshot(game: Sheepshead) -> Any:
    return (
        game.view(None),
        [game.view(s) for s in range(5)],
        list(game.log),
        game.card_places(),
        game.deal_record(),
    )


def refuse(game: Sheepshead, seat: int, action: Action | str) -> IllegalAction:
    if isinstance(action, str):
        action = Action.from_str(action)
    before = snapshot(game)
    with pytest.raises(IllegalAction) as err:
        game.apply(seat, action)
    assert snapshot(game) == before
    assert err.value.seat == seat and err.value.phase == game.phase
    assert err.value.message and err.value.code in str(err.value)
    return err.value


def test_out_of_turn_wrong_phase_unknown_and_malformed() -> None:
    # rule SS-3.1, SS-5.1
    game = Sheepshead.new(5, 0, seed=1)
    assert refuse(game, 2, "pick").code == "not_your_turn"
    assert refuse(game, 1, "play 7C").code == "wrong_phase"
    assert refuse(game, 1, "double").code == "unknown_action"
    assert refuse(game, 1, "pick 7C").code == "malformed_action"
    assert refuse(game, 1, Action("pick", (), 2)).code == "malformed_action"
    game = main_deal()
    assert refuse(game, 2, "play AS").code == "not_your_turn"
    assert refuse(game, 1, "play 8S QC").code == "malformed_action"
    assert refuse(game, 1, "pass").code == "wrong_phase"


def test_bury_refusals() -> None:
    # rule SS-3.2
    game = new({1: "QC QS 7H 9S TS 8S"}, blind="AD KD")
    act(game, 1, "pick")
    assert refuse(game, 1, "bury 9S").code == "must_bury_two"
    assert refuse(game, 1, "bury 9S 9S").code == "must_bury_two"
    assert refuse(game, 1, "bury 9S TS 8S").code == "must_bury_two"
    assert refuse(game, 1, "bury 9S AS").code == "cards_not_held"
    act(game, 1, "bury 9S AD")


def test_calling_a_held_or_buried_ace_is_refused() -> None:
    # rule SS-4.1
    game = new({1: "QC QS 7H AC 7C 8S"}, blind="AS KD")
    act(game, 1, "pick")
    act(game, 1, "bury AS KD")
    assert refuse(game, 1, "call AC").code == "cannot_call"  # held
    assert refuse(game, 1, "call AS").code == "cannot_call"  # buried
    assert refuse(game, 1, "call KH").code == "cannot_call"  # not an ace
    assert refuse(game, 1, "call_unknown AH QC").code == "cannot_call"
    assert refuse(game, 1, "call").code == "malformed_action"
    assert refuse(game, 1, "alone 7H").code == "malformed_action"
    act(game, 1, "call AH")


def test_unknown_call_set_aside_card_must_be_held() -> None:
    # rule SS-4.3
    game = new({1: "AC QC QS QH QD JC"}, blind="JS JH")
    act(game, 1, "pick")
    act(game, 1, "bury JS JH")
    assert refuse(game, 1, "call_unknown AH JS").code == "cards_not_held"
    assert refuse(game, 1, "call_unknown AC QC").code == "cannot_call"
    act(game, 1, "call_unknown AH QC")
    assert parse_card("QC") not in game.hand(1) and len(game.hand(1)) == 5


def test_play_refusals_leave_state_untouched() -> None:
    # rule SS-5.2, SS-6.1
    game = main_deal()
    assert refuse(game, 1, "play AS").code == "cards_not_held"
    play(game, "8S")
    assert refuse(game, 2, "play JC").code == "must_follow_suit"
    play(game, "AS")
    assert refuse(game, 3, "play AH").code == "must_keep_called_card"
    play(game, "7C", "KS", "7D", "JD", "KD", "QH", "8C", "JS", "TC", "9C", "8H", "9D")
    assert refuse(game, 1, "play 7H").code == "called_suit_hold"


def test_game_over_refuses_everything() -> None:
    # rule SS-5.1
    game = Sheepshead.new(5, 0, seed=4)
    while not game.is_over():
        seat = game.to_act()[0]
        game.apply(seat, game.legal_actions(seat)[0])
    for seat in range(5):
        assert game.legal_actions(seat) == []
    assert game.to_act() == ()
    assert refuse(game, 1, "play 7C").code == "game_over"
