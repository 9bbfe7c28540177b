"""What goes into an event's core (:class:`~server.rooms.event_core.EventCore`) and what comes
out: plain, frozen values. A player is named by their identity (the leaderboard's player id of
their device), never by a connection: the runtime knows who is connected."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from protocol.errors import ErrorCode
from server.rooms.event_seating import Table


class EventOp(StrEnum):
    """The host's commands."""

    START = "start"  # seat round 1 and open its tables
    PAUSE = "pause"  # the next round waits for ``resume``
    RESUME = "resume"  # go on (the next round at once if the last one is over)
    REPLACE = "replace"  # a bot plays for ``target`` from now on, their score kept
    END = "end"  # end the event now: the hands played count, the seed is revealed


# ---------------------------------------------------------------------------- inputs


@dataclass(frozen=True, slots=True)
class Join:
    """``player`` joins as ``name``; ``origin``: the keyed digest of their address (a rated
    event takes one an address)."""

    player: str
    name: str
    origin: str | None = None


@dataclass(frozen=True, slots=True)
class Leave:
    player: str


@dataclass(frozen=True, slots=True)
class HostCommand:
    player: str
    op: EventOp
    target: str | None = None


@dataclass(frozen=True, slots=True)
class StartDue:
    """The runtime's clock says the event's start time may have come (``now``, the input's
    time, decides)."""


@dataclass(frozen=True, slots=True)
class TableOpened:
    """The runtime opened the room ``room`` for a table of the round."""

    round: int
    table: int
    room: str


@dataclass(frozen=True, slots=True)
class HandPlayed:
    """A table finished a hand: the units each seat won (and the game's result, for the
    page)."""

    round: int
    table: int
    hand: int
    scores: tuple[int, ...]
    result: Mapping[str, Any] | None = field(default=None, compare=False)
    #: the room that played it (a room that is not the table's, opened in a race, counts not)
    room: str | None = None


EventInput = Join | Leave | HostCommand | StartDue | TableOpened | HandPlayed


# ---------------------------------------------------------------------------- outputs


@dataclass(frozen=True, slots=True)
class TableSpec:
    """A table to open: who sits where (``None``: a bot), the seats a bot plays for a player
    who was replaced, and the hands it plays."""

    index: int
    seats: Table
    stand_ins: frozenset[int]
    hands: int


@dataclass(frozen=True, slots=True)
class OpenTables:
    round: int
    tables: tuple[TableSpec, ...]


@dataclass(frozen=True, slots=True)
class StandIn:
    """A bot plays seat ``seat`` of a table's room from now on."""

    round: int
    table: int
    room: str | None
    seat: int


@dataclass(frozen=True, slots=True)
class CloseTables:
    """The event ended early: the rooms of its round stop."""

    rooms: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PersistEvent:
    """Store the event's record before anything after it is sent."""


@dataclass(frozen=True, slots=True)
class Changed:
    """The event's public state changed: send it to whoever watches it."""


@dataclass(frozen=True, slots=True)
class Refused:
    """The input was refused (nothing changed): tell its sender."""

    code: ErrorCode
    message: str


EventOutput = OpenTables | StandIn | CloseTables | PersistEvent | Changed | Refused
