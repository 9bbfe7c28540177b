"""A Sheepshead match: ten hands with the deal rotating and running totals (SS-9).

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
>>> m.hand_number, m.current.dealer, m.is_over()
(1, 0, False)
>>> m.deal_records()[0]["deck"] == SheepsheadMatch.daily_deck(datetime.date(2024, 5, 1), 0)
True
"""

from __future__ import annotations

import datetime
import hashlib
import random
from typing import Any

from protocol.cards import card_codes
from server.rules.base import IllegalAction
from server.rules.sheepshead import PLAYERS, Sheepshead
from server.rules.sheepshead_cards import DECK32
from server.rules.sheepshead_scoring import HandResult

#: SS-9.1: hands in a match (each of the five players deals twice).
HANDS = 10


class SheepsheadMatch:
    """Ten hands of Sheepshead with running totals (SS-9.1). ``current`` is the hand in play."""

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
        self.totals: list[int] = [0] * PLAYERS
        self.results: list[HandResult] = []
        self._hand_index = 0
        self.current: Sheepshead = Sheepshead.new(PLAYERS, self._dealers[0], deck=self._decks[0])

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
    def hand_number(self) -> int:
        """The number (1 … 10) of the current hand."""
        return self._hand_index + 1

    def _record(self) -> None:
        if self.current.is_over() and len(self.results) == self._hand_index:
            result = self.current.outcome()
            assert result is not None
            self.results.append(result)
            for seat, units in enumerate(result.units):
                self.totals[seat] += units

    def sync(self) -> None:
        """Record the current hand's result into the totals once it is over (idempotent)."""
        self._record()

    def next_hand(self) -> Sheepshead:
        """Record the finished current hand and deal the next one (SS-2.1: the deal rotates).

        Raises:
            IllegalAction: ``hand_not_over`` or ``match_over``.
        """
        if not self.current.is_over():
            raise IllegalAction("hand_not_over", "finish the current hand first")
        self._record()
        if self._hand_index + 1 >= HANDS:
            raise IllegalAction("match_over", "the match has ended after ten hands")
        self._hand_index += 1
        i = self._hand_index
        self.current = Sheepshead.new(PLAYERS, self._dealers[i], deck=self._decks[i])
        return self.current

    def is_over(self) -> bool:
        """Whether all ten hands have been played."""
        self._record()
        return len(self.results) == HANDS

    def standings(self) -> list[tuple[int, int, int]]:
        """``(place, seat, total)`` best first; equal totals share a place."""
        self._record()
        order = sorted(range(PLAYERS), key=lambda s: (-self.totals[s], s))
        out: list[tuple[int, int, int]] = []
        for rank, seat in enumerate(order):
            place = out[-1][0] if out and self.totals[seat] == out[-1][2] else rank + 1
            out.append((place, seat, self.totals[seat]))
        return out

    def deal_records(self) -> list[dict[str, Any]]:
        """The deal record of each of the ten hands (dealer and deck), known from the start."""
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
        self._record()
        return {
            "game": "sheepshead",
            "hands": HANDS,
            "hand": self._hand_index + 1,
            "daily": None if self.daily is None else self.daily.isoformat(),
            "totals": list(self.totals),
            "hand_units": [list(r.units) for r in self.results],
            "over": len(self.results) == HANDS,
        }
