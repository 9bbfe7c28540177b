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

from server.rules.base import Action, Event, Game, IllegalAction
from server.rules.sheepshead_match import SheepsheadMatch
from server.rules.shithead_series import ShitheadSeries


class Match:
    """A series or match in progress, with the action log of each of its games."""

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
        self._series: ShitheadSeries | None = None
        self._match: SheepsheadMatch | None = None
        if game == "shithead":
            self._series = ShitheadSeries(players, seed=seed)
        elif game == "sheepshead":
            if players != 5:
                raise ValueError("Sheepshead is played by five")
            if daily is not None:
                self._match = SheepsheadMatch(daily=daily)
            else:
                self._match = SheepsheadMatch(seed, first_dealer=seed % 5)
        else:
            raise ValueError(f"unknown game {game!r}")
        self.logs: list[list[tuple[int, Action]]] = [[]]

    @classmethod
    def create(
        cls, game: str, players: int, *, seed: int, daily: datetime.date | None = None
    ) -> Match:
        return cls(game, players, seed=seed, daily=daily)

    @property
    def current(self) -> Game:
        if self._series is not None:
            return self._series.current
        assert self._match is not None
        return self._match.current

    @property
    def match_length(self) -> int | None:
        """Games in the match, or ``None`` for an open-ended series."""
        return None if self._series is not None else 10

    def games_played(self) -> int:
        """Finished games, the current one included once over."""
        return len(self.logs) - 1 + int(self.current.is_over())

    def totals(self) -> list[int]:
        """Shithead: losses per seat (SH-6.5). Sheepshead: units per seat (SS-9.1)."""
        if self._series is not None:
            return self._series.losses()
        assert self._match is not None
        self._match.sync()
        return list(self._match.totals)

    def is_over(self) -> bool:
        """Whether no further game can be started (a Sheepshead match after ten hands)."""
        if self._match is not None:
            return self._match.is_over()
        return False

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply an action to the current game (raises :class:`IllegalAction`)."""
        events = self.current.apply(seat, action)
        self.logs[-1].append((seat, action))
        return events

    def next_game(self) -> Game:
        """Deal the next game of the series or match."""
        if not self.current.is_over():
            raise IllegalAction("game_not_over", "the current game is still being played")
        if self.is_over():
            raise IllegalAction("match_over", "the match is over")
        if self._series is not None:
            self._series.next_game()
        else:
            assert self._match is not None
            self._match.next_hand()
        self.logs.append([])
        return self.current

    @property
    def game_index(self) -> int:
        """Index of the current game in the match (0 for the first)."""
        return len(self.logs) - 1

    def meta(self) -> dict[str, Any]:
        """How the match was dealt and how many games it has begun, without the actions."""
        return {
            "game": self.game,
            "players": self.players,
            "seed": self.seed,
            "daily": self.daily.isoformat() if self.daily else None,
            "games": len(self.logs),
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
        logs = record["logs"]
        for i in range(max(len(logs), record.get("games", 1))):
            if i:
                match.next_game()
            for seat, text in logs[i] if i < len(logs) else ():
                match.apply(seat, Action.from_str(text))
        return match
