"""Everything about a room that an input may change, as one value: :class:`RoomState`, with
the changes that concern only it (who sits and watches, the host role, moderation).

A room's fixed facts (code, game, seat count, settings, options, seeds) live on the
:class:`~server.rooms.core.RoomCore` beside it; what changes lives here, so that putting a room
back (:mod:`server.rooms.rollback`) is copying this one value, whatever fields it gains.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, Protocol

from protocol import messages as m
from server.bots.base import rated_id
from server.rooms.clock import TurnClock
from server.rooms.event_table import EventTable
from server.rooms.matches import Match
from server.rooms.outputs import ConnId
from server.rooms.seats import SeatTable
from server.rooms.settings import RoomSettings

#: Device digests a room keeps banned (kick) or muted; beyond, the oldest are forgotten.
MAX_MODERATED = 64
#: Devices of other people on a moderated person's address that their ban or mute spares.
MAX_SPARED = 16


@dataclass(frozen=True, slots=True)
class Person:
    """Who sends a request, as a room knows them: a digest of their device identity (none
    without one) and a keyed digest of their address (``origin``; none when unknown). A ban or
    a mute binds to both: a person sheds a device by reconnecting without it, an address far
    less easily."""

    device: str | None = None
    origin: str | None = None


def _hits(marks: dict[str, tuple[str, ...]], person: Person) -> bool:
    """Whether ``person``'s address is marked, and their device is not one it spares."""
    spared = marks.get(person.origin) if person.origin is not None else None
    return spared is not None and (person.device is None or person.device not in spared)


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
    # a daily match's standing, decided when it starts: True, its player's first daily match of
    # the day (it ranks if finished within the day); False, a later one (it never ranks)
    daily_ranked: bool | None = None
    spectators: set[ConnId] = field(default_factory=set)
    where: dict[ConnId, int | None] = field(default_factory=dict)  # conn -> seat (None: watching)
    pending: dict[int, int] = field(default_factory=dict)  # seat -> version a bot was asked at
    stand_in: set[int] = field(default_factory=set)  # humans out of time: a bot may move for them
    # the time bank (RoomCore.time_bank): seconds each seat has left this match (a seat not in
    # it has the whole bank), and (version, seat, since) while a seat spends it
    banks: dict[int, float] = field(default_factory=dict)
    banking: tuple[int, int, float] | None = None
    hints: dict[int, int] = field(default_factory=dict)  # seat -> version of the hint it awaits
    contributed: dict[int, bytes] = field(default_factory=dict)  # seat -> value for the next deal
    # moderation: devices the host removed (kick) may not come back; muted ones not chat
    banned: list[str] = field(default_factory=list)  # digests, oldest first (MAX_MODERATED)
    muted_seats: set[int] = field(default_factory=set)
    muted_devices: list[str] = field(default_factory=list)  # digests, oldest first
    muted_watchers: set[ConnId] = field(default_factory=set)
    # ...and their addresses: origin -> the devices of others there it spares (present then)
    banned_origins: dict[str, tuple[str, ...]] = field(default_factory=dict)
    muted_origins: dict[str, tuple[str, ...]] = field(default_factory=dict)
    watchers: dict[ConnId, int] = field(default_factory=dict)  # spectator -> its chat number
    watch_devices: dict[ConnId, str] = field(default_factory=dict)  # spectator -> its device
    watch_origins: dict[ConnId, str] = field(default_factory=dict)  # spectator -> its origin
    next_watcher: int = 0
    # spectators who asked to play (join with ``wait``), in order: conn -> (name, the join's
    # id); seated as the game ends while a seat is free (at most one per spectator)
    waiting: dict[ConnId, tuple[str, m.RequestId]] = field(default_factory=dict)
    seatings: int = 0  # people seated so far: the order the host role passes in
    # a rated room (the host may change it before the start): its games move ratings
    rated: bool = False
    # each seat's rated identity when the current rated game (Shithead) or match (Sheepshead)
    # was dealt: a person's device digest, a house bot's level as "bot:LEVEL"; None: unrated
    rated_seats: list[str | None] = field(default_factory=list)
    # seats whose rated player left during it, and the name they played under
    deserted: dict[int, str] = field(default_factory=dict)
    # each rated seat's change at the end of the last rated game, once recorded
    ratings: tuple[m.RatingShift, ...] | None = None
    # after the match: where the table plays again (room code, and the host's seat and name)
    again: tuple[str, int, str] | None = None
    # spectators' comings and goings: no room frame for them to everyone before this (unix
    # time), and whether one is held back until then
    frame_quiet_until: float = 0.0
    frame_due: bool = False

    # ------------------------------------------------------------------ people

    def contributions(self) -> list[bytes | None]:
        """The next deal's contributions in seat order (a seat a person no longer holds has
        none)."""
        contributed = self.contributed
        return [contributed.get(i) if s.kind == "human" else None for i, s in enumerate(self.seats)]

    def seat_human(
        self, index: int, conn: ConnId | None, name: str, token_sha256: str, who: Person
    ) -> None:
        self.contributed.pop(index, None)  # a new person: their own value, if any
        self.seatings += 1
        self.seats.seat_human(
            index, name, token_sha256, conn, (who.device, who.origin), self.seatings
        )

    def desert(self, index: int) -> None:
        """Seat ``index``'s rated player left during a rated game (a ``leave``, or gone past
        the grace): they are ranked last in it, however their stand-in plays on."""
        if index < len(self.rated_seats) and self.rated_seats[index]:
            self.deserted.setdefault(index, self.seats[index].name or "")

    def rate_lineup(self, per_match: bool) -> None:
        """A game was dealt: in a rated room, who plays it is who is rated for it (a new rated
        unit: every Shithead game; a Sheepshead match's first hand only, ``per_match``)."""
        if not self.rated or (per_match and self.rated_seats):
            return
        lineup: list[str | None] = []
        for seat in self.seats:
            if seat.kind == "human":
                lineup.append(seat.device)
            elif seat.kind == "bot" and seat.level is not None:
                lineup.append(rated_id(seat.level))
            else:
                lineup.append(None)
        self.rated_seats = lineup
        self.deserted = {}

    def same_address(self, origin: str | None, skip: int | None = None) -> bool:
        """Whether a person other than seat ``skip``'s already sits here from ``origin``."""
        return origin is not None and any(
            s.kind == "human" and s.origin == origin and i != skip for i, s in enumerate(self.seats)
        )

    def replace_human(self, index: int, stand_in: str) -> None:
        """A human leaves a seat: empty before play, a ``stand_in`` bot once the match has
        begun."""
        if self.match is None:
            self.seats.empty(index)
        else:
            self.seats.seat_bot(index, stand_in)
        self.muted_seats.discard(index)
        self.pass_host_from(index)

    def add_watcher(self, conn: ConnId, who: Person) -> None:
        self.spectators.add(conn)
        self.where[conn] = None
        self.watchers[conn] = self.next_watcher
        self.next_watcher += 1
        if who.device is not None:
            self.watch_devices[conn] = who.device
        if who.origin is not None:
            self.watch_origins[conn] = who.origin

    def forget_watcher(self, conn: ConnId) -> None:
        self.spectators.discard(conn)
        self.watchers.pop(conn, None)
        self.watch_devices.pop(conn, None)
        self.watch_origins.pop(conn, None)
        self.muted_watchers.discard(conn)
        self.waiting.pop(conn, None)

    def pass_host_from(self, index: int) -> None:
        """Seat ``index`` was left, or its person is away past grace: if it hosts, the role
        passes to the connected person seated longest (nobody connected: to whoever has sat
        longest, who may come back; the next person to join or resume takes it then)."""
        if self.host != index:
            return
        present, longest = self.seats.longest_seated()
        self.host = present if present is not None else longest

    def take_host_if_gone(self, index: int) -> bool:
        """Seat ``index``'s person is here: they host if the host's person is gone (away past
        grace, or no host at all); ``True`` if the role came to them."""
        host = self.seats[self.host] if self.host is not None else None
        if self.host == index or (host is not None and host.kind == "human" and not host.away):
            return False
        self.host = index
        return True

    # ------------------------------------------------------------------ moderation

    def is_banned(self, who: Person) -> bool:
        return (who.device is not None and who.device in self.banned) or _hits(
            self.banned_origins, who
        )

    def seat_muted(self, index: int) -> bool:
        seat = self.seats[index]
        device = seat.device
        return (
            index in self.muted_seats
            or (device is not None and device in self.muted_devices)
            or _hits(self.muted_origins, Person(device, seat.origin))
        )

    def chat_muted(self, conn: ConnId, seat: int | None) -> bool:
        if seat is not None:
            return self.seat_muted(seat)
        device = self.watch_devices.get(conn)
        return (
            conn in self.muted_watchers
            or (device is not None and device in self.muted_devices)
            or _hits(self.muted_origins, Person(device, self.watch_origins.get(conn)))
        )

    def _people(self) -> list[Person]:
        """Everyone in the room now: the seated humans and the spectators."""
        seated = [Person(s.device, s.origin) for s in self.seats if s.kind == "human"]
        return seated + [
            Person(self.watch_devices.get(c), self.watch_origins.get(c)) for c in self.spectators
        ]

    def _marked(
        self, marks: dict[str, tuple[str, ...]], who: Person, on: bool
    ) -> dict[str, tuple[str, ...]]:
        """``marks`` with ``who``'s address marked (or not): the devices of the others there
        now are spared (people of one household already at the table are not punished for
        one of them), newcomers from it are not."""
        if who.origin is None:
            return marks
        kept = {o: spared for o, spared in marks.items() if o != who.origin}
        if not on:
            return kept
        spared = sorted(
            {
                p.device
                for p in self._people()
                if p.origin == who.origin and p.device is not None and p.device != who.device
            }
        )[:MAX_SPARED]
        kept[who.origin] = tuple(spared)
        return dict(list(kept.items())[-MAX_MODERATED:])

    def ban(self, index: int) -> None:
        """Keep the person of seat ``index`` out of this room (the host kicked them): their
        device and their address."""
        seat = self.seats[index]
        if seat.device is not None and seat.device not in self.banned:
            self.banned = [*self.banned, seat.device][-MAX_MODERATED:]
        self.banned_origins = self._marked(
            self.banned_origins, Person(seat.device, seat.origin), True
        )

    def mute_device(self, device: str | None, muted: bool) -> None:
        if device is None:
            return
        kept = [d for d in self.muted_devices if d != device]
        self.muted_devices = [*kept, device][-MAX_MODERATED:] if muted else kept

    def _mute(self, who: Person, muted: bool) -> None:
        self.mute_device(who.device, muted)
        self.muted_origins = self._marked(self.muted_origins, who, muted)

    def mute_seat(self, index: int, muted: bool) -> None:
        """Mute (or unmute) seat ``index``, its person's device and their address."""
        (self.muted_seats.add if muted else self.muted_seats.discard)(index)
        seat = self.seats[index]
        self._mute(Person(seat.device, seat.origin), muted)

    def mute_watcher(self, number: int | None, muted: bool) -> bool:
        """Mute (or unmute) the spectator whose chat lines carry ``number``, their device and
        their address; ``False`` if there is none."""
        watcher = next((c for c, n in self.watchers.items() if n == number), None)
        if number is None or watcher is None:
            return False
        (self.muted_watchers.add if muted else self.muted_watchers.discard)(watcher)
        self._mute(Person(self.watch_devices.get(watcher), self.watch_origins.get(watcher)), muted)
        return True

    # ------------------------------------------------------------------ rollback

    def copy(self) -> RoomState:
        """A copy that shares nothing mutable with this state (the match aside): every field,
        each container copied (taken before every input: kept quick)."""
        return _copy(self)


