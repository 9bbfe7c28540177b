"""All the rooms of one process: creating them under fresh codes, routing messages to their
actors, tracking which connection is in which room, and closing them."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
import time
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from protocol import messages as m
from protocol.errors import ErrorCode
from server.bots.pool import BotPool
from server.metrics import Metrics
from server.rooms.actor import RoomActor
from server.rooms.budgets import CreateBudgets, OverBudget
from server.rooms.cluster import Cluster, Elsewhere
from server.rooms.core import RoomCore, check_create
from server.rooms.inputs import CreateHost, Disconnect, Request, RoomRequest
from server.rooms.names import clean_name
from server.rooms.seats import Refusal, RoomSettings
from server.rooms.seeds import Keys
from server.store.base import RoomStore, StoredRoom, StoreError, StoreUnavailable
from server.store.health import StoreHealth
from server.store.leaderboard import Leaderboards, MemoryLeaderboards, player_id

log = logging.getLogger(__name__)

#: Room codes: five characters from an alphabet without look-alikes (no 0/O, 1/I/L).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 5

_UNSAVED = "the room store cannot be reached right now, so nothing changed; try again shortly"


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


class Outbox(Protocol):
    """What a room needs of a connection: a way to queue a text frame."""

    def send(self, text: str) -> None: ...


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
        boards: Leaderboards | None = None,
        health: StoreHealth | None = None,
        load_on_demand: bool = False,
        bot_pool: BotPool | None = None,
    ) -> None:
        self.store = store
        self.metrics = metrics
        self.settings = settings
        self.clock = clock
        self.boards = boards or MemoryLeaderboards()
        self.health = health or StoreHealth(store)
        self.load_on_demand = load_on_demand
        self.rooms: dict[str, RoomActor] = {}
        self.conns: dict[int, Outbox] = {}
        self.room_of: dict[int, str] = {}
        self.devices: dict[int, str] = {}  # connection -> device token from its hello
        self.addresses: dict[int, str] = {}  # connection -> its client's address (budgets)
        self.budgets = CreateBudgets(settings)
        self._closing: set[asyncio.Task[None]] = set()
        self._loading: dict[str, asyncio.Future[RoomActor | Elsewhere | None]] = {}
        self.cluster: Cluster | None = None  # several processes on one Redis (set by the server)
        self.use_bot_pool(bot_pool or BotPool())

    # connections

    def connected(self, conn: int, outbox: Outbox, address: str | None = None) -> None:
        """A client connected (``address``: where from, for the room budgets; ``None`` for a
        client relayed by another process, which checked them)."""
        self.conns[conn] = outbox
        if address is not None:
            self.addresses[conn] = address

    def disconnected(self, conn: int) -> None:
        self.conns.pop(conn, None)
        self.devices.pop(conn, None)
        self.addresses.pop(conn, None)
        if self.cluster is not None:
            self.cluster.disconnected(conn)
        code = self.room_of.pop(conn, None)
        if code is not None and code in self.rooms:
            self.rooms[code].submit(Disconnect(conn))

    def device_of(self, conn: int) -> str | None:
        """The device token the connection said hello with, if any (for leaderboards)."""
        return self.devices.get(conn)

    def player_of(self, conn: int) -> str | None:
        """The connection's player id on the boards (a digest of its device token), if any."""
        device = self.devices.get(conn)
        return player_id(device) if device else None

    def use_bot_pool(self, pool: BotPool) -> None:
        """Think with ``pool`` (before any room asks a bot), its counts in this server's metrics."""
        self.bot_pool = pool
        pool.observe_wait = self.metrics.bot_wait
        self.metrics.watch_bots(pool.stats, self.bot_states)

    def owner_of(self, conn: int) -> str | None:
        """The address a connection came from, if its outbox knows it (a socket's does): the
        key its rooms share the bot pool under."""
        address = getattr(self.conns.get(conn), "address", None)
        return address if isinstance(address, str) else None

    def bot_states(self) -> tuple[int, int]:
        """The slow bots' states the open rooms hold: how many, and their bytes."""
        count = size = 0
        for actor in self.rooms.values():
            n, b = actor.bot_states()
            count, size = count + n, size + b
        return count, size

    def send(self, conn: int, text: str) -> None:
        outbox = self.conns.get(conn)
        if outbox is not None:
            outbox.send(text)

    def sync_member(self, conn: int, code: str, member: bool) -> None:
        """Record whether ``conn`` is in room ``code`` after that room handled its request.

        A connection is claimed for a room when its request is queued (:meth:`route`), so a
        second ``join``/``watch``/``create`` pipelined behind it is refused at once; a refused
        request releases the claim here.
        """
        if member:
            if conn in self.conns:
                self.room_of[conn] = code
            elif code in self.rooms:  # it went away while its request waited in the queue
                self.rooms[code].submit(Disconnect(conn))
        elif self.room_of.get(conn) == code:
            del self.room_of[conn]

    def detach(self, conn: int, code: str) -> None:
        if self.room_of.get(conn) == code:
            del self.room_of[conn]

    # rooms

    async def keys(self) -> Keys:
        """The server secret's keys (fair deals), from the store the first time unless given:
        no room is built without them, so every process on one store deals alike."""
        if self.settings.keys is None:
            try:
                secret = await self.store.server_secret()
            except StoreUnavailable:
                self.health.down()
                raise Refusal(ErrorCode.STORE_UNAVAILABLE, _UNSAVED) from None
            self.settings = dataclasses.replace(self.settings, keys=Keys(secret))
        assert self.settings.keys is not None
        return self.settings.keys

    async def create(self, conn: int, msg: m.Create, received: float) -> None:
        relayed = self.cluster is not None and conn in self.cluster.forwarded
        if conn in self.room_of or relayed:
            raise Refusal(ErrorCode.ALREADY_IN_ROOM, "leave your room before opening another")
        await self.keys()
        clean_name(msg.name, [])  # a bad name opens no room
        # a refused room claims nothing: no lease, no fence key, no record
        check_create(msg.game, msg.seats, daily=msg.daily, hints=msg.hints)
        address = self.addresses.get(conn)
        try:
            self.budgets.take(address, len(self.rooms), time.monotonic())
        except OverBudget as over:
            self.metrics.rooms_refused.labels(over.budget.value).inc()
            raise
        core = None
        fence = 0
        for _ in range(20):
            code = new_code()
            if code in self.rooms:
                continue
            if self.cluster is not None:
                lease = await self.cluster.claim(code)
                if isinstance(lease, Elsewhere):
                    continue
                fence = lease.fence
            try:
                core = RoomCore(
                    code,
                    msg.game,
                    msg.seats,
                    settings=self.settings,
                    options=msg.options,
                    turn_timer=msg.turn_timer,
                    daily=msg.daily,
                    hints=msg.hints,
                )
                created = await self.store.create(code, core.meta(), fence=fence)
            except StoreUnavailable:
                self._unclaim(code)
                self.health.down()
                raise Refusal(ErrorCode.STORE_UNAVAILABLE, _UNSAVED) from None
            except BaseException:  # any other failure (cancelled, a refusal): the lease goes
                self._unclaim(code)
                raise
            if created:
                break
            self._unclaim(code)
            core = None
        if core is None:
            raise Refusal(ErrorCode.BUSY, "could not find a free room code; try again")
        actor = RoomActor(core, self, self.store, self.metrics, self.clock)
        actor.fence = fence
        actor.owner = self.owner_of(conn)
        self.rooms[core.code] = actor
        self.budgets.opened(core.code, address)
        self.metrics.rooms.set(len(self.rooms))
        actor.start()
        self.room_of[conn] = core.code  # claimed before the next frame is read
        actor.submit(CreateHost(conn, msg, self.player_of(conn)), received=received)

    def _unclaim(self, code: str) -> None:
        """Release the lease of a code this process claimed but opened no room under."""
        if self.cluster is not None and code not in self.rooms:
            self.cluster.drop(code)

    def claim(self, conn: int, code: str) -> None:
        """Mark ``conn`` as in room ``code`` before its entering request is handled, so that
        it belongs to at most one room from the moment the frame is dispatched."""
        current = self.room_of.get(conn)
        if current is not None and current != code:
            raise Refusal(ErrorCode.ALREADY_IN_ROOM, f"you are in room {current}: leave it first")
        self.room_of[conn] = code

    def route_now(
        self, conn: int, msg: RoomRequest, received: float
    ) -> Coroutine[Any, Any, None] | None:
        """:meth:`route` at once when the room is held here (the usual case); else the
        coroutine that routes it (loading it, or forwarding it to its owner)."""
        actor = self.rooms.get(msg.room) if self.cluster is None else None
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
        relayed = self.cluster.forwarded.get(conn) if self.cluster is not None else None
        if relayed is not None and relayed[0] != code:  # one room at a time, here or there
            raise Refusal(
                ErrorCode.ALREADY_IN_ROOM, f"you are in room {relayed[0]}: leave it first"
            )
        where = self.rooms.get(code) or await self._load(code)
        if isinstance(where, Elsewhere) and not forwarded:
            assert self.cluster is not None
            current = self.room_of.get(conn)
            if current is not None:
                raise Refusal(
                    ErrorCode.ALREADY_IN_ROOM, f"you are in room {current}: leave it first"
                )
            if await self.cluster.forward(conn, code, where.owner, msg):
                return
            # its owner died: take the room over once its lease runs out (a load already on
            # its way may not have waited for that: ask again)
            for _ in range(3):
                where = await self._load(code, wait=self.cluster.lease_ttl + 1)
                if not isinstance(where, Elsewhere):
                    break
        actor = where if isinstance(where, RoomActor) else None
        if actor is None:
            raise Refusal(ErrorCode.ROOM_NOT_FOUND, f"no open room has the code {code}")
        self._submit(conn, msg, received, actor)

    def _submit(self, conn: int, msg: RoomRequest, received: float, actor: RoomActor) -> None:
        """Hand a request to the room's actor, once its connection may send it there."""
        code = msg.room
        if isinstance(msg, m.Join | m.Watch | m.Resume):
            self.claim(conn, code)
        else:
            current = self.room_of.get(conn)
            if current is not None and current != code:
                raise Refusal(
                    ErrorCode.ALREADY_IN_ROOM, f"you are in room {current}: leave it first"
                )
        # a seat taken keeps its player's device digest (for results), a room's bans and
        # mutes name it: only these need it
        device = self.player_of(conn) if isinstance(msg, m.Join | m.Resume | m.Watch) else None
        actor.submit(Request(conn, msg, device), received=received)

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

    async def _load(self, code: str, wait: float = 0.0) -> RoomActor | Elsewhere | None:
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

    async def _load_now(self, code: str, wait: float) -> RoomActor | Elsewhere | None:
        await self.keys()
        fence = 0
        if self.cluster is not None:
            lease = await self.cluster.claim(code, wait)
            if isinstance(lease, Elsewhere):
                return lease
            fence = lease.fence
        try:
            stored = await self.store.load(code)
        except StoreUnavailable:
            self.health.down()
            raise Refusal(ErrorCode.STORE_UNAVAILABLE, _UNSAVED) from None
        if code in self.rooms:  # opened meanwhile (created here, say)
            return self.rooms[code]
        if stored is None or not self._open(code, stored, fence):
            if self.cluster is not None:
                self.cluster.drop(code)
            return None
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
        actor = RoomActor(core, self, self.store, self.metrics, self.clock)
        actor.fence = fence
        self.rooms[code] = actor
        actor.start(core.restored(self.clock()))
        return True

    def evict_soon(self, code: str, reason: str) -> None:
        """Let a room go from this process without deleting it (it lives on in the store)."""
        task = asyncio.create_task(self.close_room(code, reason, delete=False))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def close_room_soon(self, code: str, reason: str) -> None:
        task = asyncio.create_task(self.close_room(code, reason))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def close_room(self, code: str, reason: str, delete: bool = True) -> None:
        actor = self.rooms.pop(code, None)
        if actor is None:
            return
        self.budgets.closed(code)
        self.metrics.rooms.set(len(self.rooms))
        text = m.dump(m.Closing(reason=f"room closed: {reason}"))
        for conn, room in list(self.room_of.items()):
            if room == code:
                self.send(conn, text)
                del self.room_of[conn]
        await actor.stop()
        if self.cluster is not None and not delete:
            self.cluster.drop(code)
        if delete:
            try:
                await self.store.delete(code, fence=actor.fence)
            except StoreError as exc:  # it expires by itself (see server/store/base.py)
                log.warning("room %s closed here but not deleted from the store: %s", code, exc)
            if self.cluster is not None:
                self.cluster.drop(code)

    async def shutdown(self) -> None:
        """Stop every room after what it has queued, and save each one's record."""
        for actor in list(self.rooms.values()):
            await actor.stop()
            try:
                await self.store.save(actor.code, actor.core.meta(), fence=actor.fence)
            except StoreError as exc:  # every action is stored already; only the record waits
                log.warning("room %s: record not saved at shutdown: %s", actor.code, exc)
        for task in list(self._closing):
            await task
        await self.bot_pool.close()
