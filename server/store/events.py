"""Where events are kept: each event's record (:meth:`server.rooms.event_core.EventCore.record`,
with its ``version``) by code, in this process's memory or in Redis, and the codes of the
events not over, so that a process started again finds them.

An event has no owner: any process may take an input for it (a player's request, a table's hand
reported by the process that holds the table). It loads the record, applies the input and saves
the result only onto the version it loaded (:meth:`EventStore.save`); a process that lost the
race gets :class:`~server.store.base.VersionConflict`, loads again and applies its input anew.
The core is pure, so applying an input twice to two versions is safe; nothing is sent before
the record is saved.

>>> import asyncio
>>> store = MemoryEvents()
>>> asyncio.run(store.create("K7QPX", {"version": 0, "phase": "lobby"}))
True
>>> asyncio.run(store.save("K7QPX", {"version": 1, "phase": "playing"}))
>>> asyncio.run(store.load("K7QPX"))["phase"], asyncio.run(store.open_codes())
('playing', ['K7QPX'])
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, cast

import orjson

from server.store import redis_scripts as lua
from server.store.base import RoomGone, VersionConflict
from server.store.redis_client import RedisClient, global_key, unavailable_as_store_error

#: Seconds an event lives after its last write (a night, and the morning after to look back).
EVENT_TTL = 48 * 3600
#: Events a store lists as open at most (the process's budget bounds how many are made).
MAX_LISTED = 10_000


class EventStore(ABC):
    """Event records by code, each write checked against the version it replaces."""

    @abstractmethod
    async def create(self, code: str, record: Mapping[str, Any]) -> bool:
        """Store a new event; ``False`` if the code is taken."""

    @abstractmethod
    async def save(self, code: str, record: Mapping[str, Any]) -> None:
        """Replace the event's record with ``record`` (its ``version`` one more than the
        stored one's); an event over (``phase`` ``over``) leaves the open codes.

        Raises:
            VersionConflict: another write stored that version, or a later one.
            RoomGone: the event is not stored (expired).
            StoreUnavailable: the store cannot be reached.
        """

    @abstractmethod
    async def load(self, code: str) -> dict[str, Any] | None:
        """The event's record, or ``None``."""

    @abstractmethod
    async def open_codes(self) -> list[str]:
        """Codes of the events stored and not over."""


class MemoryEvents(EventStore):
    """Event records in a dict, copied in and out as JSON as Redis keeps them."""

    def __init__(self) -> None:
        self._events: dict[str, bytes] = {}
        self._open: set[str] = set()

    async def create(self, code: str, record: Mapping[str, Any]) -> bool:
        if code in self._events:
            return False
        self._events[code] = orjson.dumps(record)
        self._open.add(code)
        return True

    async def save(self, code: str, record: Mapping[str, Any]) -> None:
        stored = self._events.get(code)
        if stored is None:
            raise RoomGone(code)
        version = int(orjson.loads(stored)["version"])
        if int(record["version"]) != version + 1:
            raise VersionConflict(code, int(record["version"]), version)
        self._events[code] = orjson.dumps(record)
        if record.get("phase") == "over":
            self._open.discard(code)

    async def load(self, code: str) -> dict[str, Any] | None:
        stored = self._events.get(code)
        return None if stored is None else dict(orjson.loads(stored))

    async def open_codes(self) -> list[str]:
        return sorted(self._open)[:MAX_LISTED]


class RedisEvents(EventStore):
    """Each event a hash (``v``: its version, ``r``: its record as JSON) at ``cr:{ev:CODE}``,
    written by a script that checks the version; the open codes in the set ``cr:events``."""

    def __init__(self, client: RedisClient) -> None:
        self.redis = client
        self._index = global_key("events")
        self._create = client.register_script(lua.CREATE_EVENT)
        self._save = client.register_script(lua.SAVE_EVENT)

    @staticmethod
    def _key(code: str) -> str:
        return global_key(f"{{ev:{code}}}")

    async def create(self, code: str, record: Mapping[str, Any]) -> bool:
        key = self._key(code)
        with unavailable_as_store_error():
            args: list[bytes | int] = [int(record["version"]), orjson.dumps(record), EVENT_TTL]
            if not await self._create(keys=[key], args=args):
                return False
            await self.redis.sadd(self._index, code)  # (another slot on a cluster)
        return True

    async def save(self, code: str, record: Mapping[str, Any]) -> None:
        version = int(record["version"])
        with unavailable_as_store_error():
            args: list[bytes | int] = [version, orjson.dumps(record), EVENT_TTL]
            status, stored = await self._save(keys=[self._key(code)], args=args)
            status = status.decode() if isinstance(status, bytes) else str(status)
            if status == "gone":
                raise RoomGone(code)
            if status == "conflict":
                raise VersionConflict(code, version, int(stored))
            if record.get("phase") == "over":
                await self.redis.srem(self._index, code)

    async def load(self, code: str) -> dict[str, Any] | None:
        with unavailable_as_store_error():
            stored = await self.redis.hget(self._key(code), "r")
        return None if stored is None else dict(orjson.loads(stored))

    async def open_codes(self) -> list[str]:
        with unavailable_as_store_error():
            codes = cast(
                "list[bytes | str]", await self.redis.srandmember(self._index, MAX_LISTED) or []
            )
        return sorted(c.decode() if isinstance(c, bytes) else str(c) for c in codes)