#: The state's fields, in order (what :meth:`RoomState.copy` copies: all of them).
FIELDS = tuple(f.name for f in fields(RoomState))
#: The mutable types a field may hold: copied with their ``copy()`` (anything else must be an
#: immutable value; a test checks every field of a playing room).
CONTAINERS: frozenset[type] = frozenset({set, dict, list, SeatTable})
#: The fields declared as one of :data:`CONTAINERS` (a test checks each holds one, and that the
#: others hold none).
_CONTAINER_NAMES = {t.__name__ for t in CONTAINERS}
COPIED = tuple(f.name for f in fields(RoomState) if str(f.type).split("[")[0] in _CONTAINER_NAMES)


def _copier() -> Callable[[RoomState], RoomState]:
    """:meth:`RoomState.copy`'s body, written out field by field once, as dataclasses writes
    ``__init__``: a new state's slots set straight (every field of :data:`FIELDS`, the
    containers of :data:`COPIED` copied), without ``__init__``'s 22 parameters and defaults or
    a type test per field (5.4 -> 2.2 µs a copy, one per input)."""
    lines = ["def copy(s):", "    n = new(RoomState)"]
    for name in FIELDS:
        value = f"s.{name}.copy()" if name in COPIED else f"s.{name}"
        lines.append(f"    n.{name} = {value}")
    lines.append("    return n")
    scope: dict[str, Any] = {"new": object.__new__, "RoomState": RoomState}
    exec("\n".join(lines), scope)  # the text is made above from the field names alone
    copy: Callable[[RoomState], RoomState] = scope["copy"]
    return copy


