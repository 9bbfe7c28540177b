"""The completed tricks are built once per state of a hand and shared by every view of it: the
views stay exactly what a fresh build gives, at every step, for every seat and spectator, and a
view's lists are its own."""

from __future__ import annotations

import copy
import random

import pytest

from server.rules.sheepshead import Sheepshead


@pytest.mark.parametrize("seed", range(6))
def test_views_with_the_shared_trick_history_equal_fresh_ones(seed: int) -> None:
    rng = random.Random(seed)
    game = Sheepshead.new(5, seed % 5, seed=seed)
    while True:
        fresh = copy.deepcopy(game)  # no trick history built yet
        fresh.tricks_memo = None
        for seat in [None, 0, 1, 2, 3, 4]:
            assert game.view(seat) == fresh.view(seat)
        if game.is_over():
            break
        seat = game.to_act()[0]
        legal = game.legal_actions(seat)
        game.apply(seat, legal[rng.randrange(len(legal))])
    assert game.view(0)["tricks"] and game.view(0)["result"] is not None


def test_each_view_has_its_own_lists() -> None:
    game = Sheepshead.new(5, 0, seed=3)
    rng = random.Random(3)
    while len(game.tricks) < 2:
        seat = game.to_act()[0]
        legal = game.legal_actions(seat)
        game.apply(seat, legal[rng.randrange(len(legal))])
    a, b = game.view(0), game.view(1)
    assert a["tricks"] == b["tricks"] and a["tricks"] is not b["tricks"]
    assert a["visible_points"] is not b["visible_points"]
    a["tricks"].clear()
    assert game.view(2)["tricks"] == b["tricks"] != []
