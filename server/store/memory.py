"""The embedded default store: records kept in this process's memory (lost on exit)."""

from __future__ import annotations

import copy
from typing import Any

from server.store.base import RoomStore


class MemoryStore(RoomStore):
    """Room records in a dict. Records are copied in and out, as a real store would."""

    def __init__(self) -> None:
        self._rooms: dict[str, dict[str, Any]] = {}

    async def create(self, code: str, record: dict[str, Any]) -> bool:
        if code in self._rooms:
            return False
        self._rooms[code] = copy.deepcopy(record)
        return True

    async def save(self, code: str, record: dict[str, Any]) -> None:
        self._rooms[code] = copy.deepcopy(record)

    async def load(self, code: str) -> dict[str, Any] | None:
        record = self._rooms.get(code)
        return copy.deepcopy(record) if record is not None else None

    async def list(self) -> list[str]:
        return sorted(self._rooms)

    async def delete(self, code: str) -> None:
        self._rooms.pop(code, None)
