"""A Shithead series (SH-2.1, SH-6.5): games in a row at one table, the deal passing left, one
loss per game for its loser, players ranked by fewest losses. Open-ended: it is never over.
Implements :class:`~server.rules.series.Series`.

>>> series = ShitheadSeries(3, seed=5)
>>> first = series.dealer
>>> game = series.current
>>> game.dealer == first
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from protocol.messages import ShitheadOptions
from server.rules.series import check_next_game, places
from server.rules.shithead import Shithead, ShitheadOutcome


class ShitheadSeries:
    """Consecutive games of Shithead; the room's unit of play for this game."""

    match_length: int | None = None  # open-ended

    def __init__(
        self,
        players: int,
        *,
        seed: int | None = None,
        dealer: int | None = None,
        decks: Callable[[int], Sequence[int]] | None = None,
        options: ShitheadOptions | None = None,
    ) -> None:
        """Games dealt from ``decks`` (game index -> the deck, top first: a room's fair deals,
        :mod:`server.rules.deal`), else from ``random.Random(seed)`` (sims, tests), every one
        under the house rules ``options`` (SH-7.1)."""
        self.players = players
        self.options = options or ShitheadOptions()
        self._rng = random.Random(seed)
        self._decks = decks
        # SH-2.1: the first dealer is drawn at random, then the deal passes left.
        self.dealer = self._rng.randrange(players) if dealer is None else dealer
        self._games = [self._deal(0)]

    def _deal(self, index: int) -> Shithead:
        if self._decks is not None:
            return Shithead.new(
                self.players, self.dealer, deck=self._decks(index), options=self.options
            )
        return Shithead.new(
            self.players, self.dealer, seed=self._rng.getrandbits(64), options=self.options
        )

    @property
    def current(self) -> Shithead:
        return self._games[-1]

    @property
    def game_index(self) -> int:
        return len(self._games) - 1

    def games(self) -> list[Shithead]:
        return list(self._games)

    @property
    def results(self) -> list[ShitheadOutcome]:
        """The outcome of every finished game, in order."""
        return [o for o in (g.outcome() for g in self._games) if o is not None]

    def games_played(self) -> int:
        return len(self._games) - 1 + int(self.current.is_over())

    def totals(self) -> list[int]:
        """Losses of each seat so far, the current game included once it is over (SH-6.5)."""
        totals = [0] * self.players
        for outcome in self.results:
            totals[outcome.loser] += 1
        return totals

    def standings(self) -> list[tuple[int, int, int]]:
        """``(place, seat, losses)`` by fewest losses; equal totals share a place (SH-6.5)."""
        return places(self.totals(), lower_is_better=True)

    def is_over(self) -> bool:
        return False

    def next_game(self) -> Shithead:
        """Start the next game, the deal passing to the left (SH-2.1).

        Raises:
            IllegalAction: ``game_not_over``.
        """
        check_next_game(self)
        self.dealer = (self.dealer + 1) % self.players
        self._games.append(self._deal(len(self._games)))
        return self.current
