"""An event's scores: each hand's units per seat, the comparison of a duplicate deal across its
tables, and the standings.

**Totals.** A player's total is the sum of the units they won in every hand they sat in
(Sheepshead: the hand's units, SS-8; Shithead: -1 for the game's loser). A seat played by a
stand-in bot for a player who left keeps scoring for that player.

**Duplicate.** Every table of a round plays the same deals, and seat ``s`` holds the same cards
at every table (:mod:`server.rooms.event_deals`). For a deal and a seat the *field* is the units
won at that seat at every table; each table's seat is scored two ways against it:

* **against the field**: its units minus the field's mean (so the sum over the field is 0);
* **matchpoints**: 1 for every other table where that seat won fewer units, 1/2 for every one
  where it won as many.

With duplicate on, the standings rank by the sum of units against the field, then matchpoints,
then total units; without, by total units. Exact fractions throughout.

>>> from fractions import Fraction
>>> a = HandScore(0, 0, 0, ("ann", "bob"), (2, -2))
>>> b = HandScore(0, 0, 1, ("cy", "dee"), (-4, 4))
>>> [(c.table, c.seat, str(c.against), str(c.matchpoints)) for c in compare([a, b])]
[(0, 0, '3', '1'), (0, 1, '-3', '0'), (1, 0, '-3', '0'), (1, 1, '3', '1')]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from server.rooms.event_seating import Table

ZERO = Fraction(0)
HALF = Fraction(1, 2)


@dataclass(frozen=True, slots=True)
class HandScore:
    """One hand played at one table: who sat where and the units each seat won."""

    round: int
    hand: int
    table: int
    seats: Table
    scores: tuple[int, ...]
    #: The game's result as its history records it (the picker, their points...), for the page.
    result: Mapping[str, Any] | None = field(default=None, compare=False)

    @property
    def deal(self) -> tuple[int, int]:
        return (self.round, self.hand)

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "hand": self.hand,
            "table": self.table,
            "seats": list(self.seats),
            "scores": list(self.scores),
            "result": dict(self.result) if self.result is not None else None,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> HandScore:
        result = data.get("result")
        return cls(
            int(data["round"]),
            int(data["hand"]),
            int(data["table"]),
            tuple(None if s is None else str(s) for s in data["seats"]),
            tuple(int(x) for x in data["scores"]),
            dict(result) if isinstance(result, Mapping) else None,
        )


@dataclass(frozen=True, slots=True)
class Compared:
    """One table's seat in one duplicate deal, against the field of that seat."""

    table: int
    seat: int
    player: str | None
    units: int
    against: Fraction
    matchpoints: Fraction


def compare(hands: Sequence[HandScore]) -> list[Compared]:
    """Every table's seat of one deal (``hands``: that deal at each table), against the others
    who held the same cards; by table, then seat."""
    out: list[Compared] = []
    ordered = sorted(hands, key=lambda h: h.table)
    for hand in ordered:
        for seat, units in enumerate(hand.scores):
            field_ = [h.scores[seat] for h in ordered if seat < len(h.scores)]
            mean = Fraction(sum(field_), len(field_))
            points = sum((1 if units > o else HALF if units == o else ZERO) for o in field_)
            out.append(
                Compared(
                    hand.table,
                    seat,
                    hand.seats[seat] if seat < len(hand.seats) else None,
                    units,
                    units - mean,
                    Fraction(points) - HALF,  # the seat against itself is a tie: not counted
                )
            )
    return out


@dataclass(frozen=True, slots=True)
class Standing:
    """One entrant's line of the standings."""

    player: str
    rank: int
    units: int
    against: Fraction
    matchpoints: Fraction
    hands: int


def standings(
    players: Sequence[str], hands: Iterable[HandScore], duplicate: bool
) -> list[Standing]:
    """Everyone of ``players`` (in the order they joined: ties keep it), best first; equal
    scores share a rank."""
    units = dict.fromkeys(players, 0)
    against = dict.fromkeys(players, ZERO)
    points = dict.fromkeys(players, ZERO)
    played = dict.fromkeys(players, 0)
    by_deal: dict[tuple[int, int], list[HandScore]] = {}
    for hand in hands:
        by_deal.setdefault(hand.deal, []).append(hand)
        for seat, who in enumerate(hand.seats):
            if who in units:
                units[who] += hand.scores[seat]
                played[who] += 1
    if duplicate:
        for deal in by_deal.values():
            for c in compare(deal):
                if c.player in against:
                    against[c.player] += c.against
                    points[c.player] += c.matchpoints

    def key(p: str) -> tuple[Fraction, Fraction, int]:
        if duplicate:
            return (-against[p], -points[p], -units[p])
        return (ZERO, ZERO, -units[p])

    order = sorted(players, key=key)
    out: list[Standing] = []
    for i, p in enumerate(order):
        rank = out[-1].rank if out and key(order[i - 1]) == key(p) else i + 1
        out.append(Standing(p, rank, units[p], against[p], points[p], played[p]))
    return out
