"""A room's seats (each an immutable :class:`Seat`, held by a :class:`SeatTable` whose methods
are the only way to change one) and settings, and the refusal a room answers a bad request
with."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Mapping
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
    max_spectators: int = 100  # spectators a room takes at once (refused: spectators_full)
    # seconds between two room frames to everyone that only spectators' comings and goings
    # send (the newcomer gets its own at once; the last count follows at the interval's end)
    spectator_frame_interval: float = 1.0
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


def stored_digest(seat: Mapping[str, Any]) -> str | None:
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


@dataclass(frozen=True, slots=True)
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


class SeatTable:
    """A room's seats in order. Seats are values: every change replaces one through a method
    here, so a copy of the table (:meth:`copy`, one list copy) is a whole snapshot.

    >>> table = SeatTable(2)
    >>> table.seat_bot(1, "basic")
    >>> [s.kind for s in table], table.free()
    (['empty', 'bot'], [0, 1])
    """

    __slots__ = ("_seats",)

    def __init__(self, players: int = 0, seats: list[Seat] | None = None) -> None:
        self._seats = seats if seats is not None else [Seat() for _ in range(players)]

    # ------------------------------------------------------------------ reading

    def __getitem__(self, index: int) -> Seat:
        return self._seats[index]

    def __iter__(self) -> Iterator[Seat]:
        return iter(self._seats)

    def __len__(self) -> int:
        return len(self._seats)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SeatTable) and self._seats == other._seats

    def __repr__(self) -> str:
        return f"SeatTable({self._seats!r})"

    def copy(self) -> SeatTable:
        table = object.__new__(SeatTable)  # one Python call, not two (a copy per input)
        table._seats = self._seats.copy()
        return table

    def humans_connected(self) -> bool:
        for s in self._seats:  # noqa: SIM110  # a loop, not any(): asked several times per input
            if s.conn is not None and s.kind == "human":
                return True
        return False

    def free(self) -> list[int]:
        """The seats a person may take: empty, or a bot's."""
        return [i for i, s in enumerate(self._seats) if s.kind != "human"]

    def names(self, skip: int | None = None) -> list[str]:
        """The names taken, but seat ``skip``'s."""
        return [s.name for i, s in enumerate(self._seats) if s.name and i != skip]

    def experts(self, besides: list[int]) -> int:
        """Expert bots seated outside ``besides``."""
        return sum(
            1
            for i, s in enumerate(self._seats)
            if s.kind == "bot" and s.level == "expert" and i not in besides
        )

    def with_token(self, token: str, now: float) -> tuple[int, bool] | None:
        """The seat ``token`` resumes, and whether it is the seat's current token: the one a
        resume replaced still works for a seat nobody holds, until the time it keeps."""
        for i, s in enumerate(self._seats):
            if s.kind != "human":
                continue
            if token_matches(token, s.token_sha256):
                return i, True
            held = s.previous
            if held and s.conn is None and now < held[1] and token_matches(token, held[0]):
                return i, False
        return None

    def longest_seated(self) -> tuple[int | None, int | None]:
        """The connected person (not away) seated longest, and whoever has sat longest."""
        humans = sorted((s.since, i) for i, s in enumerate(self._seats) if s.kind == "human")
        present = [i for _, i in humans if self._seats[i].conn is not None]
        present = [i for i in present if not self._seats[i].away]
        return (present[0] if present else None), (humans[0][1] if humans else None)

    # ------------------------------------------------------------------ changing

    def seat_human(
        self, index: int, name: str, token_sha256: str, conn: ConnId, device: str | None, since: int
    ) -> None:
        self._seats[index] = Seat(
            kind="human",
            name=name,
            token_sha256=token_sha256,
            conn=conn,
            device=device,
            since=since,
        )

    def seat_bot(self, index: int, level: str) -> None:
        self._seats[index] = Seat.bot(index, level)

    def empty(self, index: int) -> None:
        self._seats[index] = Seat()

    def fill_empty(self, level: str) -> None:
        """A bot of ``level`` in every empty seat."""
        for i, s in enumerate(self._seats):
            if s.kind == "empty":
                self._seats[i] = Seat.bot(i, level)

    def set_level(self, index: int, level: str) -> None:
        self._seats[index] = replace(self._seats[index], level=level)

    def connect(self, index: int, conn: ConnId) -> None:
        """The seat's person is here, on ``conn`` (and no longer away)."""
        self._seats[index] = replace(self._seats[index], conn=conn, away=False)

    def disconnect(self, index: int) -> None:
        self._seats[index] = replace(self._seats[index], conn=None)

    def mark_away(self, index: int) -> None:
        """Grace ran out: a stand-in bot plays this person's turns."""
        self._seats[index] = replace(self._seats[index], away=True)

    def set_device(self, index: int, device: str) -> None:
        self._seats[index] = replace(self._seats[index], device=device)

    def rotate_token(self, index: int, digest: str, overlap_until: float | None) -> None:
        """A fresh token's ``digest``; the current one keeps resuming the seat while nobody
        holds it until ``overlap_until`` (None: the client still holds the previous one)."""
        seat = self._seats[index]
        previous = seat.previous
        if overlap_until is not None and seat.token_sha256 is not None:
            previous = (seat.token_sha256, overlap_until)
        self._seats[index] = replace(seat, token_sha256=digest, previous=previous)


class Refusal(Exception):
    """A request refused by the room: becomes an ``error`` frame to its sender only."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(code.value, message)
        self.code: ErrorCode = code
        self.message = message


def error_frame(conn: ConnId, ref: m.RequestId | None, code: ErrorCode, message: str) -> Send:
    return Send(conn, m.dump(m.Error(code=code, message=message, ref=ref)), refusal=code)
