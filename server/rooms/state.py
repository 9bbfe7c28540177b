"""Everything about a room that an input may change, as one value: :class:`RoomState`.

A room's fixed facts (code, game, seat count, settings, options, seeds) live on the
:class:`~server.rooms.core.RoomCore` beside it; what changes lives here, so that putting a room
back (:mod:`server.rooms.rollback`) is copying this one value, whatever fields it gains.
"""

from __future__ import annotations

import datetime
import operator
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from server.rooms.clock import TurnClock
from server.rooms.matches import Match
from server.rooms.outputs import ConnId
from server.rooms.seats import SeatTable

#: Device digests a room keeps banned (kick) or muted; beyond, the oldest are forgotten.
MAX_MODERATED = 64


@dataclass(slots=True, eq=True)
class RoomState:
    """A room's changing state. Every field is an immutable value (numbers, strings, dates,
    :class:`TurnClock`), a container of such values (set, dict, list) or the seat table (of
    immutable seats): :meth:`copy` copies each container once, and that copy is whole. The
    match is the exception: it is rebuilt from its log (:mod:`server.rooms.rollback`)."""

    seats: SeatTable
    match: Match | None = None
    version: int = 0
    host: int | None = None
    locked: bool = False
    closed: bool = False
    clock: TurnClock = field(default_factory=TurnClock)
    idle_armed: bool = False
    daily_date: datetime.date | None = None
    spectators: set[ConnId] = field(default_factory=set)
    where: dict[ConnId, int | None] = field(default_factory=dict)  # conn -> seat (None: watching)
    pending: dict[int, int] = field(default_factory=dict)  # seat -> version a bot was asked at
    stand_in: set[int] = field(default_factory=set)  # humans out of time: a bot may move for them
    hints: dict[int, int] = field(default_factory=dict)  # seat -> version of the hint it awaits
    contributed: dict[int, bytes] = field(default_factory=dict)  # seat -> value for the next deal
    # moderation: devices the host removed (kick) may not come back; muted ones not chat
    banned: list[str] = field(default_factory=list)  # digests, oldest first (MAX_MODERATED)
    muted_seats: set[int] = field(default_factory=set)
    muted_devices: list[str] = field(default_factory=list)  # digests, oldest first
    muted_watchers: set[ConnId] = field(default_factory=set)
    watchers: dict[ConnId, int] = field(default_factory=dict)  # spectator -> its chat number
    watch_devices: dict[ConnId, str] = field(default_factory=dict)  # spectator -> its device
    next_watcher: int = 0
    seatings: int = 0  # people seated so far: the order the host role passes in

    def copy(self) -> RoomState:
        """A copy that shares nothing mutable with this state (the match aside): every field,
        read at once, each container copied (taken before every input: kept quick)."""
        return RoomState(*[v.copy() if type(v) in CONTAINERS else v for v in _every_field(self)])


#: The state's fields, in order (what :meth:`RoomState.copy` copies: all of them).
FIELDS = tuple(f.name for f in fields(RoomState))
#: The mutable types a field may hold: copied with their ``copy()`` (anything else must be an
#: immutable value; a test checks every field of a playing room).
CONTAINERS: frozenset[type] = frozenset({set, dict, list, SeatTable})
_every_field: Callable[[RoomState], tuple[Any, ...]] = operator.attrgetter(*FIELDS)
