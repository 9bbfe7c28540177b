"""Play now's waiting line: the people queued for each game, in memory for one process
(:class:`MemoryQueue`) or in Redis for every process of the service
(:class:`~server.store.redis_queue.RedisQueue`). Both keep the same rules:

* one entry per player (their identity: a device digest, else the connection); a second
  ``join`` of a player whose entry is still heard from is refused (:class:`AlreadyQueued`);
* an entry lives on its connection's heartbeat (:meth:`QueueStore.touch`, every few seconds
  from the process that holds the connection). One not heard from for ``stale`` seconds (its
  process died) is never seated, and the same player queueing again takes it over with its
  place (the time it queued) kept, until it is purged ``keep`` seconds after it was last heard;
* ``take`` removes a whole table's people at once or nobody (two processes grouping the same
  people: one of them seats them, the other seats nobody);
* at most ``most`` entries per game (:class:`QueueFull`);
* a table opened with bots is offered (:class:`OpenTable`) until its window closes: a player
  who arrives meanwhile leaves the line for one of its bot seats in one step
  (:meth:`QueueStore.take_seat`), one arrival a seat, never one from the address of someone
  seated there;
* a seat given is kept for its player (:class:`Assignment`) until they resume it
  (:meth:`QueueStore.confirm`) or ``keep`` seconds pass, so a ``seated`` lost with a dying
  process is given again when they queue again (:meth:`QueueStore.assigned`).

>>> import asyncio
>>> q = MemoryQueue()
>>> e = Entry("p1", "shithead", "Ann", 0.0, 100.0, None, "here", 7, 100.0)
>>> asyncio.run(q.join(e, now=100.0, stale=10.0, most=10)).since
100.0
>>> asyncio.run(q.take("shithead", ["p1"], now=101.0, stale=10.0))[0].name
'Ann'
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class Entry:
    """One person waiting: who, for which game, the name they sit down with, their skill,
    since when (unix seconds), the origin digest of their address, and where their
    connection is (the process ``owner`` and its connection id), last heard at ``seen``."""

    player: str
    game: str
    name: str
    skill: float
    since: float
    origin: str | None
    owner: str
    conn: int
    seen: float

    def fresh(self, now: float, stale: float) -> bool:
        """Whether its connection was heard from within ``stale`` seconds."""
        return now - self.seen < stale

    def to_json(self) -> dict[str, Any]:
        return {
            "p": self.player,
            "g": self.game,
            "n": self.name,
            "k": self.skill,
            "t": self.since,
            "o": self.origin,
            "w": self.owner,
            "c": self.conn,
            "s": self.seen,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Entry:
        origin = data.get("o")
        return cls(
            str(data["p"]),
            str(data["g"]),
            str(data["n"]),
            float(data["k"]),
            float(data["t"]),
            origin if isinstance(origin, str) else None,
            str(data["w"]),
            int(data["c"]),
            float(data["s"]),
        )


def _strings(value: Any) -> tuple[str, ...]:
    """A JSON list of strings (Redis's Lua writes an empty list as ``{}``)."""
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


@dataclass(frozen=True, slots=True)
class OpenTable:
    """A table Play now opened with bots, open to arrivals until ``until`` (unix seconds):
    its room, its game, its bot seats nobody took yet, and the origin digests of the people
    seated there (a rated table seats one identity an address)."""

    room: str
    game: str
    seats: tuple[int, ...]
    until: float
    origins: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "r": self.room,
            "g": self.game,
            "s": list(self.seats),
            "u": self.until,
            "o": list(self.origins),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> OpenTable:
        seats = data["s"] if isinstance(data["s"], list) else []
        return cls(
            str(data["r"]),
            str(data["g"]),
            tuple(int(x) for x in seats),
            float(data["u"]),
            _strings(data["o"]),
        )

    def takes(self, entry: Entry, now: float) -> bool:
        """Whether ``entry``'s player may take one of its seats now."""
        return (
            bool(self.seats)
            and now < self.until
            and self.game == entry.game
            and (entry.origin is None or entry.origin not in self.origins)
        )


@dataclass(frozen=True, slots=True)
class Assignment:
    """A seat Play now gave a player (its room, game, seat and token), kept until they
    resume it or until ``until``."""

    room: str
    game: str
    seat: int
    token: str
    until: float

    def to_json(self) -> dict[str, Any]:
        return {"r": self.room, "g": self.game, "s": self.seat, "t": self.token, "u": self.until}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Assignment:
        return cls(str(data["r"]), str(data["g"]), int(data["s"]), str(data["t"]), float(data["u"]))


class QueueError(Exception):
    """A ``join`` the queue refuses."""


class AlreadyQueued(QueueError):
    """The player (or this connection) is queued already."""


class QueueFull(QueueError):
    """The game's queue holds its most entries."""


class QueueStore(Protocol):
    """What the queue service needs of the waiting line (memory or Redis)."""

    async def join(self, entry: Entry, *, now: float, stale: float, most: int) -> Entry:
        """Queue ``entry`` (its place kept if it takes over its player's stale entry of the
        same game) and return what is stored.

        Raises:
            AlreadyQueued: the player's entry is still heard from (or is this connection's).
            QueueFull: the game has ``most`` entries.
        """
        ...

    async def leave(self, player: str, owner: str, conn: int) -> bool:
        """Remove the player's entry if it is this connection's; whether one was removed."""
        ...

    async def entries(self, game: str) -> list[Entry]:
        """Every entry of ``game`` (stale ones included)."""
        ...

    async def take(self, game: str, players: list[str], *, now: float, stale: float) -> list[Entry]:
        """Remove all of ``players`` from ``game``'s queue and return their entries, if every
        one of them is there and fresh; else remove nobody and return ``[]``."""
        ...

    async def touch(self, held: list[tuple[str, int]], owner: str, now: float) -> None:
        """Mark the entries of these (player, connection) pairs of process ``owner`` heard."""
        ...

    async def purge(self, now: float, keep: float) -> int:
        """Forget entries not heard from for ``keep`` seconds (and the open tables and
        assignments past their time); how many entries went."""
        ...

    async def offer(self, table: OpenTable) -> None:
        """Offer ``table``'s bot seats to arrivals until ``table.until``."""
        ...

    async def tables(self) -> list[OpenTable]:
        """Every table offered and not purged yet."""
        ...

    async def take_seat(
        self, player: str, owner: str, conn: int, now: float
    ) -> tuple[str, int] | None:
        """In one step: the player's entry (this connection's) leaves the line and takes the
        first free bot seat of an open table of its game where nobody of its origin sits;
        the room and seat, or ``None`` (and the entry stays) if there is none."""
        ...

    async def assign(self, player: str, assignment: Assignment) -> None:
        """Keep the seat given to ``player`` until they resume it."""
        ...

    async def assigned(self, player: str, now: float) -> Assignment | None:
        """The seat given to ``player`` that they have not resumed yet, if any."""
        ...

    async def confirm(self, player: str, room: str) -> None:
        """``player`` resumed a seat of ``room``: its assignment is done with."""
        ...


class MemoryQueue:
    """The queue of one process."""

    def __init__(self) -> None:
        self._entries: dict[str, Entry] = {}
        self._tables: dict[str, OpenTable] = {}
        self._assigned: dict[str, Assignment] = {}

    async def join(self, entry: Entry, *, now: float, stale: float, most: int) -> Entry:
        old = self._entries.get(entry.player)
        if old is not None:
            if (old.owner, old.conn) == (entry.owner, entry.conn) or old.fresh(now, stale):
                raise AlreadyQueued(entry.player)
            if old.game == entry.game:  # its connection is gone: the place is kept
                entry = dataclasses.replace(entry, since=old.since)
        count = sum(1 for e in self._entries.values() if e.game == entry.game)
        if (old is None or old.game != entry.game) and count >= most:
            raise QueueFull(entry.game)
        self._entries[entry.player] = entry
        return entry

    async def leave(self, player: str, owner: str, conn: int) -> bool:
        old = self._entries.get(player)
        if old is None or (old.owner, old.conn) != (owner, conn):
            return False
        del self._entries[player]
        return True

    async def entries(self, game: str) -> list[Entry]:
        return [e for e in self._entries.values() if e.game == game]

    async def take(self, game: str, players: list[str], *, now: float, stale: float) -> list[Entry]:
        found = [self._entries.get(p) for p in players]
        if any(e is None or e.game != game or not e.fresh(now, stale) for e in found):
            return []
        for p in players:
            del self._entries[p]
        return [e for e in found if e is not None]

    async def touch(self, held: list[tuple[str, int]], owner: str, now: float) -> None:
        for player, conn in held:
            old = self._entries.get(player)
            if old is not None and (old.owner, old.conn) == (owner, conn):
                self._entries[player] = dataclasses.replace(old, seen=now)

    async def purge(self, now: float, keep: float) -> int:
        gone = [p for p, e in self._entries.items() if now - e.seen >= keep]
        for p in gone:
            del self._entries[p]
        self._tables = {r: t for r, t in self._tables.items() if now < t.until and t.seats}
        self._assigned = {p: a for p, a in self._assigned.items() if now < a.until}
        return len(gone)

    async def offer(self, table: OpenTable) -> None:
        self._tables[table.room] = table

    async def tables(self) -> list[OpenTable]:
        """Every table open to arrivals (for tests and the operator)."""
        return list(self._tables.values())

    async def take_seat(
        self, player: str, owner: str, conn: int, now: float
    ) -> tuple[str, int] | None:
        entry = self._entries.get(player)
        if entry is None or (entry.owner, entry.conn) != (owner, conn):
            return None
        for room, table in list(self._tables.items()):
            if not table.seats or now >= table.until:
                del self._tables[room]
            elif table.takes(entry, now):
                seat, *rest = table.seats
                origins = (*table.origins, entry.origin) if entry.origin else table.origins
                if rest:
                    self._tables[room] = dataclasses.replace(
                        table, seats=tuple(rest), origins=origins
                    )
                else:  # its last seat
                    del self._tables[room]
                del self._entries[player]
                return room, seat
        return None

    async def assign(self, player: str, assignment: Assignment) -> None:
        self._assigned[player] = assignment

    async def assigned(self, player: str, now: float) -> Assignment | None:
        found = self._assigned.get(player)
        return found if found is not None and now < found.until else None

    async def confirm(self, player: str, room: str) -> None:
        found = self._assigned.get(player)
        if found is not None and found.room == room:
            del self._assigned[player]
