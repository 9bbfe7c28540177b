"""Play now: the runtime around the waiting line. A ``queue`` request puts its connection's
player in the line (:mod:`server.store.queue`: this process's memory, or Redis shared by
every process), a ``queue_cancel`` or the connection's close takes them out, and every
``tick`` seconds each process groups the people waiting (:func:`server.rooms.matchmaker.group`),
takes a table's people out of the line at once (in Redis one script: two processes grouping
at once never seat a person twice), opens the room through the manager's one way of making
rooms (:meth:`~server.runtime.manager.RoomManager.open_table`) and tells each person their
seat and its token (``seated``), on whichever process holds their connection. Meanwhile each
queued connection hears ``queued`` on every change of the count and every few seconds.

The bots' ladder is the same line marked for bots (``queue`` with ``ladder``): its own line per
game (:class:`Line`), entered only by bot identities (and they enter no other), its tables rated
in the ladder's own pool (:func:`server.store.ratings.pool`), with a shorter fill wait and turn
timer, and the house levels filling its empty seats in turn, so each plays as an anchor.

A process keeps its own queued connections' entries alive (a heartbeat); the entries of a
process that died stop being seated and keep their places for their players' next ``queue``
(from any process) until they are purged.

A table opened with bots is offered to arrivals for ``take_window`` seconds: a person who
queues meanwhile takes one of its bot seats if the bot there has not moved yet (the store
gives each seat to one arrival, the room says whether its bot has moved:
:mod:`server.rooms.bot_seats`), else waits in the line as anyone does. Every seat given is
kept in the store until its player resumes it, so a ``seated`` lost with a dying process is
given again when they queue again.

>>> QueueSettings().table_size("sheepshead"), QueueSettings(shithead_table=3).table_size("shithead")
(5, 3)
>>> [line.key for line in LINES]
['shithead', 'sheepshead', 'ladder:shithead', 'ladder:sheepshead']
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from protocol import messages as m
from protocol.errors import ErrorCode
from server.rooms.core import RoomCore
from server.rooms.matchmaker import Reserved, Rules, Waiting, Widening, group
from server.rooms.names import bot_name, clean_name
from server.rooms.refusal import Refusal
from server.rooms.seats import token_digest
from server.rooms.settings import RoomSettings
from server.rules.registry import GAME_NAMES
from server.store.base import StoreUnavailable
from server.store.budgets import AddressBudget, MemoryBudget, Rate
from server.store.queue import (
    AlreadyQueued,
    Assignment,
    Entry,
    OpenTable,
    QueueFull,
    QueueStore,
)
from server.store.queue_ratings import QueueRatings, Unrated
from server.store.ratings import pool

log = logging.getLogger(__name__)

#: The bots that fill a table's empty seats.
FILL_LEVEL = "strong"
#: The house levels that fill the ladder's empty seats, in turn: its anchors.
ANCHORS = ("basic", "strong", "expert")
#: Sheepshead is five-handed; Shithead's table size is the operator's.
SHEEPSHEAD_TABLE = 5


@dataclass(frozen=True, slots=True)
class QueueSettings:
    """Play now's settings (``cardroom serve`` flags, docs/running.md)."""

    shithead_table: int = 4  # people (and bots) at a Shithead table
    fill_wait: float = 20.0  # seconds before a table starts with bots in the seats left
    per_game: int = 1000  # entries one game's line holds at most (then queue_full)
    joins_per_minute: float = 6.0  # queue requests one address may make a minute...
    joins_burst: float = 10.0  # ...and at once
    turn_timer: int = 60  # seconds a turn of a Play now table lasts (strangers wait no longer)
    ladder_fill_wait: float = 5.0  # the ladder's: bots queue back to back, anchors fill soon
    ladder_turn_timer: int = 10  # the ladder's: a bot answers within it or gets the stand-in
    tick: float = 0.5  # seconds between two groupings
    status_every: float = 3.0  # seconds between two ``queued`` frames when nothing changed
    stale: float = 3.0  # an entry not heard from this long is never seated (its process died)
    take_window: float = 15.0  # seconds a table filled with bots offers its bot seats
    keep: float = 120.0  # ... and forgotten after this long (its place goes)
    widening: Widening = field(default_factory=Widening)

    def table_size(self, game: str) -> int:
        return SHEEPSHEAD_TABLE if game == "sheepshead" else self.shithead_table

    def rules(self, line: Line) -> Rules:
        wait = self.ladder_fill_wait if line.ladder else self.fill_wait
        return Rules(self.table_size(line.game), wait, self.widening)


