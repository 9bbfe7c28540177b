"""The embedded default store: records kept in this process's memory (lost on exit).

It checks versions and fences exactly as the Redis store does (one process has no leases, so a
room's fence is the one it was created with), so code written against it behaves the same on
Redis.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import orjson

from protocol.records import ActionEntry
from server.store.base import (
    HISTORY_TTL,
    Fenced,
    RoomGone,
    RoomStore,
    StoredRoom,
    VersionConflict,
    same_action,
)


@dataclass
class _Room:
    record: dict[str, Any]
    version: int
    fence: int
    actions: list[dict[str, Any]] = field(default_factory=list)


def _plain(value: Any) -> Any:
    """A copy of ``value`` as the Redis store keeps it: JSON written and read back (orjson:
    some ten times quicker than ``copy.deepcopy`` for a record or a hand's history)."""
    return orjson.loads(orjson.dumps(value))


class MemoryStore(RoomStore):
    """Room records and action logs in dicts, copied in and out as a real store would."""

    completes_at_once = True

    def __init__(
        self, history_ttl: float = HISTORY_TTL, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._rooms: dict[str, _Room] = {}
        self._history: dict[str, dict[int, dict[str, Any]]] = {}  # code -> game index -> item
        self._history_until: dict[str, float] = {}  # closed rooms: when their history goes
        self.history_ttl = history_ttl
        self.clock = clock

    def _room(self, code: str, fence: int) -> _Room:
        room = self._rooms.get(code)
        if room is None:
            raise RoomGone(code)
        if fence != room.fence:
            raise Fenced(code, fence, room.fence)
        return room

    async def create(self, code: str, record: Mapping[str, Any], *, fence: int = 0) -> bool:
        if code in self._rooms:  # taken, unless this is a retry of the same create
            room = self._rooms[code]
            return room.fence == fence and room.record == record and not room.actions
        self._rooms[code] = _Room(_plain(record), record.get("version", 0), fence)
        self._history.pop(code, None)  # a code used again starts with no history
        self._history_until.pop(code, None)
        return True

    async def save(self, code: str, record: Mapping[str, Any], *, fence: int = 0) -> None:
        room = self._room(code, fence)
        version = record.get("version", 0)
        if version < room.version:
            raise VersionConflict(code, version, room.version)
        room.record = _plain(record)
        room.version = version

    async def append(self, code: str, entry: Mapping[str, Any], *, fence: int = 0) -> None:
        room = self._room(code, fence)
        version = entry["v"]
        if version == room.version and room.actions and same_action(room.actions[-1], entry):
            room.actions[-1] = dict(entry)  # a retry of the append that already landed
            return
        if version != room.version + 1:
            raise VersionConflict(code, version, room.version)
        room.actions.append(dict(entry))
        room.version = version

    async def load(self, code: str) -> StoredRoom | None:
        room = self._rooms.get(code)
        if room is None:
            return None
        actions = cast(list[ActionEntry], [dict(e) for e in room.actions])
        return StoredRoom(_plain(room.record), actions)

    async def delete(self, code: str, *, fence: int = 0) -> None:
        if code not in self._rooms:
            return
        self._room(code, fence)
        del self._rooms[code]
        self._purge()
        if code in self._history:
            self._history_until[code] = self.clock() + self.history_ttl

    async def add_history(self, code: str, item: dict[str, Any], *, fence: int = 0) -> None:
        self._room(code, fence)
        self._history.setdefault(code, {})[int(item.get("g", 0))] = _plain(item)

    async def history(self, code: str) -> list[dict[str, Any]]:
        self._purge()
        games = self._history.get(code, {})
        return [_plain(games[g]) for g in sorted(games)]

    def _purge(self) -> None:
        """Drop the history of rooms closed more than ``history_ttl`` ago."""
        now = self.clock()
        for code in [c for c, until in self._history_until.items() if until <= now]:
            self._history.pop(code, None)
            del self._history_until[code]

    # last: inside the class body, the name "list" is this method
    async def list(self) -> list[str]:
        return sorted(self._rooms)
