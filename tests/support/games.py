"""Games played out by random legal actions, for the tests that need finished games."""

from __future__ import annotations

import random

from server.rules.base import Game


def play_out(game: Game, seed: int) -> Game:
    """Play ``game`` to its end: a random seat of those to act, a random legal action."""
    rng = random.Random(seed)
    while not game.is_over():
        seat = rng.choice(game.to_act())
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    return game
