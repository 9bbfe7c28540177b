"""The embedded default store: records kept in this process's memory (lost on exit)."""

from __future__ import annotations

import copy
from typing import Any

from server.store.base import RoomStore, StoredRoom


class MemoryStore(RoomStore):
    """Room records and action logs in dicts, copied in and out as a real store would."""

    def __init__(self) -> None:
        self._rooms: dict[str, dict[str, Any]] = {}
        self._actions: dict[str, list[dict[str, Any]]] = {}

    async def create(self, code: str, record: dict[str, Any]) -> bool:
        if code in self._rooms:
            return False
        self._rooms[code] = copy.deepcopy(record)
        self._actions[code] = []
        return True

    async def save(self, code: str, record: dict[str, Any]) -> None:
        self._rooms[code] = copy.deepcopy(record)
        self._actions.setdefault(code, [])

    async def append(self, code: str, entry: dict[str, Any]) -> None:
        self._actions.setdefault(code, []).append(dict(entry))

    async def load(self, code: str) -> StoredRoom | None:
        record = self._rooms.get(code)
        if record is None:
            return None
        return StoredRoom(copy.deepcopy(record), [dict(e) for e in self._actions.get(code, [])])

    async def list(self) -> list[str]:
        return sorted(self._rooms)

    async def delete(self, code: str) -> None:
        self._rooms.pop(code, None)
        self._actions.pop(code, None)
