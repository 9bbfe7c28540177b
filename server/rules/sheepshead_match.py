"""A Sheepshead match: ten hands with the deal rotating and running totals (SS-9).
Implements :class:`~server.rules.series.Series`.

A match is the unit a room plays. The deck of hand ``i`` comes from ``decks(i)``, asked when the
hand is dealt (a room's fair deals: :mod:`server.rules.deal`), or, for sims and tests, from a
``seed``: ``rng = random.Random(seed)`` shuffles the sorted 32 cards for hands 0, 1, … in turn.
The dealer of hand ``i`` is ``(first_dealer + i) % 5``; of the ``daily`` match of a UTC date
(SS-9.2), ``i % 5``, its decks given by the server (from its secret: no one can compute them
from the date). The date is given by the caller (no clocks in the rules).

House rules (SS-10) are one :class:`~protocol.messages.SheepsheadOptions` for the whole match
(SS-10.1: a daily match must use the defaults). Under ``no_pick: doubler`` a thrown-in hand
counts as one of the ten and doubles the next hand's multiplier, up to x8 (SS-10.3); a multiplier
still pending after the tenth hand is lost.

>>> import datetime
>>> from server.rules.sheepshead_cards import DECK32
>>> m = SheepsheadMatch(daily=datetime.date(2024, 5, 1), decks=lambda i: DECK32)
>>> m.game_index, m.current.dealer, m.is_over()
(0, 0, False)
"""

from __future__ import annotations

import datetime
import random
from collections.abc import Callable, Sequence
from typing import Any

from protocol.messages import SheepsheadOptions
from server.rules.series import check_next_game, places
from server.rules.sheepshead import DEFAULT_OPTIONS, DOUBLER_CAP, PLAYERS, Sheepshead
from server.rules.sheepshead_cards import DECK32
from server.rules.sheepshead_scoring import HandResult

#: SS-9.1: hands in a match (each of the five players deals twice).
HANDS = 10


def daily_dealer(hand: int) -> int:
    """The dealer of hand ``hand`` of a daily match (SS-9.2): seat 0 first, then left."""
    return hand % PLAYERS


class SheepsheadMatch:
    """Ten hands of Sheepshead with running totals (SS-9.1). ``current`` is the hand in play."""

    players = PLAYERS
    match_length: int | None = HANDS

    def __init__(
        self,
        seed: int | None = None,
        *,
        daily: datetime.date | None = None,
        first_dealer: int = 0,
        decks: Callable[[int], Sequence[int]] | None = None,
        options: SheepsheadOptions = DEFAULT_OPTIONS,
    ) -> None:
        """Create a match dealt from ``decks`` (or ``seed``), or the ``daily`` match of a date,
        played under the house rules ``options`` (SS-10).

        Raises:
            ValueError: neither or both of ``decks`` and ``seed``, a daily match without
                ``decks``, a daily match with house rules (SS-10.1), or a bad dealer.
        """
        if (decks is None) == (seed is None):
            raise ValueError("a match is dealt from its decks or from a seed")
        if daily is not None and options != DEFAULT_OPTIONS:
            raise ValueError("a daily match always uses the default rules (SS-10.1)")
        self.options = options
        if not 0 <= first_dealer < PLAYERS:
            raise ValueError(f"first_dealer must be a seat 0..{PLAYERS - 1}")
        self.daily = daily
        self.seed = seed
        if daily is not None:
            self._dealers = [daily_dealer(i) for i in range(HANDS)]
        else:
            self._dealers = [(first_dealer + i) % PLAYERS for i in range(HANDS)]
        if decks is None:
            rng = random.Random(seed)
            shuffled = []
            for _ in range(HANDS):
                deck = list(DECK32)
                rng.shuffle(deck)
                shuffled.append(deck)
            decks = shuffled.__getitem__
        self._decks = decks
        self._games = [self._deal(0, 1)]

    def _deal(self, i: int, multiplier: int) -> Sheepshead:
        return Sheepshead.new(
            PLAYERS,
            self._dealers[i],
            deck=self._decks(i),
            options=self.options,
            multiplier=multiplier,
        )

    def next_multiplier(self) -> int:
        """The multiplier the next hand starts at: doubled after a thrown-in hand, up to x8
        (SS-10.3), else 1."""
        last = self.current
        return min(DOUBLER_CAP, 2 * last.base_multiplier) if last.thrown_in else 1

    @property
    def current(self) -> Sheepshead:
        return self._games[-1]

    @property
    def game_index(self) -> int:
        """Index (0 … 9) of the current hand."""
        return len(self._games) - 1

    def games(self) -> list[Sheepshead]:
        return list(self._games)

    @property
    def results(self) -> list[HandResult]:
        """The result of every finished hand, in order."""
        return [r for r in (g.outcome() for g in self._games) if r is not None]

    def games_played(self) -> int:
        return len(self._games) - 1 + int(self.current.is_over())

    def totals(self) -> list[int]:
        """Units per seat, the current hand included once over (SS-9.1)."""
        totals = [0] * PLAYERS
        for result in self.results:
            for seat, units in enumerate(result.units):
                totals[seat] += units
        return totals

    def next_game(self) -> Sheepshead:
        """Deal the next hand (SS-2.1: the deal rotates).

        Raises:
            IllegalAction: ``game_not_over`` or ``match_over``.
        """
        check_next_game(self)
        i = len(self._games)
        self._games.append(self._deal(i, self.next_multiplier()))
        return self.current

    def is_over(self) -> bool:
        """Whether all the match's hands have been played."""
        return len(self._games) == HANDS and self.current.is_over()

    def standings(self) -> list[tuple[int, int, int]]:
        """``(place, seat, total)`` best first; equal totals share a place."""
        return places(self.totals(), lower_is_better=False)

    def to_json(self) -> dict[str, Any]:
        """The public state of the match: hand number, totals, each finished hand's units."""
        return {
            "game": Sheepshead.name,
            "hands": HANDS,
            "hand": self.game_index + 1,
            "daily": None if self.daily is None else self.daily.isoformat(),
            "totals": self.totals(),
            "hand_units": [list(r.units) for r in self.results],
            "over": self.is_over(),
            "options": self.options.model_dump(),
            "next_multiplier": self.next_multiplier(),
        }
