"""The tool that measures the strong Sheepshead bot's leaster budget
(server/tools/leaster_value.py): its games are the arena's, a game with a picker counts 0, and
each leaster is played from the same point with each factor."""

from __future__ import annotations

import pytest

from server.bots.sheepshead_strong import LEASTER_FACTOR, SheepsheadStrongBot
from server.tools.arena import DEFAULT_CAP, play_one
from server.tools.leaster_value import Leaster, play

pytestmark = pytest.mark.slow

SEATS = ["strong", "basic", "basic", "basic", "basic"]


def test_a_leaster_is_the_arenas_game_with_either_factor() -> None:
    # rule SS-8.2: game 39 of seed 2901 is a leaster that strong loses (-1) with 120 playouts a
    # card and wins (+4: one unit from each of the four others) with three times as many
    got = play(2901, 39)
    assert got == Leaster(39, True, (-1.0, 4.0))
    assert LEASTER_FACTOR == 3
    assert play_one("sheepshead", SEATS, 39, 2901, DEFAULT_CAP, cpu=True).units[0] == 4.0
    old = {"strong": lambda seed: SheepsheadStrongBot(seed, leaster_factor=1)}
    before = play_one("sheepshead", SEATS, 39, 2901, DEFAULT_CAP, cpu=True, factories=old)
    assert before.units[0] == -1.0


def test_a_game_with_a_picker_counts_nothing_and_stops_at_the_pick() -> None:
    # rule SS-3: somebody picked game 0 of seed 2901, so the leaster budget never plays in it
    assert play(2901, 0) == Leaster(0, False)
    assert play(2901, 39, factors=(3, 3)).units == (4.0, 4.0)  # the copies replay exactly
