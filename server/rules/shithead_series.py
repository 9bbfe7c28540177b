"""A Shithead series (SH-2.1, SH-6.5): games in a row at one table, the deal passing left, one
loss per game for its loser, players ranked by fewest losses.

>>> series = ShitheadSeries(3, seed=5)
>>> first = series.dealer
>>> game = series.current
>>> game.dealer == first
True
"""

from __future__ import annotations

import random

from server.rules.shithead import Shithead, ShitheadOutcome


class ShitheadSeries:
    """Consecutive games of Shithead; the room's unit of play for this game."""

    def __init__(self, players: int, *, seed: int | None = None, dealer: int | None = None) -> None:
        self.players = players
        self._rng = random.Random(seed)
        # SH-2.1: the first dealer is drawn at random, then the deal passes left.
        self.dealer = self._rng.randrange(players) if dealer is None else dealer
        self.results: list[ShitheadOutcome] = []
        self.current = Shithead.new(players, self.dealer, seed=self._rng.getrandbits(64))

    @property
    def games_finished(self) -> int:
        return len(self.results) + int(self.current.is_over())

    def losses(self) -> list[int]:
        """Losses of each seat so far, the current game included once it is over."""
        totals = [0] * self.players
        outcomes = list(self.results)
        current = self.current.outcome()
        if current is not None:
            outcomes.append(current)
        for outcome in outcomes:
            totals[outcome.loser] += 1
        return totals

    def standings(self) -> list[tuple[int, int, int]]:
        """``(place, seat, losses)`` by fewest losses; equal totals share a place (SH-6.5)."""
        losses = self.losses()
        order = sorted(range(self.players), key=lambda s: (losses[s], s))
        return [(1 + sum(1 for t in losses if t < losses[s]), s, losses[s]) for s in order]

    def next_game(self) -> Shithead:
        """Start the next game, the deal passing to the left (SH-2.1)."""
        outcome = self.current.outcome()
        if outcome is None:
            raise ValueError("the current game is not over")
        self.results.append(outcome)
        self.dealer = (self.dealer + 1) % self.players
        self.current = Shithead.new(self.players, self.dealer, seed=self._rng.getrandbits(64))
        return self.current
