"""Room leases in Redis: which process owns a room now, with a fencing token.

A process that wants a room acquires its lease; while it holds it, it renews it well before it
runs out (every ``ttl / 3`` seconds, say). Every acquisition after the lease was free takes a
fresh token from one counter, so the token grows with every takeover. The token goes into every
write of the room (``fence=``), and Redis refuses a write whose token is not the room's current
one (:class:`~server.store.base.Fenced`): an owner that was paused past its lease and lost the
room cannot write, even if it has not noticed yet.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from redis.asyncio.cluster import RedisCluster

from server.store import redis_scripts as lua
from server.store.base import ROOM_TTL
from server.store.redis_client import (
    RedisClient,
    global_key,
    room_key,
    unavailable_as_store_error,
)
from server.store.redis_cluster import each

#: Seconds a lease lasts without renewal: how long a dead owner's rooms wait for a takeover.
LEASE_TTL = 3.0
#: Leases renewed per script call: one call stays short (Redis runs nothing else meanwhile).
RENEW_BATCH = 500


@dataclass(frozen=True, slots=True)
class Lease:
    """A room held by ``owner`` with fencing token ``fence``."""

    code: str
    owner: str
    fence: int


@dataclass(frozen=True, slots=True)
class Held:
    """A room held by another process: who, its token, and seconds left on its lease."""

    code: str
    owner: str
    fence: int
    expires_in: float


def new_owner_id() -> str:
    """A process's name in leases: unique across restarts (a restarted process is a new owner)."""
    return secrets.token_hex(8)


class Leases:
    """Acquire, renew and release room leases for one process (``owner``)."""

    def __init__(
        self,
        client: RedisClient,
        owner: str | None = None,
        *,
        ttl: float = LEASE_TTL,
        room_ttl: float = ROOM_TTL,
    ) -> None:
        self.redis = client
        self.owner = owner or new_owner_id()
        self.ttl_ms = int(ttl * 1000)
        self.room_ttl_ms = int(room_ttl * 1000)
        self._counter = global_key("fences")  # one Redis; a cluster: each room's fence key
        self._cluster = isinstance(client, RedisCluster)
        self._acquire = client.register_script(lua.ACQUIRE)
        self._renew = client.register_script(lua.RENEW)
        self._release = client.register_script(lua.RELEASE)
        self._renew_all = client.register_script(lua.RENEW_ALL)
        self._transfer = client.register_script(lua.TRANSFER)
        self._transfer_all = client.register_script(lua.TRANSFER_ALL)

    def _keys(self, code: str) -> list[str]:
        return [
            room_key(code, "lease"),
            room_key(code, "fence"),
            room_key(code, "fence") if self._cluster else self._counter,
            room_key(code, "room"),
        ]

    async def acquire(self, code: str) -> Lease | Held:
        """Take the room if its lease is free (a new token), or renew it if already ours.

        Raises:
            StoreUnavailable: Redis cannot be reached.
        """
        with unavailable_as_store_error():
            answer = await self._acquire(
                keys=self._keys(code), args=[self.owner, self.ttl_ms, self.room_ttl_ms]
            )
        if answer[0] == 1:
            return Lease(code, self.owner, int(answer[1]))
        return Held(code, answer[2].decode(), int(answer[1]), max(0, int(answer[3])) / 1000)

    async def renew(self, lease: Lease) -> bool:
        """Extend the lease; ``False`` if it was lost (expired and perhaps taken over)."""
        with unavailable_as_store_error():
            kept = await self._renew(
                keys=self._keys(lease.code), args=[lease.owner, lease.fence, self.ttl_ms]
            )
        return bool(kept)

    async def renew_all(self, leases: Sequence[Lease]) -> list[bool]:
        """:meth:`renew` for every lease of this process in one call (one Lua script, a chunk
        of :data:`RENEW_BATCH` leases at a time): each ``False`` lease was lost. Renewing
        them one round trip each made the tick's time grow with the rooms held until leases
        ran out before their turn. On a Redis Cluster,
        where a script touches one slot, it is one call a lease, ``AT_ONCE``
        (:mod:`server.store.redis_cluster`) of them in flight at a time.

        Raises:
            StoreUnavailable: Redis cannot be reached.
        """
        if self._cluster:  # no script runs across slots there: one a lease, a few at once
            return await each([partial(self.renew, lease) for lease in leases])
        kept: list[bool] = []
        for at in range(0, len(leases), RENEW_BATCH):
            chunk = leases[at : at + RENEW_BATCH]
            with unavailable_as_store_error():
                answer = await self._renew_all(
                    keys=[room_key(lease.code, "lease") for lease in chunk],
                    args=[self.owner, self.ttl_ms, *(lease.fence for lease in chunk)],
                )
            kept.extend(bool(k) for k in answer)
        return kept

    async def release(self, lease: Lease) -> bool:
        """Give the room up (another process may take it at once); ``False`` if not ours."""
        with unavailable_as_store_error():
            released = await self._release(
                keys=self._keys(lease.code), args=[lease.owner, lease.fence]
            )
        return bool(released)

    async def transfer(self, lease: Lease, to_owner: str) -> Lease | None:
        """Hand the room to ``to_owner`` at once (a planned handover): it holds the lease from
        now on with a fresh token, so nothing either process writes can interleave. ``None``
        if the lease was not ours any more.

        Raises:
            StoreUnavailable: Redis cannot be reached.
        """
        with unavailable_as_store_error():
            fence = await self._transfer(
                keys=self._keys(lease.code),
                args=[lease.owner, lease.fence, to_owner, self.ttl_ms, self.room_ttl_ms],
            )
        return Lease(lease.code, to_owner, int(fence)) if fence else None

    async def transfer_all(self, leases: Sequence[Lease], to_owner: str) -> list[Lease | None]:
        """:meth:`transfer` for many rooms in one call (one Lua script, a chunk of
        :data:`RENEW_BATCH` rooms at a time): a process that stops hands all its rooms over in
        a round trip or two, not one per room. On a Redis Cluster, one call a room, a few at
        once (no script runs across slots there).

        Raises:
            StoreUnavailable: Redis cannot be reached.
        """
        if self._cluster:
            return await each([partial(self.transfer, lease, to_owner) for lease in leases])
        moved: list[Lease | None] = []
        for at in range(0, len(leases), RENEW_BATCH):
            chunk = leases[at : at + RENEW_BATCH]
            with unavailable_as_store_error():
                fences = await self._transfer_all(
                    keys=[key for lease in chunk for key in self._keys(lease.code)],
                    args=[
                        self.owner,
                        to_owner,
                        self.ttl_ms,
                        self.room_ttl_ms,
                        *(lease.fence for lease in chunk),
                    ],
                )
            moved += [
                Lease(lease.code, to_owner, int(f)) if int(f) else None
                for lease, f in zip(chunk, fences, strict=True)
            ]
        return moved

    async def holder(self, code: str) -> Held | None:
        """Who holds the room now, or ``None`` if nobody does."""
        with unavailable_as_store_error():
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.get(room_key(code, "lease"))
                pipe.pttl(room_key(code, "lease"))
                value, ttl = await pipe.execute()
        if value is None:
            return None
        owner, _, fence = value.decode().rpartition(" ")
        return Held(code, owner, int(fence), max(0, int(ttl)) / 1000)
