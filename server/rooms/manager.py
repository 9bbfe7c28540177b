"""All the rooms of one process: creating them under fresh codes, routing messages to their
actors, tracking which connection is in which room, and closing them."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable
from typing import Protocol

from protocol import messages as m
from protocol.errors import ErrorCode
from server.bots.pool import BotPool
from server.metrics import Metrics
from server.rooms.actor import RoomActor
from server.rooms.core import RoomCore
from server.rooms.inputs import CreateHost, Disconnect, Request, RoomRequest
from server.rooms.names import clean_name
from server.rooms.seats import Refusal, RoomSettings
from server.store.base import RoomStore

log = logging.getLogger(__name__)

#: Room codes: five characters from an alphabet without look-alikes (no 0/O, 1/I/L).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 5


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


class Outbox(Protocol):
    """What a room needs of a connection: a way to queue a text frame."""

    def send(self, text: str) -> None: ...


class RoomManager:
    def __init__(
        self,
        store: RoomStore,
        metrics: Metrics,
        settings: RoomSettings,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.metrics = metrics
        self.settings = settings
        self.clock = clock
        self.rooms: dict[str, RoomActor] = {}
        self.conns: dict[int, Outbox] = {}
        self.room_of: dict[int, str] = {}
        self._closing: set[asyncio.Task[None]] = set()
        self.bot_pool = BotPool()

    # connections

    def connected(self, conn: int, outbox: Outbox) -> None:
        self.conns[conn] = outbox

    def disconnected(self, conn: int) -> None:
        self.conns.pop(conn, None)
        code = self.room_of.pop(conn, None)
        if code is not None and code in self.rooms:
            self.rooms[code].submit(Disconnect(conn))

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

    async def create(self, conn: int, msg: m.Create, received: float) -> None:
        if conn in self.room_of:
            raise Refusal(ErrorCode.ALREADY_IN_ROOM, "leave your room before opening another")
        clean_name(msg.name, [])  # a bad name opens no room
        core = None
        for _ in range(20):
            code = new_code()
            if code in self.rooms:
                continue
            core = RoomCore(
                code,
                msg.game,
                msg.seats,
                settings=self.settings,
                options=msg.options,
                turn_timer=msg.turn_timer,
                daily=msg.daily,
            )
            if await self.store.create(code, core.meta()):
                break
            core = None
        if core is None:
            raise Refusal(ErrorCode.BUSY, "could not find a free room code; try again")
        actor = RoomActor(core, self, self.store, self.metrics, self.clock)
        self.rooms[core.code] = actor
        self.metrics.rooms.set(len(self.rooms))
        actor.start()
        self.room_of[conn] = core.code  # claimed before the next frame is read
        actor.submit(CreateHost(conn, msg), received=received)

    def claim(self, conn: int, code: str) -> None:
        """Mark ``conn`` as in room ``code`` before its entering request is handled, so that
        it belongs to at most one room from the moment the frame is dispatched."""
        current = self.room_of.get(conn)
        if current is not None and current != code:
            raise Refusal(ErrorCode.ALREADY_IN_ROOM, f"you are in room {current}: leave it first")
        self.room_of[conn] = code

    def route(self, conn: int, msg: RoomRequest, received: float) -> None:
        """Send a room message to its room's actor."""
        code = msg.room
        actor = self.rooms.get(code)
        if actor is None:
            raise Refusal(ErrorCode.ROOM_NOT_FOUND, f"no open room has the code {code}")
        if isinstance(msg, m.Join | m.Watch | m.Resume):
            self.claim(conn, code)
        else:
            current = self.room_of.get(conn)
            if current is not None and current != code:
                raise Refusal(
                    ErrorCode.ALREADY_IN_ROOM, f"you are in room {current}: leave it first"
                )
        actor.submit(Request(conn, msg), received=received)

    async def restore(self) -> int:
        """Reopen every room in the store (after a restart); players resume with tokens."""
        count = 0
        for code in await self.store.list():
            stored = await self.store.load(code)
            if stored is None or code in self.rooms:
                continue
            try:
                core = RoomCore.from_stored(stored.record, stored.actions, self.settings)
            except Exception:
                log.exception("room %s could not be restored", code)
                continue
            actor = RoomActor(core, self, self.store, self.metrics, self.clock)
            self.rooms[code] = actor
            actor.start(core.restored(self.clock()))
            count += 1
        self.metrics.rooms.set(len(self.rooms))
        return count

    def close_room_soon(self, code: str, reason: str) -> None:
        task = asyncio.create_task(self.close_room(code, reason))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def close_room(self, code: str, reason: str) -> None:
        actor = self.rooms.pop(code, None)
        if actor is None:
            return
        self.metrics.rooms.set(len(self.rooms))
        text = m.dump(m.Closing(reason=f"room closed: {reason}"))
        for conn, room in list(self.room_of.items()):
            if room == code:
                self.send(conn, text)
                del self.room_of[conn]
        await actor.stop()
        await self.store.delete(code)

    async def shutdown(self) -> None:
        """Stop every room after what it has queued, and save each one's record."""
        for actor in list(self.rooms.values()):
            await actor.stop()
            await self.store.save(actor.code, actor.core.meta())
        for task in list(self._closing):
            await task
        self.bot_pool.close()