@dataclass(frozen=True, slots=True)
class Line:
    """One waiting line: a game's people's, or its bots' ladder's. ``key`` names it in the
    store and is the ratings pool its tables move."""

    game: m.GameName
    ladder: bool = False

    @property
    def key(self) -> str:
        return pool(self.game, self.ladder)


#: Every line, the people's first.
LINES: tuple[Line, ...] = tuple(
    Line(cast(m.GameName, game), ladder) for ladder in (False, True) for game in GAME_NAMES
)
_LINE_OF = {line.key: line for line in LINES}


@dataclass(frozen=True, slots=True)
class QueueRoomOptions:
    """How a Play now table's room is made (book rules, a turn timer, rated)."""

    options: m.GameOptions
    turn_timer: int
    rated: bool
    ladder: bool = False


def queue_room_options(
    game: m.GameName, settings: QueueSettings, *, ladder: bool = False
) -> QueueRoomOptions:
    """The one place a Play now room's options are decided: the book's rules, always, and
    rated (its games move the players' ratings; a ladder table's, the ladder's)."""
    timer = settings.ladder_turn_timer if ladder else settings.turn_timer
    return QueueRoomOptions(
        options=m.OPTIONS_OF[game](), turn_timer=timer, rated=True, ladder=ladder
    )


class Tables(Protocol):
    """What the queue needs of the rooms (:class:`~server.runtime.manager.RoomManager`)."""

    settings: RoomSettings

    async def open_table(self, build: Callable[[str], RoomCore], *, keep: bool = False) -> str: ...
    async def take_bot_seat(self, code: str, seat: int, person: Reserved) -> bool: ...


class QueueClients(Protocol):
    """What the queue needs to know of who is connected
    (:class:`~server.runtime.connected.Connected`)."""

    def send(self, conn: int, text: str) -> None: ...
    def present(self, conn: int) -> bool: ...
    def address_of(self, conn: int) -> str | None: ...
    def player_of(self, conn: int) -> str | None: ...
    def bot_of(self, conn: int) -> bool: ...
    def origin_of(self, conn: int) -> str | None: ...
    def check_free(self, conn: int, code: str | None = None) -> None: ...


#: Tells a connection of another process a frame: ``(process, its connection, text)``.
Relay = Callable[[str, int, str], None]


@dataclass(slots=True)
class _Mine:
    """A connection of this process in the line: its entry, when it joined (by this
    process's clock), and what its last ``queued`` said."""

    entry: Entry
    joined: float
    told: tuple[int, float] = (-1, 0.0)  # (count, when)


