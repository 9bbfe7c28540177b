"""The game registry and the one series protocol both games' matches follow."""

from __future__ import annotations

import datetime
import random
from typing import get_args

import pytest

from protocol import messages as m
from protocol.messages import GameName
from server.rules.base import IllegalAction
from server.rules.registry import GAME_NAMES, GAMES, game_spec
from server.rules.series import Series, logs
from server.rules.shithead import Shithead
from server.store import history
from server.tools.sim.shithead import lowest_policy, play_game


def test_protocol_game_names_are_the_registry_names() -> None:
    assert get_args(GameName) == GAME_NAMES


def test_specs_agree_with_their_games() -> None:
    for name, spec in GAMES.items():
        assert spec.name == name == spec.game.name
        assert tuple(spec.seat_counts) == spec.game.seat_counts
        assert spec.options is m.OPTIONS_OF[name]  # the protocol's own model
    assert game_spec("shithead").match_length is None
    assert game_spec("sheepshead").match_length == 10  # rule SS-9.1


def test_unknown_game_and_bad_seat_counts_are_value_errors() -> None:
    with pytest.raises(ValueError, match="unknown game"):
        game_spec("poker")
    with pytest.raises(ValueError, match="5 players, not 4"):
        game_spec("sheepshead").new_series(4, seed=1)
    with pytest.raises(ValueError, match="2 to 5 players, not 6"):
        game_spec("shithead").new_series(6, seed=1)
    with pytest.raises(ValueError, match="no daily deal"):
        game_spec("shithead").new_series(3, seed=1, daily=datetime.date(2025, 1, 1))


def finish(series: Series, rng: random.Random) -> None:
    game = series.current
    if isinstance(game, Shithead):
        _, capped = play_game(game, lowest_policy, 20000)
        assert not capped
    while not game.is_over():
        (seat,) = game.to_act()
        game.apply(seat, rng.choice(game.legal_actions(seat)))


@pytest.mark.parametrize(("name", "players"), [("shithead", 3), ("sheepshead", 5)])
def test_one_series_protocol_for_both_games(name: str, players: int) -> None:
    # rule SH-2.1, SS-2.1: the deal passes left after every game.
    rng = random.Random(4)
    series = game_spec(name).new_series(players, seed=7)
    with pytest.raises(IllegalAction) as err:
        series.next_game()
    assert err.value.code == "game_not_over"
    for i in range(3):
        assert series.game_index == i and series.games_played() == i
        dealer = series.current.dealer
        finish(series, rng)
        assert series.games_played() == i + 1
        assert series.next_game().dealer == (dealer + 1) % players
    assert [len(log) for log in logs(series)][:3] == [len(g.log) for g in series.games()][:3]
    assert all(logs(series)[:3]) and logs(series)[3] == []
    assert len(series.totals()) == players
    assert sorted(seat for _, seat, _ in series.standings()) == list(range(players))


def test_a_sheepshead_match_ends_after_its_length() -> None:
    # rule SS-9.1: ten hands, then match_over.
    rng = random.Random(5)
    series = game_spec("sheepshead").new_series(5, seed=2)
    length = series.match_length
    assert length is not None
    for i in range(length):
        finish(series, rng)
        if i < length - 1:
            assert not series.is_over()
            series.next_game()
    assert series.is_over() and series.games_played() == length
    with pytest.raises(IllegalAction) as err:
        series.next_game()
    assert err.value.code == "match_over"
    assert sum(series.totals()) == 0


def test_the_hand_history_replays_every_game_of_the_one_registry_and_no_other() -> None:
    """One game registry: the history rebuilds a game through ``GAMES``, with no table of
    its own (an unknown game is the registry's refusal, naming the games it has)."""
    for spec in GAMES.values():
        game = spec.game.new(spec.min_players, seed=5)
        while not game.is_over():
            seat = game.to_act()[0]
            game.apply(seat, game.legal_actions(seat)[0])
        item = history.history_item(0, game, ["A"] * game.num_players)
        assert history.replay(item).outcome() == game.outcome()
        with pytest.raises(ValueError, match="games are shithead, sheepshead"):
            history.replay({**item, "game": "whist"})
    game_tables = [
        name
        for name, value in vars(history).items()
        if isinstance(value, dict) and set(value) & set(GAMES)
    ]
    assert not game_tables, game_tables


def test_a_series_is_dealt_under_its_options_and_refuses_another_games() -> None:
    # rule SH-7.1: the room's options reach every game of its series through the registry.
    rules = m.ShitheadOptions(seven_lower=True, eight_skips=True)
    series = game_spec("shithead").new_series(3, seed=2, options=rules)
    assert series.current.deal_record()["options"] == {"seven_lower": True, "eight_skips": True}
    assert game_spec("shithead").new_series(3, seed=2).current.deal_record()["options"] == {}
    with pytest.raises(ValueError, match="does not take SheepsheadOptions"):
        game_spec("shithead").new_series(3, seed=2, options=m.SheepsheadOptions())
    with pytest.raises(ValueError, match="does not take ShitheadOptions"):
        game_spec("sheepshead").new_series(5, seed=2, options=rules)
