"""What an event's inputs may change, as one value (:class:`EventState`), and its phases."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from server.rooms.event_scoring import HandScore
from server.rooms.event_seating import Table


class EventPhase(StrEnum):
    LOBBY = "lobby"  # people join
    PLAYING = "playing"  # a round's tables play
    BETWEEN = "between"  # a round is over and the host paused
    OVER = "over"  # the seed is revealed


@dataclass(slots=True)
class Entrant:
    name: str
    left: bool = False  # left the event (their table's stand-in plays after the grace)
    stand_in: bool = False  # the host had a bot play for them from now on
    origin: str | None = None  # their address's keyed digest (a rated event: one an address)


@dataclass(slots=True)
class EventState:
    """Everything an input may change, as one value (copied whole for a refusal's undo)."""

    host: str
    phase: EventPhase = EventPhase.LOBBY
    entrants: dict[str, Entrant] = field(default_factory=dict)  # in the order they joined
    seatings: list[list[Table]] = field(default_factory=list)  # each round's tables
    rooms: list[list[str | None]] = field(default_factory=list)  # each round's tables' rooms
    played: dict[int, int] = field(default_factory=dict)  # hands played at each table
    scores: list[HandScore] = field(default_factory=list)
    paused: bool = False
    version: int = 0  # one more with every change stored (the store checks it)

    @property
    def round(self) -> int:
        """The round being played or last played (-1 before the start)."""
        return len(self.seatings) - 1