class QueueService:
    """Play now for one process (use: :meth:`start`, then :meth:`queue`, :meth:`cancel`,
    :meth:`disconnected` from the server; :meth:`stop`)."""

    def __init__(
        self,
        store: QueueStore,
        tables: Tables,
        clients: QueueClients,
        settings: QueueSettings | None = None,
        *,
        owner: str = "local",
        relay: Relay | None = None,
        ratings: QueueRatings | None = None,
        budget: AddressBudget | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.tables = tables
        self.clients = clients
        self.settings = settings or QueueSettings()
        s = self.settings
        self.owner = owner
        self.relay = relay
        self.ratings: QueueRatings = ratings or Unrated()
        self.budget = budget or MemoryBudget("queue", Rate(s.joins_per_minute / 60, s.joins_burst))
        self.clock = clock
        self.mine: dict[int, _Mine] = {}
        self.counts: dict[str, int] = dict.fromkeys((line.key for line in LINES), 0)
        self.seated = 0  # people this process seated
        self.tables_opened = 0
        self.lost_races = 0  # tables whose people another process took first
        self.took_bot_seats = 0  # people this process seated in a bot's seat
        self._placing: set[int] = set()  # connections being given a bot's seat now
        self.stopping = False
        self._task: asyncio.Task[None] | None = None
        self._purged = 0.0
        self._tasks: set[asyncio.Task[None]] = set()
        self._anchor = 0  # the house level that fills the ladder's next empty seat

    # ------------------------------------------------------------------ requests

    async def queue(self, conn: int, msg: m.Queue) -> None:
        """Put ``conn``'s player in the line for ``msg.game`` (its ladder's, with
        ``msg.ladder``); answered with ``queued``, and ``seated`` at once if a table of that
        line in its first seconds has a bot's seat for them, or if a seat given to them before
        was never resumed (its ``seated`` was lost).

        Raises:
            Refusal: ``already_queued``, ``already_in_room``, ``bad_name``,
                ``ladder_bots_only``, ``bots_to_ladder``, ``queue_too_often``,
                ``queue_penalty``, ``queue_full``, ``store_unavailable``.
        """
        if conn in self.mine or conn in self._placing:
            raise Refusal(ErrorCode.ALREADY_QUEUED, "you are in the Play now queue already")
        self.clients.check_free(conn)
        name = clean_name(msg.name, [])
        bot = self.clients.bot_of(conn)
        if msg.ladder and not bot:
            why = "the ladder is for bot identities (a hello with bot=true); people play now"
            raise Refusal(ErrorCode.LADDER_BOTS_ONLY, why)
        if bot and not msg.ladder:
            why = "a bot identity plays on the ladder (queue with ladder=true), never with people"
            raise Refusal(ErrorCode.BOTS_TO_LADDER, why)
        line = Line(msg.game, msg.ladder)
        address = self.clients.address_of(conn)
        if address is not None and not await self.budget.take(address):
            why = "you are joining the queue too often; try again in a minute"
            raise Refusal(ErrorCode.QUEUE_TOO_OFTEN, why)
        device = self.clients.player_of(conn)
        player = device or f"c:{self.owner}:{conn}"
        try:
            now = self.clock()
            given = await self.store.assigned(device, now) if device is not None else None
            if given is not None:  # its ``seated`` was lost (its process died): again, even
                self._seated_now(conn, given, msg.id)  # to one whose stand-in took over
                return
            if device is not None:
                wait = await self.ratings.wait_before_queue(device)
                if wait > 0:
                    why = f"you left a rated game: you may queue again in {wait:.0f} s"
                    raise Refusal(ErrorCode.QUEUE_PENALTY, why)
            skill = await self.ratings.skill(line.key, device) if device else 0.0
            entry = Entry(
                player,
                line.key,
                name,
                skill,
                now,
                self.clients.origin_of(conn),
                self.owner,
                conn,
                now,
            )
            stored = await self.store.join(
                entry, now=now, stale=self.settings.stale, most=self.settings.per_game
            )
        except AlreadyQueued:
            why = "you are in the Play now queue already (on another connection)"
            raise Refusal(ErrorCode.ALREADY_QUEUED, why) from None
        except QueueFull:
            why = "too many people are waiting for this game; try again shortly"
            raise Refusal(ErrorCode.QUEUE_FULL, why) from None
        except StoreUnavailable:
            raise Refusal(ErrorCode.STORE_UNAVAILABLE, "the queue cannot be reached") from None
        if not self.clients.present(conn) or conn in self.mine:  # gone (or queued) meanwhile
            with contextlib.suppress(StoreUnavailable):
                await self.store.leave(player, self.owner, conn)
            if conn in self.mine:
                raise Refusal(ErrorCode.ALREADY_QUEUED, "you are in the Play now queue already")
            return
        self._placing.add(conn)
        try:
            if await self._to_bot_seat(conn, stored, msg.id):
                return
        finally:
            self._placing.discard(conn)
        if not self.clients.present(conn):  # gone while a bot's seat was looked for
            with contextlib.suppress(StoreUnavailable):
                await self.store.leave(player, self.owner, conn)
            return
        mine = _Mine(stored, time.monotonic())
        self.mine[conn] = mine
        self.counts[line.key] = self.counts.get(line.key, 0) + 1
        self._tell(conn, mine, now, ref=msg.id)

    async def cancel(self, conn: int, msg: m.QueueCancel) -> None:
        """Take ``conn``'s player out of the line; answered with ``ack``.

        Raises:
            Refusal: ``not_queued``.
        """
        mine = self.mine.pop(conn, None)
        if mine is None:
            raise Refusal(ErrorCode.NOT_QUEUED, "you are not in the Play now queue")
        with contextlib.suppress(StoreUnavailable):
            await self.store.leave(mine.entry.player, self.owner, conn)
        self.clients.send(conn, m.dump_ack(msg.id))

    def resumed(self, conn: int, room: str) -> None:
        """``conn`` resumes a seat of ``room``: a seat Play now gave its player there was
        received, and is not given again."""
        device = self.clients.player_of(conn)
        if device is not None:
            self._spawn(self._confirm(device, room))

    async def _confirm(self, player: str, room: str) -> None:
        with contextlib.suppress(StoreUnavailable):
            await self.store.confirm(player, room)

    def disconnected(self, conn: int) -> None:
        """``conn`` closed: out of the line (unless this process is stopping: then the entry
        keeps its place for the player's next ``queue``, on another process)."""
        mine = self.mine.pop(conn, None)
        if mine is None or self.stopping:
            return
        self._spawn(self._leave(mine.entry.player, conn))

    def queued(self, conn: int) -> bool:
        return conn in self.mine

    async def _leave(self, player: str, conn: int) -> None:
        with contextlib.suppress(StoreUnavailable):
            await self.store.leave(player, self.owner, conn)

    # ------------------------------------------------------------------ the loop

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="queue")

    @property
    def running(self) -> bool:
        """Whether the grouping loop runs."""
        return self._task is not None and not self._task.done()

    async def stop(self) -> None:
        """Stop grouping (the loop ends at its next turn even if a Redis call it was in
        swallowed the cancellation) and wait for the leaves under way."""
        self.stopping = True
        if self._task is not None:
            self._task.cancel()
            await asyncio.wait({self._task}, timeout=self.settings.tick + 5.0)
        for task in list(self._tasks):
            await task

    async def _run(self) -> None:
        while not self.stopping:
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except StoreUnavailable as exc:
                log.warning("queue: the store is away: %s", exc)
            except Exception:
                log.exception("queue: a grouping failed")
            if self.stopping:  # a cancelled Redis call may answer as an error, not a cancel
                return
            await asyncio.sleep(self.settings.tick)

    async def tick(self) -> None:
        """Keep this process's entries alive, seat every table ready, and tell the people
        still waiting how many wait with them."""
        s = self.settings
        started = time.monotonic()
        now = self.clock()
        held = [(mine.entry.player, conn) for conn, mine in self.mine.items()]
        if held:
            await self.store.touch(held, self.owner, now)
        present: dict[str, set[str]] = {}
        for line in LINES:
            entries = await self.store.entries(line.key)
            fresh = [e for e in entries if e.fresh(now, s.stale)]
            people = [Waiting(e.player, e.since, e.skill, e.origin) for e in fresh]
            ready = group(people, now, s.rules(line))
            opened = await asyncio.gather(
                *(self._seat(line, list(t.players), t.bots, now) for t in ready)
            )
            seated = {p for players in opened for p in players}
            self.counts[line.key] = len(fresh) - len(seated)
            present[line.key] = {e.player for e in entries} - seated
        if now - self._purged >= s.keep / 4:
            self._purged = now
            await self.store.purge(now, s.keep)
        for conn, mine in list(self.mine.items()):
            if mine.joined < started and mine.entry.player not in present[mine.entry.game]:
                del self.mine[conn]  # seated by another process (it told them), or purged
                continue
            count, when = mine.told
            if count != self.counts[mine.entry.game] or now - when >= s.status_every:
                self._tell(conn, mine, now)

    async def _to_bot_seat(self, conn: int, entry: Entry, ref: m.RequestId) -> bool:
        """Seat ``conn``'s player (just queued as ``entry``) in a bot's seat of a table in its
        first seconds, if there is one whose bot has not moved; whether they were seated (if
        not, they are in the line, in their place)."""
        now = self.clock()
        try:
            offer = await self.store.take_seat(entry.player, self.owner, conn, now)
        except StoreUnavailable:
            return False
        if offer is None:
            return False
        code, seat = offer
        token = secrets.token_urlsafe(24)
        device = _device(entry.player)
        person = Reserved(entry.name, token_digest(token), device, entry.origin)
        if not await self.tables.take_bot_seat(code, seat, person):
            # the bot moved first, or the room is gone: back in the line, in their place
            try:
                await self.store.join(entry, now=self.clock(), stale=1e9, most=1 << 30)
            except AlreadyQueued:  # queued again meanwhile, from another connection
                why = "you are in the Play now queue already (on another connection)"
                raise Refusal(ErrorCode.ALREADY_QUEUED, why) from None
            except (QueueFull, StoreUnavailable):
                why = "the queue cannot be reached"
                raise Refusal(ErrorCode.STORE_UNAVAILABLE, why) from None
            return False
        self.seated += 1
        self.took_bot_seats += 1
        given = Assignment(code, entry.game, seat, token, now + self.settings.keep)
        if device is not None:
            with contextlib.suppress(StoreUnavailable):
                await self.store.assign(device, given)
        self._seated_now(conn, given, ref)
        return True

    def _seated_now(self, conn: int, given: Assignment, ref: m.RequestId) -> None:
        """Answer a ``queue`` with a seat at once: ``queued`` (its answer) then ``seated``."""
        line = _LINE_OF[given.game]
        frame = m.Queued(
            ref=ref, game=line.game, ladder=line.ladder, waiting=1, waited=0.0, fill_in=0.0
        )
        self.clients.send(conn, m.dump(frame))
        seated = m.Seated(game=line.game, room=given.room, seat=given.seat, token=given.token)
        self.clients.send(conn, m.dump(seated))

    def _tell(self, conn: int, mine: _Mine, now: float, ref: m.RequestId | None = None) -> None:
        line = _LINE_OF[mine.entry.game]
        waited = max(0.0, now - mine.entry.since)
        count = max(self.counts.get(line.key, 0), 1)
        frame = m.Queued(
            ref=ref,
            game=line.game,
            ladder=line.ladder,
            waiting=count,
            waited=round(waited, 1),
            fill_in=round(max(0.0, self.settings.rules(line).fill_wait - waited), 1),
        )
        mine.told = (self.counts.get(line.key, 0), now)
        self.clients.send(conn, m.dump(frame))

    async def _seat(self, line: Line, players: list[str], bots: int, now: float) -> list[str]:
        """Take ``players`` out of the line and open their table; who was seated."""
        taken = await self.store.take(line.key, players, now=now, stale=self.settings.stale)
        if not taken:
            self.lost_races += 1  # another process seated (some of) them first
            return []
        tokens = [secrets.token_urlsafe(24) for _ in taken]
        names: list[str] = []
        for e in taken:
            name = e.name
            while name in names:
                name = f"{e.name[:60]} {len(names) + 1}"
            names.append(name)
        if line.ladder:  # a bot identity is seen as one wherever it sits
            names = [bot_name(name) for name in names]
        reserved = [
            Reserved(name, token_digest(token), _device(e.player), e.origin)
            for e, name, token in zip(taken, names, tokens, strict=True)
        ]
        wire_game = line.game
        spec = queue_room_options(wire_game, self.settings, ladder=line.ladder)
        size = len(taken) + bots
        levels: tuple[str, ...] = (FILL_LEVEL,)
        if line.ladder:  # each anchor in turn, so every house level plays the ladder
            levels = tuple(ANCHORS[(self._anchor + i) % len(ANCHORS)] for i in range(max(bots, 1)))
            self._anchor = (self._anchor + 1) % len(ANCHORS)

        def build(code: str) -> RoomCore:
            core = RoomCore(
                code,
                wire_game,
                size,
                settings=self.tables.settings,
                options=spec.options,
                turn_timer=spec.turn_timer,
                rated=spec.rated,
                ladder=spec.ladder,
            )
            core.seat_table(reserved, levels, self.clock())
            return core

        try:
            code = await self.tables.open_table(build)
        except (Refusal, StoreUnavailable) as exc:  # back in the line, in their places
            log.warning("queue: a table could not be opened (%s); its people wait on", exc)
            for e in taken:
                with contextlib.suppress(AlreadyQueued, QueueFull, StoreUnavailable):
                    await self.store.join(e, now=now, stale=self.settings.stale, most=1 << 30)
            return []
        self.tables_opened += 1
        self.seated += len(taken)
        s = self.settings
        until = now + s.keep
        try:
            if bots:  # open to arrivals in its first seconds
                origins = tuple(e.origin for e in taken if e.origin is not None)
                seats = tuple(range(len(taken), size))
                until_taken = now + s.take_window  # offered to its own line's arrivals only
                await self.store.offer(OpenTable(code, line.key, seats, until_taken, origins))
            # kept until each resumes: a ``seated`` lost on its way is given again
            await asyncio.gather(
                *(
                    self.store.assign(e.player, Assignment(code, line.key, seat, token, until))
                    for seat, (e, token) in enumerate(zip(taken, tokens, strict=True))
                    if _device(e.player) is not None
                )
            )
        except StoreUnavailable as exc:
            log.warning("queue: table %s opened, not offered nor kept (%s)", code, exc)
        for seat, (e, token) in enumerate(zip(taken, tokens, strict=True)):
            text = m.dump(m.Seated(game=wire_game, room=code, seat=seat, token=token))
            if e.owner == self.owner:
                mine = self.mine.get(e.conn)
                if mine is not None and mine.entry.player == e.player:
                    del self.mine[e.conn]
                self.clients.send(e.conn, text)
            elif self.relay is not None:
                self.relay(e.owner, e.conn, text)
        return [e.player for e in taken]

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _device(player: str) -> str | None:
    """A player's device digest (``None``: a connection without one, known as ``c:...``)."""
    return None if player.startswith("c:") else player