_copy = _copier()

#: A state as :func:`snapshot` keeps it: every field's value in :data:`FIELDS` order, each
#: container a copy of its own, or ``None`` where it was empty.
Snapshot = tuple[object, ...]


def _snapshotters() -> tuple[Callable[[RoomState], Snapshot], Callable[[Snapshot], RoomState]]:
    """:func:`snapshot` and :func:`from_snapshot`, written out field by field once (as
    :func:`_copier`). A snapshot is taken before every input and almost never used, and most
    of a playing room's 14 containers are empty (no spectator, no moderation, no bot asked):
    an empty one is kept as ``None`` rather than copied, and made again only on a restore."""
    take = ["def snapshot(s):", "    return ("]
    for name in FIELDS:
        value = f"s.{name}.copy() if s.{name} else None" if name in COPIED else f"s.{name}"
        take.append(f"        {value},")
    take.append("    )")
    give = ["def from_snapshot(t):", "    n = new(RoomState)"]
    for i, name in enumerate(FIELDS):
        if name in COPIED:
            empty = f"{_EMPTY[name].__name__}()"
            give.append(f"    v = t[{i}]")
            give.append(f"    n.{name} = {empty} if v is None else v.copy()")
        else:
            give.append(f"    n.{name} = t[{i}]")
    give.append("    return n")
    scope: dict[str, Any] = {"new": object.__new__, "RoomState": RoomState}
    scope.update({t.__name__: t for t in CONTAINERS})
    exec("\n".join(take) + "\n" + "\n".join(give), scope)  # made from the field names alone
    return scope["snapshot"], scope["from_snapshot"]


