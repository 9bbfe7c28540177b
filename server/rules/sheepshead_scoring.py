"""Sheepshead scoring: the payment table of SS-7.5 and the leaster of SS-8, times the hand's
multiplier (SS-10.5), and the doubler's thrown-in hand (SS-10.3).

Pure functions from what each seat took to the units each seat wins or pays; every result sums
to zero.

>>> picker_side_rate(picker_points=75, picker_tricks=4, defender_tricks=2)
(1, 'win')
>>> split_units(1, picker=0, partner=2)
(2, -1, 1, -1, -1)
>>> split_units(-2, picker=0, partner=None)
(-8, 2, 2, 2, 2)
>>> leaster_units(seat_points=(10, 0, 40, 30, 20), seat_tricks=(1, 0, 2, 2, 1))
(0, (4, -1, -1, -1, -1))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from protocol.cards import card_codes
from protocol.views import SheepsheadResult
from server.rules.base import frozen_reduce

#: SS-7.1: the picker's side needs this many card points to win (60–60 loses).
WIN_POINTS = 61
#: SS-7.2: defenders below this many points are schneidered (picker's side 91 or more).
SCHNEIDER_DEFENDERS = 30
#: SS-7.3: a losing picker's side with this many points or fewer is schneidered.
SCHNEIDER_PICKER = 30


def picker_side_rate(
    picker_points: int, picker_tricks: int, defender_tricks: int
) -> tuple[int, str]:
    """Units each defender pays (negative: receives) and the name of the SS-7.5 table row.

    Tricks decide "every trick" and "no trick"; card points (buried included) decide the rest.
    """
    if defender_tricks == 0:
        return 3, "win_schwarz"
    if picker_tricks == 0:
        return -6, "loss_schwarz"
    if picker_points >= 120 - SCHNEIDER_DEFENDERS + 1:
        return 2, "win_schneider"
    if picker_points >= WIN_POINTS:
        return 1, "win"
    if picker_points > SCHNEIDER_PICKER:
        return -2, "loss"
    return -4, "loss_schneider"


def split_units(rate: int, picker: int, partner: int | None, players: int = 5) -> tuple[int, ...]:
    """Units per seat when each defender pays ``rate`` (SS-7.4).

    With a partner the picker takes two shares and the partner one; alone the picker takes four.
    """
    units = [-rate] * players
    if partner is None:
        units[picker] = rate * (players - 1)
    else:
        units[picker] = 2 * rate
        units[partner] = rate
    return tuple(units)


def leaster_units(
    seat_points: tuple[int, ...], seat_tricks: tuple[int, ...]
) -> tuple[int | None, tuple[int, ...]]:
    """The leaster winner (or ``None`` on a tie) and the units per seat (SS-8.2)."""
    players = len(seat_points)
    eligible = [s for s in range(players) if seat_tricks[s] > 0]
    low = min(seat_points[s] for s in eligible)
    lowest = [s for s in eligible if seat_points[s] == low]
    if len(lowest) != 1:
        return None, (0,) * players
    winner = lowest[0]
    units = [-1] * players
    units[winner] = players - 1
    return winner, tuple(units)


@dataclass(frozen=True, slots=True)
class HandResult:
    """The result of one hand, with the full breakdown (everything is revealed at the end).

    ``units`` (also ``scores``) is what this hand adds to each seat's running total; it sums to 0.
    ``seat_points`` and ``seat_tricks`` are what each seat took in tricks (the blind is no trick).
    ``multiplier`` is what the SS-7 / SS-8 payments were multiplied by (SS-10.5); ``units`` are
    already multiplied. A doubler's thrown-in hand (SS-10.3) has the row ``thrown_in`` and pays
    nothing; its ``multiplier`` is the one it carried.
    """

    picker: int | None
    partner: int | None
    alone: bool
    leaster: bool
    called: int | None
    unknown: int | None
    buried: tuple[int, ...]
    blind: tuple[int, ...]
    seat_points: tuple[int, ...]
    seat_tricks: tuple[int, ...]
    picker_points: int
    defender_points: int
    picker_tricks: int
    defender_tricks: int
    schneider: bool
    schwarz: bool
    row: str
    leaster_winner: int | None
    units: tuple[int, ...]
    multiplier: int = 1

    def __reduce__(self) -> tuple[Any, tuple[object, ...]]:
        return frozen_reduce(self)

    @property
    def scores(self) -> tuple[int, ...]:
        """What this hand adds to each seat's running total (the same as ``units``)."""
        return self.units

    def to_json(self) -> SheepsheadResult:
        """Plain JSON-able data, cards as codes."""
        return {
            "picker": self.picker,
            "partner": self.partner,
            "alone": self.alone,
            "leaster": self.leaster,
            "called": None if self.called is None else card_codes((self.called,))[0],
            "unknown": None if self.unknown is None else card_codes((self.unknown,))[0],
            "buried": card_codes(self.buried),
            "blind": card_codes(self.blind),
            "seat_points": list(self.seat_points),
            "seat_tricks": list(self.seat_tricks),
            "picker_points": self.picker_points,
            "defender_points": self.defender_points,
            "picker_tricks": self.picker_tricks,
            "defender_tricks": self.defender_tricks,
            "schneider": self.schneider,
            "schwarz": self.schwarz,
            "row": self.row,
            "leaster_winner": self.leaster_winner,
            "units": list(self.units),
            "multiplier": self.multiplier,
        }


