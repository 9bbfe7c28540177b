"""A room's seats and settings, and the refusal a room answers a bad request with."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, replace
from typing import Any

from protocol import messages as m
from protocol.errors import ErrorCode
from server.bots.base import DEFAULT_LEVEL
from server.rooms.outputs import ConnId, Send
from server.rooms.seeds import Keys


@dataclass(frozen=True, slots=True)
class RoomSettings:
    grace: float = 60.0  # seconds a disconnected player's seat is held before a bot steps in
    idle_timeout: float = 300.0  # seconds a room nobody is connected to stays open
    bot_delay: float = 0.8  # seconds a bot waits before moving, so people can follow
    stand_in_level: str = DEFAULT_LEVEL  # the bot that plays for an absent or slow player
    # expert bots a room may seat (each thinks ~1 s a move in the shared bot workers)
    max_expert_seats: int = 2
    # budgets of a public server (README, "Running a public server"; refused: too_many_rooms)
    lobby_timeout: float = 30.0  # seconds an empty lobby (nobody in it, no game yet) stays open
    rooms_per_minute: float = 10.0  # rooms one address may create a minute, on average...
    rooms_burst: float = 20.0  # ...and at once
    rooms_per_address: int = 20  # rooms open at once that one address created
    max_rooms: int = 10_000  # rooms open in this process
    chat_per_minute: float = 60.0  # chat lines a room takes a minute, all senders together...
    chat_burst: float = 20.0  # ...and at once (refused: chat_busy)
    # seconds the token a resume replaced still resumes the seat while nobody holds it (that
    # resume's answer, the new token, may have been lost with its connection)
    token_overlap: float = 15.0
    # Shithead swaps one seat may make in one game (SH-2.3 sets no limit; two clients swapping
    # for ever would grow the game's log, its record and its history without bound)
    max_swaps: int = 200
    # the server secret's keys, for every seed (None: this process's own; a server sets them)
    keys: Keys | None = None
    # games a room deals at most: then its series is over (bounds the history and the record)
    max_games: int = 100
    # daily-board entries a day for the identities issued to one address (their origin)
    daily_entries_per_address: int = 3
    # a daily room is one person against fixed bots; off (for the fuzzer's rooms of scripted
    # people at the day's deals) lets people join and bots change, and ranks nobody there
    daily_alone: bool = True


def token_digest(token: str) -> str:
    """What a room keeps of a seat token, in memory and in its record: its SHA-256, in hex
    (a stolen record or a memory dump resumes no seat).

    >>> token_digest("secret-token")[:16]
    '930bbdc51b6aed5c'
    """
    return hashlib.sha256(token.encode()).hexdigest()


def token_matches(token: str, digest: str | None) -> bool:
    """Whether ``token`` is the one ``digest`` was made from (compared in constant time)."""
    return digest is not None and hmac.compare_digest(token_digest(token), digest)


def stored_digest(seat: dict[str, Any]) -> str | None:
    """A stored seat's token digest (records from before digests kept the token itself)."""
    digest = seat.get("token_sha256")
    if digest is None and seat.get("token"):
        digest = token_digest(seat["token"])
    return digest


def one_address(settings: RoomSettings) -> RoomSettings:
    """``settings`` with the room budgets lifted: for load and soak tools and tests, whose
    many simulated people all come from one address (127.0.0.1)."""
    return replace(
        settings,
        rooms_per_minute=1e6,
        rooms_burst=1e6,
        rooms_per_address=100_000,
        max_rooms=100_000,
        chat_per_minute=1e6,
        chat_burst=1e6,
    )


@dataclass(slots=True)
class Seat:
    kind: m.SeatKind = "empty"
    name: str | None = None
    token_sha256: str | None = None  # the seat token's digest (token_digest), never the token
    level: str | None = None
    conn: ConnId | None = None
    away: bool = False  # grace ran out: a stand-in bot plays this human's turns
    device: str | None = None  # digest of the device token the person played from (results)
    since: int = 0  # when the person sat down, in the room's order of seatings (host passing)
    # the digest the last resume replaced, and the time until which it still resumes this seat
    # while nobody holds it (RoomSettings.token_overlap)
    previous: tuple[str, float] | None = None

    @classmethod
    def bot(cls, index: int, level: str) -> Seat:
        """A bot of ``level`` in seat ``index``."""
        return cls(kind="bot", name=f"Bot {index + 1}", level=level)

    def info(self, index: int, host: int | None, muted: bool = False) -> dict[str, Any]:
        """The fields of :class:`~protocol.messages.SeatInfo`, in its order, as plain data."""
        return {
            "seat": index,
            "kind": self.kind,
            "name": self.name,
            "bot_level": self.level if self.kind == "bot" else None,
            "connected": self.conn is not None or self.kind == "bot",
            "host": index == host,
            "playing_for": None,
            "muted": muted,
        }


class Refusal(Exception):
    """A request refused by the room: becomes an ``error`` frame to its sender only."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(code.value, message)
        self.code: ErrorCode = code
        self.message = message


def error_frame(conn: ConnId, ref: m.RequestId | None, code: ErrorCode, message: str) -> Send:
    return Send(conn, m.dump(m.Error(code=code, message=message, ref=ref)), refusal=code)
