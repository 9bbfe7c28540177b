"""The unit a room plays, for either game, behind one small interface: a Shithead series
(SH-6.5, open-ended) or a Sheepshead match of ten hands (SS-9.1).

A match is rebuilt from its record (how it was dealt plus every action of every game), so a
room can be persisted as plain data and restored on any server.

>>> m = Match.create("shithead", 3, seed=1)
>>> m.current.phase
'swap'
>>> Match.from_record(m.record()).current.deal_record() == m.current.deal_record()
True
"""

from __future__ import annotations

import datetime
from typing import Any

from server.rules.base import Action, Event, Game
from server.rules.registry import game_spec
from server.rules.series import Series, logs


class Match:
    """A series or match in progress (any :class:`~server.rules.series.Series` of the game
    registry); each of its games keeps its own action log, the only one."""

    def __init__(
        self,
        game: str,
        players: int,
        *,
        seed: int,
        daily: datetime.date | None = None,
    ) -> None:
        self.game = game
        self.players = players
        self.seed = seed
        self.daily = daily
        self.series: Series = game_spec(game).new_series(players, seed=seed, daily=daily)

    @classmethod
    def create(
        cls, game: str, players: int, *, seed: int, daily: datetime.date | None = None
    ) -> Match:
        return cls(game, players, seed=seed, daily=daily)

    @property
    def current(self) -> Game:
        return self.series.current

    @property
    def match_length(self) -> int | None:
        """Games in the match, or ``None`` for an open-ended series."""
        return self.series.match_length

    def games_played(self) -> int:
        """Finished games, the current one included once over."""
        return self.series.games_played()

    def totals(self) -> list[int]:
        """Shithead: losses per seat (SH-6.5). Sheepshead: units per seat (SS-9.1)."""
        return self.series.totals()

    def is_over(self) -> bool:
        """Whether no further game can be started (a Sheepshead match after ten hands)."""
        return self.series.is_over()

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply an action to the current game (raises :class:`IllegalAction`)."""
        return self.series.current.apply(seat, action)

    def next_game(self) -> Game:
        """Deal the next game of the series or match (raises :class:`IllegalAction`:
        ``game_not_over`` or ``match_over``)."""
        return self.series.next_game()

    @property
    def game_index(self) -> int:
        """Index of the current game in the match (0 for the first)."""
        return self.series.game_index

    @property
    def logs(self) -> list[list[tuple[int, Action]]]:
        """The action log of every game so far, the current one last."""
        return logs(self.series)

    def meta(self) -> dict[str, Any]:
        """How the match was dealt and how many games it has begun, without the actions."""
        return {
            "game": self.game,
            "players": self.players,
            "seed": self.seed,
            "daily": self.daily.isoformat() if self.daily else None,
            "games": self.game_index + 1,
        }

    def record(self) -> dict[str, Any]:
        """Everything needed to rebuild this match: :meth:`meta` plus every action."""
        return {
            **self.meta(),
            "logs": [[[seat, a.to_str()] for seat, a in log] for log in self.logs],
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Match:
        """Rebuild a match from :meth:`record`, or from :meth:`meta` plus ``logs``."""
        daily = datetime.date.fromisoformat(record["daily"]) if record.get("daily") else None
        match = cls(record["game"], record["players"], seed=record["seed"], daily=daily)
        saved = record["logs"]
        for i in range(max(len(saved), record.get("games", 1))):
            if i:
                match.next_game()
            for seat, text in saved[i] if i < len(saved) else ():
                match.apply(seat, Action.from_str(text))
        return match
