"""Events at run time: the requests of their people and host, the hands their tables report, and
what the event core (:class:`~server.rooms.event_core.EventCore`) asks for in return.

An event belongs to no process. Each input loads its record from the store, applies the input to
the core and saves the record onto the version it loaded (:mod:`server.store.events`); a process
that lost that race loads again and applies the input anew. Only then does anything happen: the
round's tables are opened as rooms (:meth:`server.runtime.manager.RoomManager.open_table`, the
one way rooms are made), a replaced player's seat is given to the stand-in, the tables of an
event ended early close, and the event's frame goes to whoever follows it from this process
and, with Redis, a notice on the channel ``cr:events:changed`` tells the other processes, which
send the event's frame to those following it there.

Each person's place at a table comes with a seat token derived from the server's secret
(:meth:`server.rooms.seeds.Keys.seat_token`): any process gives it to them again, and with it
they ``resume`` their seat as anyone does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any, Protocol

from redis.asyncio import Redis

from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.records import RoomMeta
from server.rooms import event_io as ev
from server.rooms.core import RoomCore
from server.rooms.event_core import EventCore
from server.rooms.event_settings import EventLimits, EventSettings, Reseat, check_start
from server.rooms.event_state import EventPhase
from server.rooms.event_table import EventTable
from server.rooms.refusal import Refusal
from server.rooms.seats import token_digest
from server.rooms.seeds import Keys
from server.rooms.settings import RoomSettings
from server.runtime.manager import new_code
from server.store.base import StoreUnavailable, VersionConflict, WriteRejected
from server.store.budgets import AddressBudget
from server.store.events import EventStore
from server.store.redis_client import global_key

log = logging.getLogger(__name__)

#: Times an input is applied again after losing a race with another process's.
MAX_TRIES = 20
#: Where a process says an event changed, for the others' followers (``PROCESS|CODE``).
CHANGED = global_key("events:changed")
_UNSAVED = "the event store cannot be reached now; nothing changed, try again shortly"


class Tables(Protocol):
    """What events need of the rooms (:class:`~server.runtime.manager.RoomManager`)."""

    settings: RoomSettings

    async def keys(self) -> Keys: ...
    async def open_table(self, build: Callable[[str], RoomCore], *, keep: bool = False) -> str: ...
    def play_for(self, code: str, seat: int) -> None: ...
    def close_table_soon(self, code: str, reason: str) -> None: ...
    def drop_table(self, code: str) -> None: ...


class People(Protocol):
    """Who a connection is and how to reach it (:class:`~server.runtime.connected.Connected`)."""

    def send(self, conn: int, text: str) -> None: ...
    def player_of(self, conn: int) -> str | None: ...
    def address_of(self, conn: int) -> str | None: ...
    def origin_of(self, conn: int) -> str | None: ...


class EventService:
    """Every event this process is asked about (none is held here: see the module doc)."""

    def __init__(
        self,
        store: EventStore,
        tables: Tables,
        people: People,
        limits: EventLimits,
        create_budget: AddressBudget,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.tables = tables
        self.people = people
        self.limits = limits
        self.create_budget = create_budget
        self.clock = clock
        self.followers: dict[str, set[int]] = {}  # event code -> connections here
        self.following: dict[int, str] = {}  # connection -> the event it follows
        self.opened: set[str] = set()  # events this process created, not known over
        self._tasks: set[asyncio.Task[None]] = set()
        self.bus: Redis | None = None  # Redis, to tell the other processes (use_bus)
        self.process = secrets.token_hex(8)
        self._listener: asyncio.Task[None] | None = None
        self._starts: dict[str, asyncio.TimerHandle] = {}  # event code -> its start's timer
        self._fired: set[str] = set()  # events in their lobby whose start time was tried

    def use_bus(self, bus: Redis) -> None:
        """Tell the other processes of this Redis when an event changes, and hear them."""
        self.bus = bus
        self._listener = asyncio.create_task(self._listen(bus), name="events-listen")

    async def _listen(self, bus: Redis) -> None:
        """Send the frames of events other processes changed to their followers here;
        subscribe again after an outage."""
        pubsub: Any = None
        while True:
            try:
                if pubsub is None:
                    pubsub = bus.pubsub()
                    await pubsub.subscribe(CHANGED)
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                if message is None:
                    continue
                sender, _, code = bytes(message["data"]).decode().partition("|")
                if sender != self.process and code in self.followers:
                    self._changed(await self._load(code), tell=False)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis away, or the event gone: listen again
                if pubsub is not None:
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()
                log.warning("events: not listening (%s); trying again", exc)
                pubsub = None
                await asyncio.sleep(0.5)

    # ------------------------------------------------------------------ requests

    async def request(self, conn: int, msg: m.ClientMessage) -> None:
        """A client's event request: answered with an ``ack`` and the event's frame, or
        refused (a :class:`Refusal`, nothing changed)."""
        match msg:
            case m.EventCreate():
                code = await self.create(conn, msg)
            case m.EventJoin(event=code, name=name):
                await self.apply(code, self._join(conn, name))
            case m.EventWatch(event=code):
                if await self.store.load(code) is None:
                    raise Refusal(ErrorCode.EVENT_NOT_FOUND, "no event has that code")
            case m.EventLeave(event=code):
                await self.apply(code, ev.Leave(self._player(conn)))
            case m.EventHost(event=code, op=op, target=target):
                await self._host(conn, code, ev.EventOp(op), target)
            case _:
                raise Refusal(ErrorCode.INVALID_MESSAGE, "not an event request")
        self.people.send(conn, m.dump(m.Ack(ref=msg.id)))
        self.follow(conn, code)
        core = await self._load(code)
        self._send(conn, core)

    def _player(self, conn: int) -> str:
        player = self.people.player_of(conn)
        if player is None:  # events know people by their identity (hello's device)
            why = "say hello with a device identity to take part in an event"
            raise Refusal(ErrorCode.INVALID_MESSAGE, why)
        return player

    def _join(self, conn: int, name: str) -> ev.Join:
        people = self.people
        return ev.Join(self._player(conn), name, people.origin_of(conn))

    async def create(self, conn: int, msg: m.EventCreate) -> str:
        join = self._join(conn, msg.name)
        check_start(msg.start_at, self.clock())
        settings = EventSettings(
            msg.game,
            msg.table_size,
            msg.rounds,
            msg.hands,
            duplicate=msg.duplicate,
            reseat=Reseat(msg.reseat),
            options=msg.options,
            max_tables=self.limits.max_tables,
            rated=msg.rated,
            start_at=msg.start_at,
        ).checked()
        if len(self.opened) >= self.limits.max_events:
            await self._forget_over()
            if len(self.opened) >= self.limits.max_events:
                why = "this server has as many events open as it takes; try again later"
                raise Refusal(ErrorCode.TOO_MANY_EVENTS, why)
        address = self.people.address_of(conn)
        if address is not None and not await self.create_budget.take(address):
            why = "you are opening events too quickly; try again in a minute"
            raise Refusal(ErrorCode.TOO_MANY_EVENTS, why)
        keys = await self.tables.keys()
        for _ in range(20):
            code = new_code()
            nonce = secrets.token_hex(16)
            core = EventCore(code, nonce, settings, seed=keys.event(code, nonce), host=join.player)
            out = core.handle(join, self.clock())
            refused = [o for o in out if isinstance(o, ev.Refused)]
            if refused:
                raise Refusal(refused[0].code, refused[0].message)
            try:
                if await self.store.create(code, core.record()):
                    self.opened.add(code)
                    self._arm(core)
                    return code
            except StoreUnavailable:
                raise Refusal(ErrorCode.STORE_UNAVAILABLE, _UNSAVED) from None
        raise Refusal(ErrorCode.BUSY, "could not find a free event code; try again")

    async def _forget_over(self) -> None:
        """Forget the events this process made that are over (another process may have
        ended them)."""
        for code in list(self.opened):
            record = await self.store.load(code)
            if record is None or record["phase"] == EventPhase.OVER.value:
                self.opened.discard(code)

    async def _host(self, conn: int, code: str, op: ev.EventOp, target: str | None) -> None:
        player = self._player(conn)
        whom = None
        if target is not None:
            record = await self._record(code)
            key = target.casefold()
            whom = next(
                (e["player"] for e in record["entrants"] if e["name"].casefold() == key), ""
            )
        await self.apply(code, ev.HostCommand(player, op, whom))

    # ------------------------------------------------------------------ following

    def follow(self, conn: int, code: str) -> None:
        """``conn`` gets the event's frames from now on (one event a connection)."""
        before = self.following.get(conn)
        if before is not None and before != code:
            self.unfollow(conn)
        self.following[conn] = code
        self.followers.setdefault(code, set()).add(conn)

    def unfollow(self, conn: int) -> None:
        """``conn`` left (or follows another event)."""
        code = self.following.pop(conn, None)
        if code is not None:
            followers = self.followers.get(code, set())
            followers.discard(conn)
            if not followers:
                self.followers.pop(code, None)

    def _send(self, conn: int, core: EventCore) -> None:
        self.people.send(conn, m.dump(m.EventFrame(info=core.info(), you=self._you(conn, core))))

    def _you(self, conn: int, core: EventCore) -> m.EventYou | None:
        player = self.people.player_of(conn)
        entrant = core.state.entrants.get(player or "")
        if player is None or entrant is None:
            return None
        where = core.seat_of(player) if core.phase is EventPhase.PLAYING else None
        if where is None:
            return m.EventYou(name=entrant.name)
        table, seat = where
        keys = self.tables.settings.keys
        assert keys is not None  # set by keys(), before any event is loaded
        token = keys.seat_token(core.code, core.nonce, core.state.round, player)
        room = core.state.rooms[-1][table]
        return m.EventYou(name=entrant.name, room=room, seat=seat, token=token)

    def _changed(self, core: EventCore, tell: bool = True) -> None:
        for conn in list(self.followers.get(core.code, ())):
            self._send(conn, core)
        if tell and self.bus is not None:
            task = asyncio.create_task(self._tell(core.code))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _tell(self, code: str) -> None:
        assert self.bus is not None
        try:
            await self.bus.publish(CHANGED, f"{self.process}|{code}")
        except Exception as exc:  # their followers see it with the next change
            log.warning("events: the other processes not told of %s: %s", code, exc)

    # ------------------------------------------------------------------ applying inputs

    async def _record(self, code: str) -> dict[str, Any]:
        try:
            record = await self.store.load(code)
        except StoreUnavailable:
            raise Refusal(ErrorCode.STORE_UNAVAILABLE, _UNSAVED) from None
        if record is None:
            raise Refusal(ErrorCode.EVENT_NOT_FOUND, "no event has that code")
        return record

    async def _load(self, code: str) -> EventCore:
        record = await self._record(code)
        keys = await self.tables.keys()
        core = EventCore.from_record(record, keys.event(code, record["nonce"]))
        self._arm(core)
        return core

    # ------------------------------------------------------------------ the start time

    def _arm(self, core: EventCore) -> None:
        """Start the event at its start time from this process (every process that loads an
        event in its lobby arms its own timer: whichever fires first starts it, the others'
        find it started)."""
        at = core.settings.start_at
        if core.phase is not EventPhase.LOBBY:
            self._fired.discard(core.code)
            return
        if at is None or core.code in self._starts or core.code in self._fired:
            return
        delay = max(0.0, at - self.clock())
        loop = asyncio.get_running_loop()
        self._starts[core.code] = loop.call_later(delay, self._start_due, core.code)

    def _start_due(self, code: str) -> None:
        self._starts.pop(code, None)
        self._fired.add(code)  # once: too few people then, and it waits for its host
        task = asyncio.create_task(self._due(code))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _due(self, code: str) -> None:
        try:
            core = await self.apply(code, ev.StartDue())
        except Refusal as refusal:  # the store away: the next load arms it again
            log.warning("event %s: not started at its time: %s", code, refusal.message)
            return
        if core.phase is EventPhase.LOBBY and (core.settings.start_at or 0) > self.clock():
            self._fired.discard(code)
            self._arm(core)  # this clock ran ahead of the store's: once more

    async def info(self, code: str) -> m.EventInfo | None:
        """The event's public state (its page), or ``None``: no such event."""
        record = await self.store.load(code)
        if record is None:
            return None
        keys = await self.tables.keys()
        return EventCore.from_record(record, keys.event(code, record["nonce"])).info()

    async def table_public(self, record: RoomMeta) -> bool:
        """Whether an open room's history is everyone's: an event's table whose round every
        table has played (before, its deals would tell the tables still playing them)."""
        table = record.get("table")
        if not table:
            return False
        try:
            stored = await self.store.load(table["event"])
        except StoreUnavailable:
            return False
        if stored is None:
            return True  # the event is gone: its tables are history
        return (
            stored["phase"] == EventPhase.OVER.value or len(stored["seatings"]) > table["round"] + 1
        )

    async def apply(self, code: str, item: ev.EventInput) -> EventCore:
        """Apply ``item`` to the event as stored, store it, then do what it asks.

        Raises:
            Refusal: the core's refusal, ``event_not_found``, ``store_unavailable``, ``busy``.
        """
        for _ in range(MAX_TRIES):
            core = await self._load(code)
            out = core.handle(item, self.clock())
            for o in out:
                if isinstance(o, ev.Refused):
                    raise Refusal(o.code, o.message)
            if ev.PersistEvent() in out:
                try:
                    await self.store.save(code, core.record())
                except VersionConflict:
                    continue  # another process changed it first: once more on its version
                except StoreUnavailable:
                    raise Refusal(ErrorCode.STORE_UNAVAILABLE, _UNSAVED) from None
                except WriteRejected:
                    raise Refusal(ErrorCode.EVENT_NOT_FOUND, "the event is gone") from None
            if core.phase is EventPhase.OVER:
                self.opened.discard(code)
            await self._perform(core, out)
            return core
        raise Refusal(ErrorCode.BUSY, "the event is busy; try again")

    async def _perform(self, core: EventCore, out: list[ev.EventOutput]) -> None:
        """Do what the event asked, the tables to open last: each one opened changes the event
        again, and its frame must come after this one's."""
        for o in out:
            match o:
                case ev.StandIn(room=room, seat=seat) if room is not None:
                    self.tables.play_for(room, seat)
                case ev.CloseTables(rooms=rooms):
                    for room in rooms:
                        self.tables.close_table_soon(room, "the event is over")
                case ev.Changed():
                    self._changed(core)
        for o in out:
            if isinstance(o, ev.OpenTables):
                for spec in o.tables:
                    await self._open(core, o.round, spec)

    async def _open(self, core: EventCore, round_: int, spec: ev.TableSpec) -> None:
        """Open one table of the round as a room and tell the event its code (the first room
        told stays the table's; a second, opened by a process that raced, closes)."""
        keys = await self.tables.keys()
        s = core.settings
        table = EventTable(core.code, core.nonce, round_, spec.index, spec.hands, s.duplicate)
        people: list[tuple[str, str, str | None] | None] = []
        for player in spec.seats:
            if player is None:
                people.append(None)
                continue
            token = keys.seat_token(core.code, core.nonce, round_, player)
            people.append((core.state.entrants[player].name, token_digest(token), player))

        def build(code: str) -> RoomCore:
            room = RoomCore(
                code,
                s.game,
                s.table_size,
                settings=self.tables.settings,
                options=s.rules,
                table=table,
                rated=s.rated,
            )
            room.seat_event_table(people, spec.stand_ins, self.clock())
            return room

        # placed, as Play now's tables are: with several processes behind a proxy, each table
        # lives on the process its code routes to (its people's resumes go there)
        room = await self.tables.open_table(build, keep=True)
        after = await self.apply(core.code, ev.TableOpened(round_, spec.index, room))
        if after.state.round == round_ and after.state.rooms[round_][spec.index] != room:
            self.tables.drop_table(room)

    def hand_played(
        self,
        table: EventTable,
        room: str,
        game: int,
        units: tuple[int, ...],
        result: dict[str, Any],
    ) -> None:
        """A table finished a hand (called by its room's finished games, on the process that
        holds the table): the event is told in a task of its own."""
        item = ev.HandPlayed(table.round, table.table, game, units, result, room=room)
        task = asyncio.create_task(self._report(table.event, item))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _report(self, code: str, item: ev.HandPlayed) -> None:
        try:
            await self.apply(code, item)
        except Refusal as refusal:
            log.warning("event %s: hand %s not counted: %s", code, item, refusal.message)

    async def resume(self) -> int:
        """Open the tables a process stopped before opening (it was killed between storing
        the round and opening its rooms); the number opened."""
        opened = 0
        for code in await self.store.open_codes():
            try:
                core = await self._load(code)
            except Refusal:
                continue
            state = core.state
            if core.phase is not EventPhase.PLAYING:
                continue
            for index, room in enumerate(state.rooms[-1]):
                if room is None:
                    seats = state.seatings[-1][index]
                    stand = frozenset(
                        i for i, p in enumerate(seats) if p and state.entrants[p].stand_in
                    )
                    spec = ev.TableSpec(index, seats, stand, core.settings.hands)
                    await self._open(core, state.round, spec)
                    opened += 1
        return opened

    async def stop(self) -> None:
        for timer in self._starts.values():
            timer.cancel()
        self._starts.clear()
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
        for task in list(self._tasks):
            await task
