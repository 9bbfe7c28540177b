"""Rooms kept in Redis: survive a crash or restart of ``cardroom serve``, and can be shared by
several processes (each write checked against the room's version and owner, in Redis).

One accepted action is one script call (``EVALSHA``): check the fence and the version, ``RPUSH``
the entry, refresh the room's expiry. The calls of every room made in one turn of the event
loop go to Redis together, in one round trip (:mod:`server.store.batch`), each still its own
checked step with its own answer (on a Redis Cluster each goes on its own, to its slot; over
TLS, through redis-py, one by one).
Loading a room is one ``MULTI`` (record and log together).
Durability is Redis's: with ``appendonly yes`` (as in ``docker-compose.yml``) an acknowledged
write survives a crash of Cardroom, and of Redis up to its ``appendfsync`` policy. With
``durability=Durability.REPLICATED`` a write is acknowledged only once a replica has it too
(``WAIT 1``, see :mod:`server.store.redis_sentinel`), so it survives the loss of the primary.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import orjson
from redis.asyncio.cluster import RedisCluster

from server.rooms.secret import SecretMismatch, parse_secret
from server.rooms.secret import fingerprint as secret_fingerprint
from server.store import redis_scripts as lua
from server.store.base import (
    HISTORY_TTL,
    ROOM_TTL,
    Fenced,
    RoomGone,
    RoomStore,
    StoredRoom,
    StoreUnavailable,
    VersionConflict,
)
from server.store.batch import ScriptBatch
from server.store.redis_client import (
    PREFIX,
    RedisClient,
    connect,
    global_key,
    room_key,
    unavailable_as_store_error,
)
from server.store.redis_cluster import ping_masters, scan_rooms
from server.store.redis_sentinel import REPLICA_TIMEOUT_MS, Durability

_PARTS = ("room", "log", "fence", "hist", "lease")


@lru_cache(maxsize=4096)  # the rooms writing now: their keys made once, not at every write
def _room_keys(code: str, cluster: bool) -> tuple[str, ...]:
    keys = tuple(room_key(code, p) for p in _PARTS)
    return keys if cluster else (*keys, global_key("rooms"))


class RedisStore(RoomStore):
    """A :class:`RoomStore` on one Redis database, or on a Redis Cluster.

    Args:
        url: ``redis://host:port/db`` (or ``redis+cluster://host:port,...``); or pass
            ``client`` to share one.
        room_ttl: seconds a room lives after its last write.
        history_ttl: seconds a closed room's history is kept.
        durability: when a write counts as stored: once the primary has it (``LOCAL``), or
            once a replica has it too (``REPLICATED``; not on a Redis Cluster).
        replica_timeout_ms: how long a ``REPLICATED`` write waits for a replica before it is
            refused (:class:`StoreUnavailable`).
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        client: RedisClient | None = None,
        room_ttl: float = ROOM_TTL,
        history_ttl: float = HISTORY_TTL,
        durability: Durability = Durability.LOCAL,
        replica_timeout_ms: int = REPLICA_TIMEOUT_MS,
    ) -> None:
        if client is None:
            if url is None:
                raise ValueError("RedisStore needs a url or a client")
            client = connect(url)
        self.redis = client
        self.room_ttl_ms = int(room_ttl * 1000)
        self.history_ttl_ms = int(history_ttl * 1000)
        self._index = global_key("rooms")
        # a cluster runs a script on one slot only: no global index there (see list())
        self._cluster = isinstance(client, RedisCluster)
        self.durability = durability
        self._replicas = 1 if durability is Durability.REPLICATED else 0
        self._replica_timeout_ms = replica_timeout_ms
        if self._replicas and self._cluster:
            raise ValueError("replicated durability needs one primary (redis:// or Sentinel)")
        self._create = client.register_script(lua.CREATE)
        self._save = client.register_script(lua.SAVE)
        self._append = client.register_script(lua.APPEND)
        self._delete = client.register_script(lua.DELETE)
        self._add_history = client.register_script(lua.ADD_HISTORY)
        self._list = client.register_script(lua.LIST)
        # every room script of a turn in one round trip; a cluster's pipeline takes no EVALSHA,
        # so there each call goes on its own (to its slot's master)
        # (and over TLS, which the batch's own connection does not speak)
        self.batch = (
            ScriptBatch(client, replicas=self._replicas, replica_timeout_ms=replica_timeout_ms)
            if not isinstance(client, RedisCluster) and ScriptBatch.serves(client)
            else None
        )

    @property
    def queues_calls(self) -> bool:
        return self.batch is not None  # a cluster's calls run in their caller's task

    async def _run(self, script: Any, code: str, *args: Any) -> tuple[str, int]:
        keys = _room_keys(code, self._cluster)
        if self.batch is None and self._replicas:
            status, number = await self._run_replicated(script, keys, args)
        elif self.batch is None:
            with unavailable_as_store_error():
                status, number = await script(keys=list(keys), args=list(args))
        else:
            status, number = await self.batch.run(script, keys, args)
        return status.decode(), int(number)

    async def _run_replicated(
        self, script: Any, keys: tuple[str, ...], args: tuple[Any, ...]
    ) -> tuple[bytes, int]:
        """One script and a ``WAIT`` on one connection (over TLS, where no batch runs)."""
        with unavailable_as_store_error():
            async with self.redis.pipeline(transaction=False) as pipe:
                script(keys=list(keys), args=list(args), client=pipe)
                pipe.execute_command("WAIT", self._replicas, self._replica_timeout_ms)
                (status, number), count = await pipe.execute()
        if status == b"ok" and int(count) < self._replicas:
            raise StoreUnavailable(f"no replica confirmed within {self._replica_timeout_ms} ms")
        return status, number

    @staticmethod
    def _check(code: str, status: str, number: int, fence: int, version: int) -> None:
        match status:
            case "ok":
                return
            case "gone":
                raise RoomGone(code)
            case "fenced":
                raise Fenced(code, fence, number)
            case "conflict":
                raise VersionConflict(code, version, number)
        raise StoreUnavailable(f"unexpected answer {status!r} from Redis")

    async def create(self, code: str, record: Mapping[str, Any], *, fence: int = 0) -> bool:
        version = record.get("version", 0)
        status, _ = await self._run(
            self._create, code, fence, version, orjson.dumps(record), self.room_ttl_ms, code
        )
        return status == "ok"

    async def save(self, code: str, record: Mapping[str, Any], *, fence: int = 0) -> None:
        version = record.get("version", 0)
        status, number = await self._run(
            self._save, code, fence, version, orjson.dumps(record), self.room_ttl_ms, code
        )
        self._check(code, status, number, fence, version)

    async def append(self, code: str, entry: Mapping[str, Any], *, fence: int = 0) -> None:
        version = entry["v"]
        status, number = await self._run(
            self._append, code, fence, version, orjson.dumps(entry), self.room_ttl_ms, code
        )
        self._check(code, status, number, fence, version)

    async def load(self, code: str) -> StoredRoom | None:
        with unavailable_as_store_error():
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.hget(room_key(code, "room"), "rec")
                pipe.lrange(room_key(code, "log"), 0, -1)
                record, log = await pipe.execute()
        if record is None:
            return None
        return StoredRoom(orjson.loads(record), [orjson.loads(e) for e in log])

    async def delete(self, code: str, *, fence: int = 0) -> None:
        status, number = await self._run(self._delete, code, fence, self.history_ttl_ms, code)
        self._check(code, status, number, fence, 0)

    async def add_history(self, code: str, item: dict[str, Any], *, fence: int = 0) -> None:
        index = int(item.get("g", 0))
        status, number = await self._run(
            self._add_history, code, fence, index, orjson.dumps(item), self.room_ttl_ms, code
        )
        self._check(code, status, number, fence, 0)

    async def history(self, code: str) -> list[dict[str, Any]]:
        with unavailable_as_store_error():
            items = await self.redis.hgetall(room_key(code, "hist"))
        return [orjson.loads(items[k]) for k in sorted(items, key=int)]

    async def check_secret(self, fingerprint: str) -> None:
        """Make sure every process on this Redis uses the secret of ``fingerprint``, without
        keeping the secret here: the first keeps the fingerprint (``SET NX``), the others must
        match it. A secret an older version kept here in plain hex is removed once it is the
        one given (moved to the environment), and refused if it is not (the rooms stored would
        deal other cards).

        Raises:
            SecretMismatch: another secret was used with this Redis.
            StoreUnavailable: Redis cannot be reached.
        """
        plain, mark = global_key("secret"), global_key("secret:fingerprint")
        ours = fingerprint
        with unavailable_as_store_error():
            kept = await self.redis.get(plain)
            if kept is not None:
                text = kept.decode() if isinstance(kept, bytes) else str(kept)
                if not hmac.compare_digest(secret_fingerprint(parse_secret(text)), ours):
                    raise SecretMismatch(
                        f"Redis holds another server secret in plain hex (key {plain!r}, kept by "
                        "an older version): give that one (CARDROOM_SECRET), then it is removed"
                    )
                await self.redis.set(mark, ours, nx=True)
                await self.redis.delete(plain)  # sealed: only the environment has it now
            await self.redis.set(mark, ours, nx=True)
            first = await self.redis.get(mark)
        if first is not None and (first.decode() if isinstance(first, bytes) else first) != ours:
            raise SecretMismatch(
                "another server secret is in use on this Redis: give every process the same "
                "CARDROOM_SECRET (or --secret)"
            )

    async def available(self) -> bool:
        try:
            with unavailable_as_store_error():
                if isinstance(self.redis, RedisCluster):
                    await ping_masters(self.redis)  # every master: a room may be on any
                else:
                    await self.redis.ping()
        except StoreUnavailable:
            return False
        return True

    async def close(self) -> None:
        if self.batch is not None:
            await self.batch.close()
        await self.redis.aclose()

    # last: inside the class body, the name "list" is this method
    async def list(self) -> list[str]:
        with unavailable_as_store_error():
            if isinstance(self.redis, RedisCluster):
                return await scan_rooms(self.redis, PREFIX)
            codes = await self._list(keys=[self._index])
        return sorted(c.decode() for c in codes)