#: Each container field's type (what an empty one is made again as).
_EMPTY: dict[str, type] = {
    f.name: next(t for t in CONTAINERS if str(f.type).split("[")[0] == t.__name__)
    for f in fields(RoomState)
    if f.name in COPIED
}
snapshot, from_snapshot = _snapshotters()
snapshot.__doc__ = """``state`` as one tuple that shares nothing mutable with it (the match
aside); :func:`from_snapshot` makes a state of it again (a fresh one each time)."""


class RoomFacts(Protocol):
    """What a room's parts (its record, frames, play, the host's commands) read of it: its
    fixed facts, and its state. :class:`~server.rooms.core.RoomCore` is one."""

    @property
    def code(self) -> str: ...
    @property
    def game(self) -> m.GameName: ...
    @property
    def players(self) -> int: ...
    @property
    def settings(self) -> RoomSettings: ...
    @property
    def seed(self) -> int | None: ...
    @property
    def nonce(self) -> str: ...
    @property
    def options(self) -> m.GameOptions: ...
    @property
    def turn_timer(self) -> int | None: ...
    @property
    def time_bank(self) -> int | None: ...
    @property
    def daily(self) -> bool: ...
    @property
    def hints(self) -> bool: ...
    @property
    def ladder(self) -> bool: ...
    @property
    def opener(self) -> str | None: ...
    @property
    def table(self) -> EventTable | None: ...
    @property
    def state(self) -> RoomState: ...
