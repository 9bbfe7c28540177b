"""A room's seats and settings, and the refusal a room answers a bad request with."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from protocol import messages as m
from protocol.errors import ErrorCode
from server.bots.base import DEFAULT_LEVEL
from server.rooms.outputs import ConnId, Send


@dataclass(frozen=True, slots=True)
class RoomSettings:
    grace: float = 60.0  # seconds a disconnected player's seat is held before a bot steps in
    idle_timeout: float = 300.0  # seconds a room nobody is connected to stays open
    bot_delay: float = 0.8  # seconds a bot waits before moving, so people can follow
    stand_in_level: str = DEFAULT_LEVEL  # the bot that plays for an absent or slow player
    # games a room deals at most: then its series is over (bounds the history and the record)
    max_games: int = 100
    # daily-board entries a day for the identities issued to one address (their origin)
    daily_entries_per_address: int = 3
    # a daily room is one person against fixed bots; off (for the fuzzer's rooms of scripted
    # people at the day's deals) lets people join and bots change, and ranks nobody there
    daily_alone: bool = True


@dataclass(slots=True)
class Seat:
    kind: m.SeatKind = "empty"
    name: str | None = None
    token: str | None = None
    level: str | None = None
    conn: ConnId | None = None
    away: bool = False  # grace ran out: a stand-in bot plays this human's turns
    device: str | None = None  # digest of the device token the person played from (results)

    @classmethod
    def bot(cls, index: int, level: str) -> Seat:
        """A bot of ``level`` in seat ``index``."""
        return cls(kind="bot", name=f"Bot {index + 1}", level=level)

    def info(self, index: int, host: int | None) -> dict[str, Any]:
        """The fields of :class:`~protocol.messages.SeatInfo`, in its order, as plain data."""
        return {
            "seat": index,
            "kind": self.kind,
            "name": self.name,
            "bot_level": self.level if self.kind == "bot" else None,
            "connected": self.conn is not None or self.kind == "bot",
            "host": index == host,
            "playing_for": None,
        }


class Refusal(Exception):
    """A request refused by the room: becomes an ``error`` frame to its sender only."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(code.value, message)
        self.code: ErrorCode = code
        self.message = message


def error_frame(conn: ConnId, ref: m.RequestId | None, code: ErrorCode, message: str) -> Send:
    return Send(conn, m.dump(m.Error(code=code, message=message, ref=ref)), refusal=code)
