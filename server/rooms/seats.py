"""A room's seats (each an immutable :class:`Seat`, held by a :class:`SeatTable` whose methods
are the only way to change one) and the digests their tokens are kept as."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from protocol import messages as m
from server.rooms.outputs import ConnId


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


@dataclass(frozen=True, slots=True)
class Seat:
    kind: m.SeatKind = "empty"
    name: str | None = None
    token_sha256: str | None = None  # the seat token's digest (token_digest), never the token
    level: str | None = None
    conn: ConnId | None = None
    away: bool = False  # grace ran out: a stand-in bot plays this human's turns
    held_until: float | None = None  # gone: the seat is held until then (the grace timer)
    device: str | None = None  # digest of the device token the person played from (results)
    origin: str | None = None  # keyed digest of the address they came from (bans and mutes)
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
            "held_until": self.held_until if self.kind == "human" and not self.away else None,
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
        self,
        index: int,
        name: str,
        token_sha256: str,
        conn: ConnId | None,
        who: tuple[str | None, str | None],
        since: int,
    ) -> None:
        """A person (``who``: their device and origin digests) takes seat ``index``
        (``conn`` ``None``: held for them until they resume with their token)."""
        device, origin = who
        self._seats[index] = Seat(
            kind="human",
            name=name,
            token_sha256=token_sha256,
            conn=conn,
            device=device,
            origin=origin,
            since=since,
        )

    def reserve(self, index: int, name: str, token_sha256: str, device: str | None) -> None:
        """Seat ``index`` is a person's who is not here yet (an event's table, seated by the
        event): their token resumes it."""
        self._seats[index] = Seat(
            kind="human", name=name, token_sha256=token_sha256, device=device, since=index
        )

    def seat_bot(self, index: int, level: str) -> None:
        self._seats[index] = Seat.bot(index, level)

    def empty(self, index: int) -> None:
        self._seats[index] = Seat()

    def fill_empty(self, level: str, only: int | None = None) -> None:
        """A bot of ``level`` in every empty seat (or in seat ``only``, if it is empty)."""
        for i, s in enumerate(self._seats):
            if s.kind == "empty" and only in (None, i):
                self._seats[i] = Seat.bot(i, level)

    def set_level(self, index: int, level: str) -> None:
        self._seats[index] = replace(self._seats[index], level=level)

    def connect(self, index: int, conn: ConnId) -> None:
        """The seat's person is here, on ``conn`` (and no longer away)."""
        self._seats[index] = replace(self._seats[index], conn=conn, away=False, held_until=None)

    def disconnect(self, index: int, held_until: float) -> None:
        """The seat's person went: the seat is held for them until ``held_until``."""
        self._seats[index] = replace(self._seats[index], conn=None, held_until=held_until)

    def mark_away(self, index: int) -> None:
        """Grace ran out (or the host would not wait): a stand-in bot plays this person's
        turns."""
        self._seats[index] = replace(self._seats[index], away=True, held_until=None)

    def set_person(self, index: int, device: str | None, origin: str | None) -> None:
        """The seat's person came back from this device and address (``None``: unchanged)."""
        seat = self._seats[index]
        self._seats[index] = replace(
            seat, device=device or seat.device, origin=origin or seat.origin
        )

    def rotate_token(self, index: int, digest: str, overlap_until: float | None) -> None:
        """A fresh token's ``digest``; the current one keeps resuming the seat while nobody
        holds it until ``overlap_until`` (None: the client still holds the previous one)."""
        seat = self._seats[index]
        previous = seat.previous
        if overlap_until is not None and seat.token_sha256 is not None:
            previous = (seat.token_sha256, overlap_until)
        self._seats[index] = replace(seat, token_sha256=digest, previous=previous)
