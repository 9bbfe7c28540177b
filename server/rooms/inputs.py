"""What goes into a room core: typed values, one per kind of event, handled by one ``match`` in
:meth:`server.rooms.core.RoomCore.handle`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from protocol import messages as m
from server.bots.reasons import Reason
from server.rooms.matchmaker import Reserved
from server.rooms.outputs import ConnId, TimerKey
from server.rules.base import Action

#: The client messages a room handles (``hello``, ``ping`` and ``create`` stop at the server).
RoomRequest = (
    m.Join
    | m.Watch
    | m.Resume
    | m.Act
    | m.Host
    | m.Chat
    | m.React
    | m.Leave
    | m.Hint
    | m.Contribute
)


@dataclass(frozen=True, slots=True)
class Request:
    """A client's message addressed to this room (``device``: a digest of the device token
    the connection said hello with, for leaderboards; ``origin``: a keyed digest of the
    address it came from, for bans and mutes)."""

    conn: ConnId
    msg: RoomRequest
    device: str | None = None
    origin: str | None = None


@dataclass(frozen=True, slots=True)
class CreateHost:
    """The creator of a fresh room takes seat 0 as its host."""

    conn: ConnId
    msg: m.Create
    device: str | None = None
    origin: str | None = None


@dataclass(frozen=True, slots=True)
class Disconnect:
    """A connection in this room closed."""

    conn: ConnId


@dataclass(frozen=True, slots=True)
class TimerFired:
    key: TimerKey


@dataclass(frozen=True, slots=True)
class BotMove:
    """A bot's move for ``seat``, chosen against ``version``."""

    seat: int
    version: int
    action: Action


@dataclass(frozen=True, slots=True)
class HintReady:
    """The answer to a ``hint`` that ``conn`` asked for ``seat`` at ``version`` (``level``: the
    bot that chose ``action``, ``basic`` when the strong one overran)."""

    conn: ConnId
    seat: int
    version: int
    ref: m.RequestId
    action: Action
    level: m.BotLevel
    reason: Reason


@dataclass(frozen=True, slots=True)
class RatingsShown:
    """The last rated game's rating changes, recorded by the runtime: the room shows them."""

    shifts: tuple[m.RatingShift, ...]


@dataclass(frozen=True, slots=True)
class BotPlaysFor:
    """The stand-in bot plays ``seat`` from now on (an event's host replaced its player)."""

    seat: int


@dataclass(frozen=True, slots=True)
class TakeBotSeat:
    """Play now seats ``person`` in bot seat ``seat`` of this table in its first seconds
    (:mod:`server.rooms.bot_seats`); ``answer`` hears, once it is stored, whether the room
    took them (no: the bot has acted already, the seat is no longer a fill-in bot's, or the
    input comes at ``until`` or later, when its asker has stopped waiting: one held back while
    the store was away, say)."""

    seat: int
    person: Reserved
    answer: Callable[[bool], None]
    until: float


RoomInput = (
    Request
    | CreateHost
    | Disconnect
    | TimerFired
    | BotMove
    | HintReady
    | RatingsShown
    | BotPlaysFor
    | TakeBotSeat
)


def sender(item: RoomInput) -> ConnId | None:
    """The connection an input came from, if any (it is told when the input fails)."""
    match item:
        case Request(conn=conn) | CreateHost(conn=conn):
            return conn
        case _:
            return None
