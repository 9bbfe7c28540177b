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
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, get_args

import orjson
from redis.asyncio import Redis

from protocol import messages as m
from protocol.errors import ErrorCode
from server.rooms.inputs import RoomRequest
from server.rooms.seats import Refusal
from server.store.base import StoreUnavailable
from server.store.lease import LEASE_TTL, Lease, Leases
from server.store.redis_client import global_key, unavailable_as_store_error

if TYPE_CHECKING:
    from server.rooms.manager import RoomManager

ROOM_REQUESTS = get_args(RoomRequest)

log = logging.getLogger(__name__)


def channel(owner: str) -> str:
    return global_key(f"proc:{owner}")


@dataclass(frozen=True, slots=True)
class Elsewhere:
    """A room another live process owns."""

    owner: str


class RemoteOutbox:
    """A client of another process, as a room of this one sees it: frames go back over Redis."""

    def __init__(self, cluster: Cluster, origin: str, conn: int) -> None:
        self.cluster = cluster
        self.origin = origin
        self.conn = conn

    def send(self, text: str) -> None:
        self.cluster.post(self.origin, {"k": "frame", "conn": self.conn, "text": text})


class Cluster:
    """This process's part in the service: its leases, its channel, its forwarding."""

    def __init__(
        self, client: Redis, manager: RoomManager, leases: Leases, lease_ttl: float = LEASE_TTL
    ) -> None:
        self.redis = client
        self.manager = manager
        self.leases = leases
        self.owner = leases.owner
        self.lease_ttl = lease_ttl
        self.held: dict[str, Lease] = {}
        self._renewed: dict[str, float] = {}
        self._outgoing: asyncio.Queue[tuple[str, bytes, asyncio.Future[int] | None]] = (
            asyncio.Queue()
        )
        self._remote: dict[tuple[str, int], int] = {}  # (origin, its conn) -> local conn id
        self._remote_ids = itertools.count(-1, -1)  # negative: never a local connection's id
        self.forwarded: dict[int, tuple[str, str]] = {}  # local conn -> (room, owner)
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        """Start listening (as soon as Redis answers: a process may start while it is away)."""
        self._tasks = [
            asyncio.create_task(self._listen(), name="cluster-listen"),
            asyncio.create_task(self._publish(), name="cluster-publish"),
            asyncio.create_task(self._keep(), name="cluster-leases"),
        ]

    async def stop(self) -> None:
        """Give every room up at once, so another process can take it without waiting."""
        for lease in list(self.held.values()):
            with contextlib.suppress(StoreUnavailable):
                await self.leases.release(lease)
        self.held.clear()
        await self._outgoing.join()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, StoreUnavailable):
                await task

    # ------------------------------------------------------------------ leases

    async def claim(self, code: str, wait: float = 0.0) -> Lease | Elsewhere:
        """The room's lease for this process, or who owns it; ``wait``: seconds to wait for a
        dead owner's lease to run out.

        Raises:
            Refusal: ``store_unavailable``.
        """
        deadline = time.monotonic() + wait
        while True:
            try:
                got = await self.leases.acquire(code)
            except StoreUnavailable:
                self.manager.health.down()
                raise Refusal(ErrorCode.STORE_UNAVAILABLE, "the room store is away") from None
            if isinstance(got, Lease):
                self.held[code] = got
                self._renewed[code] = time.monotonic()
                return got
            left = deadline - time.monotonic()
            if left <= 0:
                return Elsewhere(got.owner)
            await asyncio.sleep(min(left, max(got.expires_in, 0.05)))

    def drop(self, code: str) -> None:
        """This process no longer has the room: release its lease."""
        lease = self.held.pop(code, None)
        self._renewed.pop(code, None)
        if lease is not None:
            self.post_call(self.leases.release(lease))

    def post_call(self, call: Any) -> None:
        task = asyncio.ensure_future(call)
        task.add_done_callback(lambda t: t.cancelled() or t.exception())

    async def _keep(self) -> None:
        """Renew every held lease well before it runs out; a room whose lease is lost goes.
        The processes this one relays clients for, or to, are checked too."""
        while True:
            await asyncio.sleep(self.lease_ttl / 3)
            with contextlib.suppress(StoreUnavailable):
                await self._check_peers()
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
                if not kept and self.held.get(code) == lease:
                    log.warning("room %s: lease lost; letting the room go", code)
                    del self.held[code]
                    self.manager.evict_soon(code, "the room moved; resume with your token")

    async def _check_peers(self) -> None:
        """Processes that stopped listening died: clients relayed to one of them are told to
        resume; clients relayed from one are disconnected here (their seats are held, then a
        stand-in plays), as when a local client's connection drops."""
        owners = {owner for _, owner in self.forwarded.values()}
        origins = {origin for origin, _ in self._remote}
        peers = sorted(owners | origins)
        if not peers:
            return
        with unavailable_as_store_error():
            listening = await self.redis.pubsub_numsub(*(channel(p) for p in peers))
        for (_, count), peer in zip(listening, peers, strict=True):
            if int(count) > 0:
                continue
            log.warning("cluster: process %s is gone", peer)
            if peer in owners:
                self.owner_gone(peer)
            for key in [k for k in self._remote if k[0] == peer]:
                self.manager.disconnected(self._remote.pop(key))

    # ------------------------------------------------------------------ forwarding

    def post(self, owner: str, payload: dict[str, Any]) -> None:
        self._outgoing.put_nowait((owner, orjson.dumps(payload), None))

    async def forward(self, conn: int, code: str, owner: str, msg: RoomRequest) -> bool:
        """Send a client's message to the room's owner; ``False`` if no process listens there
        any more (the owner died: its clients here are told to resume)."""
        if isinstance(msg, m.Leave):
            self.forwarded.pop(conn, None)  # relayed no longer: free to enter another room
        else:
            self.forwarded[conn] = (code, owner)
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        payload = {
            "k": "msg",
            "from": self.owner,
            "conn": conn,
            "msg": msg.model_dump(),
            "device": self.manager.device_of(conn),  # the owner records results for it
        }
        self._outgoing.put_nowait((owner, orjson.dumps(payload), done))
        if await done > 0:
            return True
        self.owner_gone(owner)
        return False

    def owner_gone(self, owner: str) -> None:
        notice = m.dump(m.Closing(reason="the room moved; resume with your token"))
        for conn, (_, to) in list(self.forwarded.items()):
            if to == owner:
                del self.forwarded[conn]
                self.manager.send(conn, notice)

    def disconnected(self, conn: int) -> None:
        """A local client closed: the owner of the room it was relayed to lets it go."""
        where = self.forwarded.pop(conn, None)
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
                    async with self.redis.pipeline(transaction=False) as pipe:
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

    async def _listen(self) -> None:
        """Handle what other processes send this one, in order; subscribe again after an
        outage."""
        pubsub: Any = None
        while True:
            try:
                if pubsub is None:
                    pubsub = self.redis.pubsub()
                    await pubsub.subscribe(channel(self.owner))
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                if message is not None:
                    await self._receive(orjson.loads(message["data"]))
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis away: listen again once it is back
                log.warning("cluster: not listening (%s); trying again", exc)
                if pubsub is not None:
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()
                pubsub = None
                await asyncio.sleep(0.5)

    async def _receive(self, payload: dict[str, Any]) -> None:
        match payload["k"]:
            case "frame":  # for a client of this process, from a room's owner
                self.manager.send(int(payload["conn"]), payload["text"])
            case "msg":  # a client of another process, for a room this process owns
                key = (payload["from"], int(payload["conn"]))
                local = self._remote.get(key)
                if local is None:
                    local = next(self._remote_ids)
                    self._remote[key] = local
                    self.manager.connected(local, RemoteOutbox(self, *key))
                if payload.get("device"):
                    self.manager.devices[local] = payload["device"]
                msg = m.CLIENT_ADAPTER.validate_python(payload["msg"])
                if not isinstance(msg, ROOM_REQUESTS):
                    return  # only room messages are forwarded
                try:
                    await self.manager.route(local, msg, time.perf_counter(), forwarded=True)
                except Refusal as r:
                    ref = getattr(msg, "id", None)
                    text = m.dump(m.Error(code=r.code, message=r.message, ref=ref))
                    self.manager.send(local, text)
            case "gone":
                local = self._remote.pop((payload["from"], int(payload["conn"])), None)
                if local is not None:
                    self.manager.disconnected(local)