def score_hand(
    *,
    picker: int | None,
    partner: int | None,
    called: int | None,
    unknown: int | None,
    buried: tuple[int, ...],
    blind: tuple[int, ...],
    seat_points: tuple[int, ...],
    seat_tricks: tuple[int, ...],
    buried_points: int,
    multiplier: int = 1,
) -> HandResult:
    """Score a finished hand: a leaster when ``picker`` is ``None`` (SS-8), else SS-7; the
    payments times ``multiplier`` (SS-10.5)."""
    if picker is None:
        winner, units = leaster_units(seat_points, seat_tricks)
        return _pickerless(
            blind,
            seat_points,
            seat_tricks,
            "leaster" if winner is not None else "leaster_tie",
            winner,
            tuple(u * multiplier for u in units),
            multiplier,
        )
    side = (picker,) if partner is None else (picker, partner)
    picker_points = buried_points + sum(seat_points[s] for s in side)
    picker_tricks = sum(seat_tricks[s] for s in side)
    defender_tricks = sum(seat_tricks) - picker_tricks
    rate, row = picker_side_rate(picker_points, picker_tricks, defender_tricks)
    return HandResult(
        picker=picker,
        partner=partner,
        alone=partner is None,
        leaster=False,
        called=called,
        unknown=unknown,
        buried=buried,
        blind=blind,
        seat_points=seat_points,
        seat_tricks=seat_tricks,
        picker_points=picker_points,
        defender_points=120 - picker_points,
        picker_tricks=picker_tricks,
        defender_tricks=defender_tricks,
        schneider=row not in ("win", "loss"),
        schwarz=row.endswith("schwarz"),
        row=row,
        leaster_winner=None,
        units=split_units(rate * multiplier, picker, partner, len(seat_points)),
        multiplier=multiplier,
    )


def thrown_in(blind: tuple[int, ...], multiplier: int, players: int = 5) -> HandResult:
    """A doubler hand all five passed (SS-10.3): unplayed, nobody pays; the next hand's
    multiplier doubles (the match's business)."""
    zeros = (0,) * players
    return _pickerless(blind, zeros, zeros, "thrown_in", None, zeros, multiplier)


def _pickerless(
    blind: tuple[int, ...],
    seat_points: tuple[int, ...],
    seat_tricks: tuple[int, ...],
    row: str,
    winner: int | None,
    units: tuple[int, ...],
    multiplier: int,
) -> HandResult:
    """A hand nobody picked: a leaster (SS-8) or a doubler's throw-in (SS-10.3)."""
    return HandResult(
        picker=None,
        partner=None,
        alone=False,
        leaster=row != "thrown_in",
        called=None,
        unknown=None,
        buried=(),
        blind=blind,
        seat_points=seat_points,
        seat_tricks=seat_tricks,
        picker_points=0,
        defender_points=0,
        picker_tricks=0,
        defender_tricks=0,
        schneider=False,
        schwarz=False,
        row=row,
        leaster_winner=winner,
        units=units,
        multiplier=multiplier,
    )
