"""What the room core asks its actor to do: plain, frozen values, performed in order."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from protocol.errors import ErrorCode
from protocol.records import ActionEntry, RoomMeta
from protocol.views import View

ConnId = int


@dataclass(frozen=True, slots=True)
class GraceTimer:
    """A disconnected human's seat is held until this fires."""

    seat: int


@dataclass(frozen=True, slots=True)
class TurnTimer:
    """The turn timer of one version: stale once the game has moved on."""

    version: int


@dataclass(frozen=True, slots=True)
class IdleTimer:
    """Closes a room nobody is connected to."""


@dataclass(frozen=True, slots=True)
class FrameTimer:
    """A room frame held back (spectators came or went within the interval) is due."""


@dataclass(frozen=True, slots=True)
class DealTimer:
    """An event's table deals its next hand (``game``: its index; stale once dealt)."""

    game: int


TimerKey = GraceTimer | TurnTimer | IdleTimer | FrameTimer | DealTimer


class Send(NamedTuple):
    """Send one text frame to one connection (``refusal``: the error code it carries).

    A named tuple rather than a frozen dataclass, as immutable: some six are made per action,
    and a frozen dataclass's ``__init__`` costs three times as much (it sets each field
    through ``object.__setattr__``)."""

    conn: ConnId
    text: str
    refusal: ErrorCode | None = None


@dataclass(frozen=True, slots=True)
class SetTimer:
    """Feed the core a :class:`~server.rooms.inputs.TimerFired` with ``key`` at unix time
    ``at`` (replacing a timer of the same key)."""

    key: TimerKey
    at: float


@dataclass(frozen=True, slots=True)
class CancelTimer:
    key: TimerKey


@dataclass(frozen=True, slots=True)
class RunBot:
    """Ask the bot of ``level`` for a move from ``view`` after ``delay`` seconds, then feed the
    core a :class:`~server.rooms.inputs.BotMove` with it and ``version``."""

    seat: int
    level: str
    game: str
    view: View
    version: int
    delay: float


@dataclass(frozen=True, slots=True)
class RunHint:
    """Ask the hint bot (the ``strong`` bot, seeded ``seed``) what ``seat`` should do from
    ``view`` (exactly what that seat's client was sent at ``version``), then feed the core a
    :class:`~server.rooms.inputs.HintReady` for connection ``conn`` and request ``ref``."""

    conn: ConnId
    seat: int
    game: str
    view: View
    version: int
    seed: int
    ref: int | str


@dataclass(frozen=True, slots=True)
class Persist:
    """Save the room's record (everything but the actions); send nothing after it until saved."""

    record: RoomMeta


@dataclass(frozen=True, slots=True)
class PersistAction:
    """Append one accepted action to the room's stored log; send nothing after it until saved.

    ``entry`` is ``{"v": version, "g": game index, "s": seat, "a": "play 7D"}``, with
    ``"d"``: the new version's turn deadline (unix time) when a human's seat must act in it.
    """

    entry: ActionEntry


@dataclass(frozen=True, slots=True)
class Detach:
    """The connection is no longer in this room."""

    conn: ConnId


@dataclass(frozen=True, slots=True)
class CloseRoom:
    """The room is finished: forget it and delete its record."""

    reason: str


@dataclass(frozen=True, slots=True)
class Reply:
    """Tell whoever gave the room an input its answer (``to(ok)``), once everything before
    this output is stored."""

    to: Callable[[bool], None]
    ok: bool


Output = (
    Send
    | SetTimer
    | CancelTimer
    | RunBot
    | RunHint
    | Persist
    | PersistAction
    | Detach
    | CloseRoom
    | Reply
)
