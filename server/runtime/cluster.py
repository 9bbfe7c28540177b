"""Several ``cardroom serve`` processes on one Redis, as one service.

Each room is owned by one process at a time through its lease (:mod:`server.store.lease`),
renewed here while the process lives; every write of the room carries the lease's fencing
token. A process that gets a message for a room another process owns forwards it to the owner
over Redis pub/sub (each process listens on its own channel) and relays the owner's frames back
to its client, so a client may connect to any process. When an owner dies its lease runs out;
the next process a message for the room reaches takes the lease and loads the room from Redis,
and the clients that were relayed through the dead owner are told to resume.

Frames and forwarded messages go out through one queue, published in order on one connection,
so a client sees its frames in the order the owner sent them.

:class:`Cluster` is the ownership strategy a :class:`~server.runtime.manager.RoomManager` is
built with in that case (the other: :class:`~server.runtime.ownership.OneProcess`). It keeps
who is relayed where in :class:`~server.runtime.connected.Connected`; what it needs of the
rooms (:class:`Rooms`: the manager) it is given when it starts, for the tasks it runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Sequence
from typing import Any, Protocol, get_args

import orjson
from redis.asyncio import Redis

from protocol import messages as m
from protocol.errors import ErrorCode
from server.metrics import Metrics
from server.rooms.inputs import RoomRequest
from server.rooms.matchmaker import Reserved
from server.rooms.refusal import Refusal
from server.runtime.connected import Outbox
from server.runtime.ownership import ANSWER_WAIT, CloseNow, Elsewhere, StandInNow, Told
from server.store.base import StoreUnavailable
from server.store.health import StoreHealth
from server.store.lease import LEASE_TTL, Lease, Leases
from server.store.redis_client import RedisClient, global_key, unavailable_as_store_error

ROOM_REQUESTS = get_args(RoomRequest)
#: Seconds a stopping process waits for its listener to answer what was sent to it already.
STOP_DRAIN = 2.0

log = logging.getLogger(__name__)


def channel(owner: str) -> str:
    return global_key(f"proc:{owner}")


class Rooms(Protocol):
    """What the cluster needs of this process's rooms
    (:class:`~server.runtime.manager.RoomManager`)."""

    async def route(
        self, conn: int, msg: RoomRequest, received: float, *, forwarded: bool = False
    ) -> None: ...
    def disconnected(self, conn: int) -> None: ...
    def evict_soon(self, code: str, reason: str) -> None: ...
    async def adopt(self, code: str) -> bool: ...
    async def take_bot_seat(
        self, code: str, seat: int, person: Reserved, *, forwarded: bool = False
    ) -> bool: ...
    async def tell(self, code: str, told: Told, *, forwarded: bool = False) -> None: ...


class Clients(Protocol):
    """What the cluster needs to know of who is connected
    (:class:`~server.runtime.connected.Connected`)."""

    def send(self, conn: int, text: str) -> None: ...
    def relay(self, conn: int, outbox: Outbox) -> None: ...
    def identify(self, conn: int, device: str) -> None: ...
    def device_of(self, conn: int) -> str | None: ...
    def locate(self, conn: int, origin: str) -> None: ...
    def origin_of(self, conn: int) -> str | None: ...
    def forward(self, conn: int, code: str, owner: str) -> None: ...
    def unforward(self, conn: int) -> tuple[str, str] | None: ...
    def forwarded_to(self, owner: str) -> list[int]: ...
    def owners(self) -> set[str]: ...
    def unforward_room(self, code: str, owner: str) -> list[int]: ...


class RemoteOutbox:
    """A client of another process, as a room of this one sees it: frames go back over Redis."""

    def __init__(self, cluster: Cluster, origin: str, conn: int) -> None:
        self.cluster = cluster
        self.origin = origin
        self.conn = conn

    def send(self, text: str) -> None:
        self.cluster.metrics.relayed_frames += 1
        self.cluster.post(self.origin, {"k": "frame", "conn": self.conn, "text": text})


class Cluster:
    """This process's part in the service: its leases, its channel, its forwarding."""

    def __init__(
        self,
        client: RedisClient,
        leases: Leases,
        clients: Clients,
        health: StoreHealth,
        lease_ttl: float = LEASE_TTL,
        bus: Redis | None = None,
        *,
        metrics: Metrics | None = None,
        places_rooms: bool = True,
    ) -> None:
        self.redis = client
        # publish and subscribe here (on a Redis Cluster: one node's client, as a cluster
        # pipeline refuses PUBLISH; server.store.redis_cluster)
        self.bus: RedisClient = bus or client
        self.metrics = metrics or Metrics()  # counts what went through pub/sub
        #: a room created for a /ws client is let go for the process its code hashes to
        self.places_rooms = places_rooms
        self.leases = leases
        self.clients = clients
        self.health = health
        self.owner = leases.owner
        self.lease_ttl = lease_ttl
        self.takeover_wait = lease_ttl + 1  # a dead owner's lease has run out by then
        self.held: dict[str, Lease] = {}
        self._renewed: dict[str, float] = {}
        self._outgoing: asyncio.Queue[tuple[str, bytes, asyncio.Future[int] | None]] = (
            asyncio.Queue()
        )
        self._remote: dict[tuple[str, int], int] = {}  # (origin, its conn) -> local conn id
        self._remote_ids = itertools.count(-1, -1)  # negative: never a local connection's id
        self._missed: set[str] = set()  # peers not listening at the last check
        self._handing: set[str] = set()  # rooms whose leases are moving to a peer now
        self._given: set[str] = set()  # rooms handed to this process, not loaded yet
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = False  # the listener ends (and never subscribes again)
        self._asks = itertools.count(1)
        self._asked: dict[int, asyncio.Future[bool]] = {}  # answers awaited from owners

    async def start(self, rooms: Rooms) -> None:
        """Start listening for ``rooms`` (as soon as Redis answers: a process may start while
        it is away)."""
        self._tasks = [
            asyncio.create_task(self._listen(rooms), name="cluster-listen"),
            asyncio.create_task(self._publish(), name="cluster-publish"),
            asyncio.create_task(self._keep(rooms), name="cluster-leases"),
        ]

    async def stop(self) -> None:
        """Give every room up at once, so another process can take it without waiting; then
        stop listening without dropping a message already sent here (each is answered)."""
        for lease in list(self.held.values()):
            with contextlib.suppress(StoreUnavailable):
                await self.leases.release(lease)
        self.held.clear()
        self._stopping = True
        listening = self._tasks[0] if self._tasks else None
        if listening is not None and not listening.done():
            # a peer's message Redis counted as delivered here must get its answer: the
            # listener unsubscribes and handles what came before the unsubscribe's reply
            # (later publishes count 0, and the peer serves its client itself)
            self.post(self.owner, {"k": "stop", "from": self.owner})
            await asyncio.wait({listening}, timeout=STOP_DRAIN)
        await self._outgoing.join()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, StoreUnavailable):
                await task

    # ------------------------------------------------------------------ leases

    async def claim(self, code: str, wait: float = 0.0) -> int | Elsewhere:
        """The room's lease for this process (its fencing token), or who owns it; ``wait``:
        seconds to wait for a dead owner's lease to run out.

        Raises:
            Refusal: ``store_unavailable``.
        """
        handed = self.held.get(code)
        if handed is not None and code in self._given:  # handed over to us: ours already
            self._given.discard(code)
            return handed.fence
        deadline = time.monotonic() + wait
        while True:
            try:
                got = await self.leases.acquire(code)
            except StoreUnavailable:
                self.health.down()
                raise Refusal(ErrorCode.STORE_UNAVAILABLE, "the room store is away") from None
            if isinstance(got, Lease):
                self.held[code] = got
                self._renewed[code] = time.monotonic()
                return got.fence
            left = deadline - time.monotonic()
            if left <= 0:
                return Elsewhere(got.owner)
            await asyncio.sleep(min(left, max(got.expires_in, 0.05)))

    def release(self, code: str) -> None:
        """This process no longer has the room: release its lease."""
        lease = self.held.pop(code, None)
        self._renewed.pop(code, None)
        if lease is not None:
            self.post_call(self.leases.release(lease))

    async def let_go(self, code: str) -> None:
        """Release the room's lease now (a room created here for another process,
        server/runtime/placement.py); if Redis is away it runs out by itself."""
        lease = self.held.pop(code, None)
        self._renewed.pop(code, None)
        if lease is not None:
            with contextlib.suppress(StoreUnavailable):
                await self.leases.release(lease)

    def post_call(self, call: Any) -> None:
        task = asyncio.ensure_future(call)
        task.add_done_callback(lambda t: t.cancelled() or t.exception())

    async def _keep(self, rooms: Rooms) -> None:
        """Renew every held lease well before it runs out; a room whose lease is lost goes.
        The processes this one relays clients for, or to, are checked too."""
        while True:
            await asyncio.sleep(self.lease_ttl / 3)
            with contextlib.suppress(StoreUnavailable):
                await self._check_peers(rooms)
            held = list(self.held.items())
            try:  # one round trip for every lease, however many rooms this process holds
                kept_all = await self.leases.renew_all([lease for _, lease in held])
            except StoreUnavailable:
                now = time.monotonic()
                kept_all = [now - self._renewed.get(code, 0) < self.lease_ttl for code, _ in held]
            else:
                now = time.monotonic()
                for (code, lease), kept in zip(held, kept_all, strict=True):
                    if kept and self.held.get(code) == lease:
                        self._renewed[code] = now
            for (code, lease), kept in zip(held, kept_all, strict=True):
                if not kept and self.held.get(code) == lease and code not in self._handing:
                    log.warning("room %s: lease lost; letting the room go", code)
                    del self.held[code]
                    rooms.evict_soon(code, "the room moved; resume with your token")

    async def _check_peers(self, rooms: Rooms) -> None:
        """Processes that stopped listening died: clients relayed to one of them are told to
        resume; clients relayed from one are disconnected here (their seats are held, then a
        stand-in plays), as when a local client's connection drops."""
        owners = self.clients.owners()
        origins = {origin for origin, _ in self._remote}
        peers = sorted(owners | origins)
        if not peers:
            return
        with unavailable_as_store_error():
            listening = await self.redis.pubsub_numsub(*(channel(p) for p in peers))
        missing = {p for (_, count), p in zip(listening, peers, strict=True) if int(count) == 0}
        # gone only when missed at two checks running: a process that lost its subscription
        # for a moment (Redis slow, its loop busy) subscribes again within one
        gone, self._missed = missing & self._missed, missing
        for peer in sorted(gone):
            log.warning("cluster: process %s is gone", peer)
            if peer in owners:
                self.owner_gone(peer)
            for key in [k for k in self._remote if k[0] == peer]:
                rooms.disconnected(self._remote.pop(key))

    # ------------------------------------------------------------------ handover

    async def peers(self) -> list[str]:
        """The other processes listening now (alive, so a room can be handed to them)."""
        try:
            with unavailable_as_store_error():
                names = await self.bus.pubsub_channels(
                    channel("*")
                )  # where every process subscribes
        except StoreUnavailable:
            return []
        prefix = channel("")
        found = (n.decode() if isinstance(n, bytes) else str(n) for n in names)
        return sorted(p for n in found if (p := n.removeprefix(prefix)) != self.owner)

    async def hand_over(self, codes: Sequence[str], to_owner: str) -> list[str]:
        """Give the rooms ``codes`` (stopped and saved here) to the live process ``to_owner``
        at once: their leases move to it with higher fences in one script call, and it is told
        to load them now in one message (their timers and bots go on there). The codes handed
        over are returned; the others (not held here, or Redis away) are released as on any
        stop (the next process a message reaches takes such a room over).
        """
        leases = [lease for code in codes if (lease := self.held.get(code)) is not None]
        self._handing.update(lease.code for lease in leases)  # no eviction meanwhile (_keep)
        try:
            moved = await self.leases.transfer_all(leases, to_owner)
        except StoreUnavailable:
            return []
        finally:
            self._handing.difference_update(lease.code for lease in leases)
        rooms = [(new.code, new.fence) for new in moved if new is not None]
        for lease in leases:
            del self.held[lease.code]
            self._renewed.pop(lease.code, None)
        if rooms:
            taken = [list(room) for room in rooms]
            self.post(to_owner, {"k": "take", "rooms": taken, "from": self.owner})
        return [code for code, _ in rooms]

    async def _take(self, rooms: Rooms, taken: list[tuple[str, int]], owner: str) -> None:
        """Rooms handed to this process: load them all at once (their leases are ours
        already, so loading claims nothing), and the clients of this process relayed to their
        old owner are relayed no longer (they resume here). A process that is stopping itself
        lets the leases go instead."""
        for code, fence in taken:
            self.clients.unforward_room(code, owner)
            self.held[code] = Lease(code, self.owner, fence)
            self._renewed[code] = time.monotonic()
            self._given.add(code)
        adopted = await asyncio.gather(
            *(rooms.adopt(code) for code, _ in taken), return_exceptions=True
        )
        for (code, fence), ok in zip(taken, adopted, strict=True):
            self._given.discard(code)
            if ok is True:
                continue
            if isinstance(ok, BaseException):
                log.warning("room %s handed over but not loaded: %s", code, ok)
            if self.held.get(code) == Lease(code, self.owner, fence):
                self.held.pop(code, None)
                self._renewed.pop(code, None)
                with contextlib.suppress(StoreUnavailable):
                    await self.leases.release(Lease(code, self.owner, fence))

    # ------------------------------------------------------------------ forwarding

    def post(self, owner: str, payload: dict[str, Any]) -> None:
        self._outgoing.put_nowait((owner, orjson.dumps(payload), None))

    async def forward(self, conn: int, code: str, owner: str, msg: RoomRequest) -> bool:
        """Send a client's message to the room's owner; ``False`` if no process listens there
        any more (the owner died: its clients here are told to resume)."""
        if isinstance(msg, m.Leave):
            self.clients.unforward(conn)  # relayed no longer: free to enter another room
        else:
            self.clients.forward(conn, code, owner)
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        payload = {
            "k": "msg",
            "from": self.owner,
            "conn": conn,
            "msg": msg.model_dump(),
            "device": self.clients.device_of(conn),  # the owner records results for it
            "origin": self.clients.origin_of(conn),  # and binds bans and mutes to it
        }
        self._outgoing.put_nowait((owner, orjson.dumps(payload), done))
        self.metrics.forwarded["out"] = self.metrics.forwarded.get("out", 0) + 1
        if await done > 0:
            return True
        self.owner_gone(owner)
        return False

    async def take_bot_seat(self, owner: str, code: str, seat: int, person: Reserved) -> bool:
        """Ask room ``code``'s owner to seat ``person`` in bot seat ``seat``; its answer (no
        answer within :data:`ANSWER_WAIT` seconds: no)."""
        ask = next(self._asks)
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._asked[ask] = answer
        who = [person.name, person.token_sha256, person.device, person.origin]
        payload = {"k": "seat", "from": self.owner, "ask": ask, "code": code, "seat": seat}
        self.post(owner, {**payload, "person": who})
        try:
            return await asyncio.wait_for(answer, ANSWER_WAIT)
        except TimeoutError:
            return False
        finally:
            self._asked.pop(ask, None)

    def tell(self, owner: str, code: str, told: Told) -> None:
        """Tell room ``code``'s owner what ``told`` says; no answer is awaited (a stand-in
        not started there starts when its player's grace ends, a table not closed there
        closes once its hands are played)."""
        match told:
            case StandInNow(seat=seat):
                what: dict[str, Any] = {"seat": seat}
            case CloseNow(reason=reason):
                what = {"close": reason}
        self.post(owner, {"k": "tell", "from": self.owner, "code": code, **what})

    @staticmethod
    def _told(payload: dict[str, Any]) -> Told:
        if "close" in payload:
            return CloseNow(str(payload["close"]))
        return StandInNow(int(payload["seat"]))

    async def _seat_asked(self, rooms: Rooms, payload: dict[str, Any]) -> None:
        """Another process asks a room of this one to seat a person in a bot seat: the
        room's answer goes back to it."""
        name, digest, device, origin = payload["person"]
        person = Reserved(str(name), str(digest), device, origin)
        code, seat = str(payload["code"]), int(payload["seat"])
        try:
            ok = await rooms.take_bot_seat(code, seat, person, forwarded=True)
        except Exception:
            log.exception("room %s: seating a person in bot seat %d failed", code, seat)
            ok = False
        self.post(str(payload["from"]), {"k": "sat", "ask": payload["ask"], "ok": ok})

    def _answered(self, ask: int, ok: bool) -> None:
        answer = self._asked.get(ask)
        if answer is not None and not answer.done():
            answer.set_result(ok)

    def owner_gone(self, owner: str) -> None:
        notice = m.dump(m.Closing(reason="the room moved; resume with your token"))
        for conn in self.clients.forwarded_to(owner):
            self.clients.send(conn, notice)

    def _tell_relayed_to_resume(self) -> None:
        """Listening again after Redis was away (an outage, a failover): the frames owners
        published meanwhile for the clients this process relays are lost (pub/sub keeps
        nothing), so each is told to resume, which sends it the room as it is now."""
        for owner in list(self.clients.owners()):
            self.owner_gone(owner)

    def disconnected(self, conn: int) -> None:
        """A local client closed: the owner of the room it was relayed to lets it go."""
        where = self.clients.unforward(conn)
        if where is not None:
            self.post(where[1], {"k": "gone", "from": self.owner, "conn": conn})

    async def _publish(self) -> None:
        """Publish queued payloads in order, a batch per round trip."""
        while True:
            batch = [await self._outgoing.get()]
            while not self._outgoing.empty():
                batch.append(self._outgoing.get_nowait())
            try:
                with unavailable_as_store_error():
                    async with self.bus.pipeline(transaction=False) as pipe:
                        for owner, data, _ in batch:
                            pipe.publish(channel(owner), data)
                        counts = await pipe.execute()
            except StoreUnavailable as exc:
                log.warning("cluster: %d messages not sent: %s", len(batch), exc)
                counts = [0] * len(batch)
            for (_, _, done), count in zip(batch, counts, strict=True):
                if done is not None and not done.done():
                    done.set_result(int(count))
                self._outgoing.task_done()

    async def _listen(self, rooms: Rooms) -> None:
        """Handle what other processes send this one, in order; subscribe again after an
        outage."""
        pubsub: Any = None
        missed = False  # not listening for a while: what was published meanwhile is lost
        while True:
            try:
                if pubsub is None:
                    pubsub = self.bus.pubsub()
                    await pubsub.subscribe(channel(self.owner))
                    if missed:
                        self._tell_relayed_to_resume()
                        missed = False
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                if message is None:
                    continue
                payload = orjson.loads(message["data"])
                if payload["k"] == "stop" and payload.get("from") == self.owner:
                    await self._drain(pubsub, rooms)
                    return
                await self._receive(rooms, payload)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis away: listen again once it is back
                if pubsub is not None:
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()
                if self._stopping:
                    return
                log.warning("cluster: not listening (%s); trying again", exc)
                pubsub = None
                missed = True
                await asyncio.sleep(0.5)

    async def _drain(self, pubsub: Any, rooms: Rooms) -> None:
        """Unsubscribe, and handle every message that arrived before Redis confirmed it."""
        await pubsub.unsubscribe(channel(self.owner))
        while (message := await pubsub.get_message(timeout=STOP_DRAIN)) is not None:
            if message["type"] == "unsubscribe":
                break
            if message["type"] == "message":
                payload = orjson.loads(message["data"])
                if payload["k"] != "stop":
                    await self._receive(rooms, payload)
        await pubsub.aclose()

    async def _receive(self, rooms: Rooms, payload: dict[str, Any]) -> None:
        match payload["k"]:
            case "frame":  # for a client of this process, from a room's owner
                self.clients.send(int(payload["conn"]), payload["text"])
            case "msg":  # a client of another process, for a room this process owns
                self.metrics.forwarded["in"] = self.metrics.forwarded.get("in", 0) + 1
                key = (payload["from"], int(payload["conn"]))
                local = self._remote.get(key)
                if local is None:
                    local = next(self._remote_ids)
                    self._remote[key] = local
                    self.clients.relay(local, RemoteOutbox(self, *key))
                if payload.get("device"):
                    self.clients.identify(local, payload["device"])
                if payload.get("origin"):
                    self.clients.locate(local, payload["origin"])
                msg = m.CLIENT_ADAPTER.validate_python(payload["msg"])
                if not isinstance(msg, ROOM_REQUESTS):
                    return  # only room messages are forwarded
                try:
                    await rooms.route(local, msg, time.perf_counter(), forwarded=True)
                except Refusal as r:
                    ref = getattr(msg, "id", None)
                    text = m.dump(m.Error(code=r.code, message=r.message, ref=ref))
                    self.clients.send(local, text)
            case "seat":  # a person for a bot seat of a room this process owns
                self.post_call(self._seat_asked(rooms, payload))
            case "tell":  # for a room this process owns, no answer awaited
                told = self._told(payload)
                self.post_call(rooms.tell(str(payload["code"]), told, forwarded=True))
            case "sat":  # a room's owner answers this process's "seat"
                self._answered(int(payload["ask"]), bool(payload["ok"]))
            case "gone":
                local = self._remote.pop((payload["from"], int(payload["conn"])), None)
                if local is not None:
                    rooms.disconnected(local)
            case "take":  # rooms handed over by their owner, which is stopping
                if "rooms" in payload:
                    taken = [(str(code), int(fence)) for code, fence in payload["rooms"]]
                else:  # one room a message (a process of the release before)
                    taken = [(str(payload["code"]), int(payload["fence"]))]
                self.post_call(self._take(rooms, taken, str(payload["from"])))
