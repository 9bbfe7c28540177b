"""The unit a room plays: a run of games at one table, behind one protocol for every game.

:class:`~server.rules.shithead_series.ShitheadSeries` (open-ended, SH-6.5) and
:class:`~server.rules.sheepshead_match.SheepsheadMatch` (ten hands, SS-9.1) both implement
:class:`Series`; :mod:`server.rules.registry` says which game uses which. A series keeps every
game it dealt, so each game's own action log is the only log there is.

Errors: :meth:`Series.next_game` raises :class:`~server.rules.base.IllegalAction` with code
``game_not_over`` (the current game is still being played) or ``match_over`` (no game is left).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from protocol.errors import ErrorCode
from server.rules.base import Action, Game, IllegalAction


class Series(Protocol):
    """Consecutive games at one table, the deal rotating, with running totals."""

    @property
    def players(self) -> int:
        """Seats at the table."""
        ...

    @property
    def current(self) -> Game:
        """The game being played (or the last one, once over)."""
        ...

    @property
    def match_length(self) -> int | None:
        """Games in the whole match, or ``None`` for an open-ended series."""
        ...

    @property
    def game_index(self) -> int:
        """Index of the current game (0 for the first)."""
        ...

    def games_played(self) -> int:
        """Finished games, the current one included once over."""
        ...

    def totals(self) -> list[int]:
        """Running totals per seat, the current game included once over."""
        ...

    def standings(self) -> list[tuple[int, int, int]]:
        """``(place, seat, total)`` best first; equal totals share a place."""
        ...

    def is_over(self) -> bool:
        """Whether no further game can be dealt."""
        ...

    def next_game(self) -> Game:
        """Deal the next game. Raises :class:`IllegalAction` (see the module docstring)."""
        ...

    def games(self) -> Sequence[Game]:
        """Every game dealt so far, the current one last."""
        ...


def check_next_game(series: Series) -> None:
    """The refusals every :meth:`Series.next_game` starts with."""
    if not series.current.is_over():
        raise IllegalAction(ErrorCode.GAME_NOT_OVER, "the current game is still being played")
    if series.is_over():
        raise IllegalAction(ErrorCode.MATCH_OVER, "the match is over")


def logs(series: Series) -> list[list[tuple[int, Action]]]:
    """The action log of every game of ``series``, the current one last."""
    return [game.log for game in series.games()]


def places(totals: list[int], *, lower_is_better: bool) -> list[tuple[int, int, int]]:
    """``(place, seat, total)`` best first; equal totals share a place."""
    sign = 1 if lower_is_better else -1
    order = sorted(range(len(totals)), key=lambda s: (sign * totals[s], s))
    return [(1 + sum(sign * t < sign * totals[s] for t in totals), s, totals[s]) for s in order]
