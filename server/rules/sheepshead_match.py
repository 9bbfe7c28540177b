"""A Sheepshead match: ten hands with the deal rotating and running totals (SS-9).
Implements :class:`~server.rules.series.Series`.

A match is the unit a room plays. Its ten decks are fixed when it is created:

* from a ``seed``: ``rng = random.Random(seed)``; the deck of hand ``i`` is the sorted 32 cards
  shuffled by ``rng`` (hands 0, 1, … in turn); the dealer of hand ``i`` is
  ``(first_dealer + i) % 5``.
* daily (SS-9.2), from the UTC calendar date alone: the deck of hand ``i`` (0 … 9) is the sorted
  32 cards shuffled by ``random.Random(n)`` where ``n`` is the first 8 bytes, big-endian, of
  ``sha256(f"sheepshead:{date.isoformat()}:{i}")``; the dealer of hand ``i`` is ``i % 5``.
  Every server in the world deals the same ten daily hands. The date is given by the caller
  (no clocks in the rules).

>>> import datetime
>>> m = SheepsheadMatch(daily=datetime.date(2024, 5, 1))
>>> m.game_index, m.current.dealer, m.is_over()
(0, 0, False)
>>> m.deal_records()[0]["deck"] == SheepsheadMatch.daily_deck(datetime.date(2024, 5, 1), 0)
True
"""

from __future__ import annotations

import datetime
import hashlib
import random
from typing import Any

from protocol.cards import card_codes
from server.rules.series import check_next_game, places
from server.rules.sheepshead import PLAYERS, Sheepshead
from server.rules.sheepshead_cards import DECK32
from server.rules.sheepshead_scoring import HandResult

#: SS-9.1: hands in a match (each of the five players deals twice).
HANDS = 10


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
    ) -> None:
        """Create a match from ``seed`` or as the ``daily`` match of a UTC date.

        Raises:
            ValueError: both or a bad dealer.
        """
        if daily is not None and seed is not None:
            raise ValueError("a match is dealt from a seed or a date, not both")
        if not 0 <= first_dealer < PLAYERS:
            raise ValueError(f"first_dealer must be a seat 0..{PLAYERS - 1}")
        self.daily = daily
        self.seed = seed
        if daily is not None:
            self._decks = [self._daily_ints(daily, i) for i in range(HANDS)]
            self._dealers = [i % PLAYERS for i in range(HANDS)]
        else:
            rng = random.Random(seed)
            self._decks = []
            for _ in range(HANDS):
                deck = list(DECK32)
                rng.shuffle(deck)
                self._decks.append(deck)
            self._dealers = [(first_dealer + i) % PLAYERS for i in range(HANDS)]
        self._games = [Sheepshead.new(PLAYERS, self._dealers[0], deck=self._decks[0])]

    @staticmethod
    def _daily_ints(date: datetime.date, hand: int) -> list[int]:
        digest = hashlib.sha256(f"sheepshead:{date.isoformat()}:{hand}".encode()).digest()
        deck = list(DECK32)
        random.Random(int.from_bytes(digest[:8], "big")).shuffle(deck)
        return deck

    @classmethod
    def daily_deck(cls, date: datetime.date, hand: int) -> list[str]:
        """The deck (codes, top first) of hand ``hand`` (0 … 9) of the daily match of ``date``."""
        return card_codes(cls._daily_ints(date, hand))

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
        self._games.append(Sheepshead.new(PLAYERS, self._dealers[i], deck=self._decks[i]))
        return self.current

    def is_over(self) -> bool:
        """Whether all the match's hands have been played."""
        return len(self._games) == HANDS and self.current.is_over()

    def standings(self) -> list[tuple[int, int, int]]:
        """``(place, seat, total)`` best first; equal totals share a place."""
        return places(self.totals(), lower_is_better=False)

    def deal_records(self) -> list[dict[str, Any]]:
        """The deal record of each hand of the match (dealer and deck), known from the start."""
        return [
            {
                "game": Sheepshead.name,
                "players": PLAYERS,
                "dealer": self._dealers[i],
                "deck": card_codes(self._decks[i]),
                "options": {},
            }
            for i in range(HANDS)
        ]

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
        }
