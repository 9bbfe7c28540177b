"""All the rooms of one process: creating them under fresh codes, routing messages to their
actors (or, through the ownership strategy, to the process that holds a room), and closing
them. Who is connected and which room each connection is in is
:class:`~server.runtime.connected.Connected`'s; who holds a room, the :class:`Ownership`'s
(:class:`~server.runtime.ownership.OneProcess`, or
:class:`~server.runtime.cluster.Cluster`'s Redis leases), given at construction."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
import time
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Protocol, TypeAlias

from protocol import messages as m
from protocol.errors import ErrorCode
from server.bots.pool import BotPool
from server.metrics import Metrics
from server.rooms.budgets import Budget, CreateBudgets, OverBudget
from server.rooms.core import RoomCore, check_create
from server.rooms.inputs import (
    BotPlaysFor,
    CreateHost,
    Disconnect,
    Request,
    RoomRequest,
    TakeBotSeat,
)
from server.rooms.matchmaker import Reserved
from server.rooms.names import clean_name
from server.rooms.refusal import Refusal
from server.rooms.seeds import Keys
from server.rooms.settings import RoomSettings
from server.runtime.actor import Owner, RoomActor
from server.runtime.finished import HandSink
from server.runtime.ownership import ANSWER_WAIT, CloseNow, Elsewhere, OneProcess, StandInNow, Told
from server.runtime.placement import HeldBack
from server.store.base import RoomStore, StoredRoom, StoreError, StoreUnavailable
from server.store.budgets import AddressBudget, MemoryBudget, Rate
from server.store.health import StoreHealth
from server.store.leaderboard import Leaderboards, MemoryLeaderboards
from server.store.ratings import MemoryRatings, Ratings

log = logging.getLogger(__name__)

#: Room codes: five characters from an alphabet without look-alikes (no 0/O, 1/I/L).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 5

_UNSAVED = "the room store cannot be reached right now, so nothing changed; try again shortly"
_MOVED = "the room moved; resume with your token"
#: What a process that shuts down tells its clients (``closing``).
SHUTDOWN = "server shutting down; reconnect to resume your seat"


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


class Clients(Protocol):
    """What the rooms need to know of who is connected
    (:class:`~server.runtime.connected.Connected`)."""

    def send(self, conn: int, text: str) -> None: ...
    def present(self, conn: int) -> bool: ...
    def forget(self, conn: int) -> str | None: ...
    def address_of(self, conn: int) -> str | None: ...
    def device_of(self, conn: int) -> str | None: ...
    def player_of(self, conn: int) -> str | None: ...
    def origin_of(self, conn: int) -> str | None: ...
    def check_free(self, conn: int, code: str | None = None) -> None: ...
    def enter(self, conn: int, code: str) -> None: ...
    def placed(self, conn: int, code: str) -> None: ...
    def left(self, conn: int, code: str) -> None: ...
    def empty(self, code: str) -> list[int]: ...
    def follows_rooms(self, conn: int) -> bool: ...


class Ownership(Protocol):
    """Who holds a room: this process alone (:class:`~server.runtime.ownership.OneProcess`) or
    whichever process of several on one Redis holds its lease
    (:class:`~server.runtime.cluster.Cluster`)."""

    #: Seconds to wait for a dead owner's lease to run out before taking its room over.
    takeover_wait: float
    #: Whether a room created for a ``/ws`` client is let go at once, for the process its code
    #: hashes to (server/runtime/placement.py).
    places_rooms: bool

    async def start(self, rooms: RoomManager) -> None: ...
    async def stop(self) -> None: ...
    async def claim(self, code: str, wait: float = 0.0) -> int | Elsewhere: ...
    def release(self, code: str) -> None: ...
    async def let_go(self, code: str) -> None: ...
    async def forward(self, conn: int, code: str, owner: str, msg: RoomRequest) -> bool: ...
    async def take_bot_seat(self, owner: str, code: str, seat: int, person: Reserved) -> bool: ...
    def tell(self, owner: str, code: str, told: Told) -> None: ...
    def disconnected(self, conn: int) -> None: ...
    async def peers(self) -> list[str]: ...
    async def hand_over(self, codes: Sequence[str], to_owner: str) -> list[str]: ...


#: A room found for a message: its actor here, the process that owns it, or none.
Found: TypeAlias = RoomActor | Elsewhere | None


class RoomManager:
    """The rooms of this process. With ``load_on_demand`` (a store shared beyond this process,
    such as Redis), a room this process does not hold is loaded from the store the first time a
    message names it: players resume after a restart or crash whenever they come back."""

    def __init__(
        self,
        store: RoomStore,
        metrics: Metrics,
        settings: RoomSettings,
        clock: Callable[[], float] = time.time,
        *,
        clients: Clients,
        ownership: Ownership | None = None,
        boards: Leaderboards | None = None,
        ratings: Ratings | None = None,
        health: StoreHealth | None = None,
        load_on_demand: bool = False,
        bot_pool: BotPool | None = None,
        create_budget: AddressBudget | None = None,
    ) -> None:
        self.store = store
        self.metrics = metrics
        self.settings = settings
        self.clock = clock
        self.clients = clients
        self.send = clients.send  # the rooms' frames: straight to the outbox (the hot path)
        self.ownership: Ownership = ownership or OneProcess()
        self.boards = boards or MemoryLeaderboards()
        self.ratings = ratings or MemoryRatings(clock)
        self.health = health or StoreHealth(store)
        self.load_on_demand = load_on_demand
        self.rooms: dict[str, RoomActor] = {}
        self._secret_checked = False  # keys() checked the secret against the store
        self.budgets = CreateBudgets(settings)
        # rooms created per client address (a rate; in Redis, shared by every process)
        self.create_budget = create_budget or MemoryBudget(
            "rooms", Rate(settings.rooms_per_minute / 60.0, settings.rooms_burst)
        )
        self._closing: set[asyncio.Task[None]] = set()
        self._loading: dict[str, asyncio.Future[Found]] = {}
        # rooms made here and let go for another process (placement.py), still counted in the
        # budgets of the address that opened them (and this process's cap) for a while
        self._placed: dict[str, asyncio.TimerHandle] = {}
        # rooms let go for another process, checked once their lobby would have closed
        self._unclaimed: dict[str, asyncio.TimerHandle] = {}
        self._tables_let_go: dict[str, int] = {}  # an event's tables let go: their fences
        self.stopping = False  # shutting down: rooms are being saved and handed over
        self.told: set[int] = set()  # this process's clients told ``closing`` already
        self.use_bot_pool(bot_pool or BotPool())
        # where events' tables report their hands (server/runtime/events.py), once set
        self.hands: HandSink | None = None

    async def start(self) -> None:
        """Start what ownership runs beside the rooms (listening to the other processes)."""
        await self.ownership.start(self)

    # connections

    def disconnected(self, conn: int) -> None:
        """A client is gone (from this process, or a relayed one from another)."""
        self.ownership.disconnected(conn)  # the owner of a room it was relayed to lets it go
        code = self.clients.forget(conn)
        if code is not None and code in self.rooms:
            self.rooms[code].submit(Disconnect(conn))

    def use_bot_pool(self, pool: BotPool) -> None:
        """Think with ``pool`` (before any room asks a bot), its counts in this server's metrics."""
        self.bot_pool = pool
        pool.observe_wait = self.metrics.bot_wait
        self.metrics.watch_bots(pool.stats, self.bot_states)

    def bot_states(self) -> tuple[int, int]:
        """The slow bots' states the open rooms hold: how many, and their bytes."""
        count = size = 0
        for actor in self.rooms.values():
            n, b = actor.bot_states()
            count, size = count + n, size + b
        return count, size

    def sync_member(self, conn: int, code: str, member: bool) -> None:
        """Record whether ``conn`` is in room ``code`` after that room handled its request.

        A connection is claimed for a room when its request is queued (:meth:`route`), so a
        second ``join``/``watch``/``create`` pipelined behind it is refused at once; a refused
        request releases the claim here.
        """
        if member:
            if self.clients.present(conn):
                self.clients.placed(conn, code)
            elif code in self.rooms:  # it went away while its request waited in the queue
                self.rooms[code].submit(Disconnect(conn))
        else:
            self.clients.left(conn, code)

    def detach(self, conn: int, code: str) -> None:
        self.clients.left(conn, code)

    # rooms

    async def keys(self) -> Keys:
        """The server secret's keys (fair deals), from the store the first time unless given:
        no room is built without them, so every process on one store deals alike."""
        if not self._secret_checked:
            keys = self.settings.keys or Keys(await self.store.server_secret())
            try:  # the same secret in every process of the store
                await self.store.check_secret(keys.fingerprint())
            except StoreUnavailable:
                self.health.down()
                raise Refusal(ErrorCode.STORE_UNAVAILABLE, _UNSAVED) from None
            self.settings = dataclasses.replace(self.settings, keys=keys)
            self._secret_checked = True
        assert self.settings.keys is not None
        return self.settings.keys

    async def create(self, conn: int, msg: m.Create, received: float) -> None:
        self.clients.check_free(conn)
        await self.keys()
        clean_name(msg.name, [])  # a bad name opens no room
        # a refused room claims nothing: no lease, no fence key, no record
        check_create(
            msg.game,
            msg.seats,
            daily=msg.daily,
            hints=msg.hints,
            options=msg.options,
            rated=msg.rated,
        )
        # the opener, as its record keeps it: the keyed digest of the address (the address
        # itself until the secret is read)
        address = self.clients.origin_of(conn) or self.clients.address_of(conn)
        try:
            self.budgets.take(address, len(self.rooms) + len(self._placed))
            client = self.clients.address_of(conn)  # its key, as its other budgets count it
            if client is not None and not await self.create_budget.take(client):
                why = "you are opening rooms too quickly; try again in a minute"
                raise OverBudget(Budget.PER_MINUTE, why)
        except OverBudget as over:
            self.metrics.rooms_refused.labels(over.budget.value).inc()
            raise
        core, fence = await self._new_room(
            lambda code: RoomCore(
                code,
                msg.game,
                msg.seats,
                settings=self.settings,
                options=msg.options,
                turn_timer=msg.turn_timer,
                time_bank=msg.time_bank,
                daily=msg.daily,
                hints=msg.hints,
                rated=msg.rated,
                opener=address,
            )
        )
        if self.ownership.places_rooms and self.clients.follows_rooms(conn):
            await self._place(conn, msg, received, core, fence, address)
            return
        actor = self.actor_for(core, fence)
        self.rooms[core.code] = actor
        self.budgets.opened(core.code, address)
        self.metrics.rooms.set(len(self.rooms))
        actor.start()
        self.clients.placed(conn, core.code)  # claimed before the next frame is read
        actor.submit(self._create_host(conn, msg), received=received)

    async def _new_room(self, build: Callable[[str], RoomCore]) -> tuple[RoomCore, int]:
        """A room ``build`` makes under a fresh code, its lease claimed and its record stored
        (the one way rooms are made: ``create`` and Play now's tables).

        Raises:
            Refusal: ``store_unavailable``, ``busy`` (no free code found).
        """
        for _ in range(20):
            code = new_code()
            if code in self.rooms:
                continue
            claimed = await self.ownership.claim(code)
            if isinstance(claimed, Elsewhere):
                continue
            try:
                core = build(code)
                created = await self.store.create(code, core.meta(), fence=claimed)
            except StoreUnavailable:
                self._unclaim(code)
                self.health.down()
                raise Refusal(ErrorCode.STORE_UNAVAILABLE, _UNSAVED) from None
            except BaseException:  # any other failure (cancelled, a refusal): the lease goes
                self._unclaim(code)
                raise
            if created:
                return core, claimed
            self._unclaim(code)
        raise Refusal(ErrorCode.BUSY, "could not find a free room code; try again")

    async def open_table(self, build: Callable[[str], RoomCore], *, keep: bool = False) -> str:
        """Open a room whose people are seated already, held for them until they resume
        with their tokens (Play now's tables, an event's); its code. With placement (several
        processes behind a proxy) it is let go at once for the process its code hashes to,
        which loads it when the first of them resumes there. A placed room nobody took by the
        time its lobby would have closed is deleted, or, with ``keep`` (an event's table: its
        event waits for its hands), taken here, where its stand-ins play for whoever is away.
        An event's tables take no one's room budget: their event bounded their number when it
        was made."""
        await self.keys()  # the room's deals need the server's keys
        core, fence = await self._new_room(build)
        if self.ownership.places_rooms:
            await self.ownership.let_go(core.code)
            self.metrics.rooms_placed += 1
            later = asyncio.get_running_loop().call_later
            wait = self.settings.lobby_timeout + self.settings.grace
            then = self._take_soon if keep else self._collect_soon
            self._unclaimed[core.code] = later(wait, then, core.code, fence)
            if keep:
                self._tables_let_go[core.code] = fence
            return core.code
        actor = self.actor_for(core, fence)
        self.rooms[core.code] = actor
        self.metrics.rooms.set(len(self.rooms))
        actor.start(core.restored(self.clock()))
        return core.code

    def play_for(self, code: str, seat: int) -> None:
        """The stand-in plays ``seat`` of room ``code`` from now on, wherever it is held."""
        self._soon(self.tell(code, StandInNow(seat)))

    def close_table_soon(self, code: str, reason: str) -> None:
        """Close room ``code`` (an event's table, its event over), wherever it is held."""
        self._soon(self.tell(code, CloseNow(reason)))

    async def tell(self, code: str, told: Told, *, forwarded: bool = False) -> None:
        """Give room ``code`` what ``told`` says: here (loaded first if no process holds it),
        or on the process that owns it (``forwarded``: asked by another process already, so
        never sent on)."""
        try:
            where = self.rooms.get(code) or await self._load(code)
        except Refusal:  # the store is away: the player's grace, or the room's idle end, will
            return
        if isinstance(where, Elsewhere):
            if not forwarded:
                self.ownership.tell(where.owner, code, told)
            return
        if where is None:
            return
        match told:
            case StandInNow(seat=seat):
                where.submit(BotPlaysFor(seat))
            case CloseNow(reason=reason):
                await self.close_room(code, reason)

    def _soon(self, call: Coroutine[Any, Any, None]) -> None:
        """Run ``call`` in the background, kept until it is done."""
        task = asyncio.create_task(call)
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def take_bot_seat(
        self, code: str, seat: int, person: Reserved, *, forwarded: bool = False
    ) -> bool:
        """Seat ``person`` in bot seat ``seat`` of Play now's table ``code``
        (:mod:`server.rooms.bot_seats`) wherever the room is: here (loaded first if no
        process holds it), or on the process that owns it (``forwarded``: asked by another
        process already, so never sent on). Whether the room took them, as it answers once
        it stored the change; no answer within :data:`ANSWER_WAIT` seconds is a no."""
        try:
            where = self.rooms.get(code) or await self._load(code)
        except Refusal:  # the store is away
            return False
        if isinstance(where, Elsewhere):
            if forwarded:
                return False
            return await self.ownership.take_bot_seat(where.owner, code, seat, person)
        if where is None:
            return False
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def told(ok: bool) -> None:
            if not answer.done():
                answer.set_result(ok)

        # the room refuses it once this process stops waiting (held back while the store was
        # away, say): else the person would have this seat and a place in the line
        where.submit(TakeBotSeat(seat, person, told, self.clock() + ANSWER_WAIT / 2))
        try:
            return await asyncio.wait_for(answer, ANSWER_WAIT)
        except TimeoutError:
            return False

    async def _place(
        self,
        conn: int,
        msg: m.Create,
        received: float,
        core: RoomCore,
        fence: int,
        address: str | None,
    ) -> None:
        """Seat the host, store the room and let it go for the process its code hashes to
        (server/runtime/placement.py); then the host hears ``moved`` and its ``joined``."""
        held = HeldBack(self)
        actor = self.actor_for(core, fence, owner=held)
        actor.submit(self._create_host(conn, msg), received=received)
        try:
            seated = await held.seat_host(actor, conn)
        finally:
            await self.ownership.let_go(core.code)
        if seated:
            self.metrics.rooms_placed += 1
            # it counts for its opener as if open here, for as long as a room nobody is in
            # would stay open: this process never hears when the room closes elsewhere
            self.budgets.opened(core.code, address)
            later = asyncio.get_running_loop().call_later
            self._placed[core.code] = later(self.settings.idle_timeout, self._unplace, core.code)
            wait = self.settings.lobby_timeout + self.settings.grace
            self._unclaimed[core.code] = later(wait, self._collect_soon, core.code, fence)
        for to, text in held.frames:
            self.send(to, text)

    def _create_host(self, conn: int, msg: m.Create) -> CreateHost:
        return CreateHost(conn, msg, self.clients.player_of(conn), self.clients.origin_of(conn))

    def _collect_soon(self, code: str, fence: int) -> None:
        self._unclaimed.pop(code, None)
        self._soon(self._collect(code, fence))

    def drop_table(self, code: str) -> None:
        """An event's table opened twice (two processes raced): the room its event did not
        keep is closed here, or deleted if it was let go and nobody took it yet."""
        fence = self._tables_let_go.pop(code, None)
        handle = self._unclaimed.get(code)
        if code in self.rooms:
            self.close_room_soon(code, "another process opened this table")
        elif handle is not None and fence is not None:
            handle.cancel()
            self._collect_soon(code, fence)

    def _take_soon(self, code: str, fence: int) -> None:
        """An event's table let go that no process took: taken here (if no process holds it
        by now), so that its stand-ins play its hands and its event goes on."""
        self._unclaimed.pop(code, None)
        self._tables_let_go.pop(code, None)
        self._soon(self._take(code))

    async def _take(self, code: str) -> None:
        try:
            found = await self._load(code)
        except Refusal as refusal:  # the store away: its people's resumes load it later
            log.warning("event table %s not taken: %s", code, refusal.message)
            return
        if isinstance(found, RoomActor):
            log.info("event table %s was let go and never taken: played here", code)

    async def _collect(self, code: str, fence: int) -> None:
        """A room let go for another process that no process took by the time its lobby
        would have closed (its host never came back for it) is deleted, as its lobby would
        have been: else it stayed in the store a day, held by nobody, with no timeout running.
        The delete carries the fence it was let go with, so a room some process claimed since
        is left alone."""
        if code in self.rooms:
            return
        try:
            await self.store.delete(code, fence=fence)
        except StoreError:  # taken elsewhere (fenced), or the store is away: it lives on
            return
        log.info("room %s was let go and never taken: deleted", code)
        placed = self._placed.pop(code, None)
        if placed is not None:
            placed.cancel()
        self.budgets.closed(code)

    def _unplace(self, code: str) -> None:
        """A room let go for another process no longer counts in this one's budgets."""
        self._placed.pop(code, None)
        if code not in self.rooms:
            self.budgets.closed(code)

    def actor_for(self, core: RoomCore, fence: int = 0, owner: Owner | None = None) -> RoomActor:
        """An actor for ``core`` in this process (``fence``: its lease's token; ``owner``: the
        rooms it belongs to, this manager unless given). The room's opener, kept in its
        record, shares the bot pool with the other rooms they opened."""
        return RoomActor(
            core,
            owner or self,
            self.store,
            self.metrics,
            self.clock,
            boards=self.boards,
            health=self.health,
            bots=self.bot_pool,
            devices=self.clients,
            fence=fence,
            opener=core.opener,
            ratings=self.ratings,
            hands=self.hands,
        )

    def _unclaim(self, code: str) -> None:
        """Release the lease of a code this process claimed but opened no room under."""
        if code not in self.rooms:
            self.ownership.release(code)

    def route_now(
        self, conn: int, msg: RoomRequest, received: float
    ) -> Coroutine[Any, Any, None] | None:
        """:meth:`route` at once when the room is held here (the usual case); else the
        coroutine that routes it (loading it, or forwarding it to its owner)."""
        actor = self.rooms.get(msg.room)
        if actor is None:
            return self.route(conn, msg, received)
        self._submit(conn, msg, received, actor)
        return None

    async def route(
        self, conn: int, msg: RoomRequest, received: float, *, forwarded: bool = False
    ) -> None:
        """Send a room message to its room's actor (loading the room first if need be), or to
        the process that owns it (``forwarded``: it came from another process already)."""
        code = msg.room
        if self.stopping:  # a relayed request while the rooms go: the client resumes later
            raise Refusal(ErrorCode.SHUTTING_DOWN, "the server is restarting; try again shortly")
        # an unknown room is refused as such before membership is looked at
        where = self.rooms.get(code) or await self._load(code)
        if isinstance(where, Elsewhere) and not forwarded:
            self.clients.check_free(conn, code)  # one room at a time, here or there
            if await self.ownership.forward(conn, code, where.owner, msg):
                return
            # its owner died: take the room over once its lease runs out (a load already on
            # its way may not have waited for that: ask again)
            for _ in range(3):
                where = await self._load(code, wait=self.ownership.takeover_wait)
                if not isinstance(where, Elsewhere):
                    break
        actor = where if isinstance(where, RoomActor) else None
        if actor is None:
            raise Refusal(ErrorCode.ROOM_NOT_FOUND, f"no open room has the code {code}")
        self._submit(conn, msg, received, actor)

    def _submit(self, conn: int, msg: RoomRequest, received: float, actor: RoomActor) -> None:
        """Hand a request to the room's actor, once its connection may send it there."""
        # a seat taken keeps its player's device digest (for results), a room's bans and
        # mutes name it and the address's origin: only these need them
        device = origin = None
        if isinstance(msg, m.Join | m.Watch | m.Resume):
            self.clients.enter(conn, msg.room)  # in it from now: a second one is refused
            device, origin = self.clients.player_of(conn), self.clients.origin_of(conn)
        else:
            self.clients.check_free(conn, msg.room)
        actor.submit(Request(conn, msg, device, origin), received=received)

    async def restore(self) -> int:
        """Reopen every room in the store (after a restart); players resume with tokens."""
        await self.keys()
        count = 0
        for code in await self.store.list():
            stored = await self.store.load(code)
            if stored is not None and code not in self.rooms and self._open(code, stored):
                count += 1
        self.metrics.rooms.set(len(self.rooms))
        return count

    async def _load(self, code: str, wait: float = 0.0) -> Found:
        """The room ``code`` from the store, once even if several messages ask at once (or
        the process that owns it; ``wait``: seconds to wait for a dead owner's lease)."""
        if not self.load_on_demand or len(code) != CODE_LENGTH:
            return None
        loading = self._loading.get(code)
        if loading is None:
            loading = asyncio.ensure_future(self._load_now(code, wait))
            self._loading[code] = loading
            loading.add_done_callback(lambda _: self._loading.pop(code, None))
        return await asyncio.shield(loading)

    async def _load_now(self, code: str, wait: float) -> Found:
        await self.keys()
        fence = await self.ownership.claim(code, wait)
        if isinstance(fence, Elsewhere):
            return fence
        try:
            stored = await self.store.load(code)
        except StoreUnavailable:
            self.health.down()
            raise Refusal(ErrorCode.STORE_UNAVAILABLE, _UNSAVED) from None
        if code in self.rooms:  # opened meanwhile (created here, say)
            return self.rooms[code]

        if stored is None or not self._open(code, stored, fence):
            self.ownership.release(code)
            return None
        placed = self._placed.pop(code, None)
        if placed is not None:  # made here, let go, back: it counts as any room open here
            placed.cancel()
        unclaimed = self._unclaimed.pop(code, None)
        if unclaimed is not None:
            unclaimed.cancel()
        self._tables_let_go.pop(code, None)
        self.metrics.rooms.set(len(self.rooms))
        log.info("room %s loaded from the store at version %d", code, self.rooms[code].core.version)
        return self.rooms[code]

    def _open(self, code: str, stored: StoredRoom, fence: int = 0) -> bool:
        """Start an actor for a stored room; ``False`` if its record does not rebuild."""
        try:
            core = RoomCore.from_stored(stored.record, stored.actions, self.settings)
        except Exception:
            log.exception("room %s could not be restored", code)
            return False
        actor = self.actor_for(core, fence)
        self.rooms[code] = actor
        self.budgets.opened(code, core.opener)  # it counts for its opener here too
        actor.start(core.restored(self.clock()))
        return True

    def evict_soon(self, code: str, reason: str) -> None:
        """Let a room go from this process without deleting it (it lives on in the store)."""
        self._soon(self.close_room(code, reason, delete=False))

    def close_room_soon(self, code: str, reason: str) -> None:
        self._soon(self.close_room(code, reason))

    async def close_room(self, code: str, reason: str, delete: bool = True) -> None:
        actor = self.rooms.pop(code, None)
        if actor is None:
            return
        self.budgets.closed(code)
        self.metrics.rooms.set(len(self.rooms))
        text = m.dump(m.Closing(reason=f"room closed: {reason}"))
        for conn in self.clients.empty(code):
            self.clients.send(conn, text)
        await actor.stop()
        if delete:
            try:
                await self.store.delete(code, fence=actor.fence)
            except StoreError as exc:  # it expires by itself (see server/store/base.py)
                log.warning("room %s closed here but not deleted from the store: %s", code, exc)
        self.ownership.release(code)

    async def _stop_room(self, actor: RoomActor) -> None:
        """Stop one room at shutdown, after what it queued, and save its record."""
        await actor.stop()
        try:
            await self.store.save(actor.code, actor.core.meta(), fence=actor.fence)
        except StoreError as exc:  # every action is stored already; only the record waits
            log.warning("room %s: record not saved at shutdown: %s", actor.code, exc)

    def _handed_over(self, code: str) -> None:
        """A room now held by another process: its clients are told at once. Clients relayed
        here from other processes resume there (their connection stays); this process's own
        come back through another process (this one closes their connections soon)."""
        self.metrics.handovers.labels("given").inc()
        self.rooms.pop(code, None)
        moved, closing = m.dump(m.Closing(reason=_MOVED)), m.dump(m.Closing(reason=SHUTDOWN))
        for conn in self.clients.empty(code):
            relayed = self.clients.address_of(conn) is None
            self.clients.send(conn, moved if relayed else closing)
            if not relayed:
                self.told.add(conn)

    async def adopt(self, code: str) -> bool:
        """A room another process handed to this one (its lease is ours already): load it
        now, so its timers and bots go on before any player comes back. ``False`` if this
        process is stopping too, holds ``max_rooms`` already, or the room is not in the store
        (the caller lets the lease go)."""
        taken = (
            not self.stopping
            and len(self.rooms) < self.settings.max_rooms
            and isinstance(await self._load(code), RoomActor)
        )
        self.metrics.handovers.labels("taken" if taken else "let_go").inc()
        return taken

    async def shutdown(self) -> None:
        """Stop every room after what it has queued, save each one's record, and hand it to
        a live peer process if there is one (else its lease is released: the next process a
        message reaches takes it over)."""
        self.stopping = True
        peers = await self.ownership.peers()
        actors = list(self.rooms.values())
        # every room stops and saves at once (the saves go out together, server/store/batch.py),
        # then each peer takes its share in one call: a round trip or two for all the rooms,
        # where one a room made the last room wait behind all the others
        await asyncio.gather(*(self._stop_room(actor) for actor in actors))
        shares: dict[str, list[str]] = {}
        for i, actor in enumerate(actors):
            if peers:
                shares.setdefault(peers[i % len(peers)], []).append(actor.code)
        handed = await asyncio.gather(
            *(self.ownership.hand_over(codes, peer) for peer, codes in shares.items())
        )
        for code in (code for codes in handed for code in codes):
            self._handed_over(code)
        self.metrics.rooms.set(len(self.rooms))
        for handle in self._unclaimed.values():
            handle.cancel()
        self._unclaimed.clear()
        for task in list(self._closing):
            await task
        await self.ownership.stop()  # leases released: others take over at once
        await self.bot_pool.close()
