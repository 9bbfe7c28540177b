"""What the room core asks its actor to do: plain, frozen values, performed in order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ConnId = int
TimerKey = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Send:
    """Send one text frame to one connection (``refusal``: the error code it carries)."""

    conn: ConnId
    text: str
    refusal: str | None = None


@dataclass(frozen=True, slots=True)
class SetTimer:
    """Call :meth:`RoomCore.timer` with ``key`` at unix time ``at`` (replacing a same key)."""

    key: TimerKey
    at: float


@dataclass(frozen=True, slots=True)
class CancelTimer:
    key: TimerKey


@dataclass(frozen=True, slots=True)
class RunBot:
    """Ask the bot of ``level`` for a move from ``view`` after ``delay`` seconds, then call
    :meth:`RoomCore.bot_action` with it and ``version``."""

    seat: int
    level: str
    game: str
    view: dict[str, Any]
    version: int
    delay: float


@dataclass(frozen=True, slots=True)
class Persist:
    """Save the room's record (everything but the actions); send nothing after it until saved."""

    record: dict[str, Any]


@dataclass(frozen=True, slots=True)
class PersistAction:
    """Append one accepted action to the room's stored log; send nothing after it until saved.

    ``entry`` is ``{"v": version, "g": game index, "s": seat, "a": "play 7D"}``.
    """

    entry: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Detach:
    """The connection is no longer in this room."""

    conn: ConnId


@dataclass(frozen=True, slots=True)
class CloseRoom:
    """The room is finished: forget it and delete its record."""

    reason: str


Output = Send | SetTimer | CancelTimer | RunBot | Persist | PersistAction | Detach | CloseRoom
