"""Play now: the runtime around the waiting line. A ``queue`` request puts its connection's
player in the line (:mod:`server.store.queue`: this process's memory, or Redis shared by
every process), a ``queue_cancel`` or the connection's close takes them out, and every
``tick`` seconds each process groups the people waiting (:func:`server.rooms.matchmaker.group`),
takes a table's people out of the line at once (in Redis one script: two processes grouping
at once never seat a person twice), opens the room through the manager's one way of making
rooms (:meth:`~server.runtime.manager.RoomManager.open_table`) and tells each person their
seat and its token (``seated``), on whichever process holds their connection. Meanwhile each
queued connection hears ``queued`` on every change of the count and every few seconds.

A process keeps its own queued connections' entries alive (a heartbeat); the entries of a
process that died stop being seated and keep their places for their players' next ``queue``
(from any process) until they are purged.

>>> QueueSettings().table_size("sheepshead"), QueueSettings(shithead_table=3).table_size("shithead")
(5, 3)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol

from protocol import messages as m
from protocol.errors import ErrorCode
from server.rooms.core import RoomCore
from server.rooms.matchmaker import Reserved, Rules, Waiting, Widening, group
from server.rooms.names import clean_name
from server.rooms.refusal import Refusal
from server.rooms.seats import token_digest
from server.rooms.settings import RoomSettings
from server.rules.registry import GAME_NAMES
from server.store.base import StoreUnavailable
from server.store.budgets import AddressBudget, MemoryBudget, Rate
from server.store.queue import AlreadyQueued, Entry, QueueFull, QueueStore
from server.store.queue_ratings import QueueRatings, Unrated

log = logging.getLogger(__name__)

#: The bots that fill a table's empty seats.
FILL_LEVEL = "strong"
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
    tick: float = 0.5  # seconds between two groupings
    status_every: float = 3.0  # seconds between two ``queued`` frames when nothing changed
    stale: float = 3.0  # an entry not heard from this long is never seated (its process died)
    keep: float = 120.0  # ... and forgotten after this long (its place goes)
    widening: Widening = field(default_factory=Widening)

    def table_size(self, game: str) -> int:
        return SHEEPSHEAD_TABLE if game == "sheepshead" else self.shithead_table

    def rules(self, game: str) -> Rules:
        return Rules(self.table_size(game), self.fill_wait, self.widening)


@dataclass(frozen=True, slots=True)
class QueueRoomOptions:
    """How a Play now table's room is made (book rules, a turn timer, rated)."""

    options: m.GameOptions
    turn_timer: int
    rated: bool


def queue_room_options(game: m.GameName, settings: QueueSettings) -> QueueRoomOptions:
    """The one place a Play now room's options are decided: the book's rules, always, and
    rated (its games move the players' ratings)."""
    return QueueRoomOptions(
        options=m.OPTIONS_OF[game](), turn_timer=settings.turn_timer, rated=True
    )


class Tables(Protocol):
    """What the queue needs of the rooms (:class:`~server.runtime.manager.RoomManager`)."""

    settings: RoomSettings

    async def open_table(self, build: Callable[[str], RoomCore], *, keep: bool = False) -> str: ...


class QueueClients(Protocol):
    """What the queue needs to know of who is connected
    (:class:`~server.runtime.connected.Connected`)."""

    def send(self, conn: int, text: str) -> None: ...
    def present(self, conn: int) -> bool: ...
    def address_of(self, conn: int) -> str | None: ...
    def player_of(self, conn: int) -> str | None: ...
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
        self.counts: dict[str, int] = dict.fromkeys(GAME_NAMES, 0)
        self.seated = 0  # people this process seated
        self.tables_opened = 0
        self.lost_races = 0  # tables whose people another process took first
        self.stopping = False
        self._task: asyncio.Task[None] | None = None
        self._purged = 0.0
        self._tasks: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ requests

    async def queue(self, conn: int, msg: m.Queue) -> None:
        """Put ``conn``'s player in the line for ``msg.game``; answered with ``queued``.

        Raises:
            Refusal: ``already_queued``, ``already_in_room``, ``bad_name``,
                ``queue_too_often``, ``queue_penalty``, ``queue_full``, ``store_unavailable``.
        """
        if conn in self.mine:
            raise Refusal(ErrorCode.ALREADY_QUEUED, "you are in the Play now queue already")
        self.clients.check_free(conn)
        name = clean_name(msg.name, [])
        address = self.clients.address_of(conn)
        if address is not None and not await self.budget.take(address):
            why = "you are joining the queue too often; try again in a minute"
            raise Refusal(ErrorCode.QUEUE_TOO_OFTEN, why)
        device = self.clients.player_of(conn)
        player = device or f"c:{self.owner}:{conn}"
        try:
            if device is not None:
                wait = await self.ratings.wait_before_queue(device)
                if wait > 0:
                    why = f"you left a rated game: you may queue again in {wait:.0f} s"
                    raise Refusal(ErrorCode.QUEUE_PENALTY, why)
            skill = await self.ratings.skill(msg.game, device) if device else 0.0
            now = self.clock()
            entry = Entry(
                player,
                msg.game,
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
        mine = _Mine(stored, time.monotonic())
        self.mine[conn] = mine
        self.counts[msg.game] = self.counts.get(msg.game, 0) + 1
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
        for game in GAME_NAMES:
            entries = await self.store.entries(game)
            fresh = [e for e in entries if e.fresh(now, s.stale)]
            people = [Waiting(e.player, e.since, e.skill, e.origin) for e in fresh]
            ready = group(people, now, s.rules(game))
            opened = await asyncio.gather(
                *(self._seat(game, list(t.players), t.bots, now) for t in ready)
            )
            seated = {p for players in opened for p in players}
            self.counts[game] = len(fresh) - len(seated)
            present[game] = {e.player for e in entries} - seated
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

    def _tell(self, conn: int, mine: _Mine, now: float, ref: m.RequestId | None = None) -> None:
        game = mine.entry.game
        waited = max(0.0, now - mine.entry.since)
        count = max(self.counts.get(game, 0), 1)
        frame = m.Queued(
            ref=ref,
            game=game,  # type: ignore[arg-type]  # a game of the registry
            waiting=count,
            waited=round(waited, 1),
            fill_in=round(max(0.0, self.settings.fill_wait - waited), 1),
        )
        mine.told = (self.counts.get(game, 0), now)
        self.clients.send(conn, m.dump(frame))

    async def _seat(self, game: str, players: list[str], bots: int, now: float) -> list[str]:
        """Take ``players`` out of the line and open their table; who was seated."""
        taken = await self.store.take(game, players, now=now, stale=self.settings.stale)
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
        reserved = [
            Reserved(
                name,
                token_digest(token),
                None if e.player.startswith("c:") else e.player,
                e.origin,
            )
            for e, name, token in zip(taken, names, tokens, strict=True)
        ]
        wire_game: m.GameName = "sheepshead" if game == "sheepshead" else "shithead"
        spec = queue_room_options(wire_game, self.settings)
        size = len(taken) + bots

        def build(code: str) -> RoomCore:
            core = RoomCore(
                code,
                wire_game,
                size,
                settings=self.tables.settings,
                options=spec.options,
                turn_timer=spec.turn_timer,
                rated=spec.rated,
            )
            core.seat_table(reserved, FILL_LEVEL, self.clock())
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
