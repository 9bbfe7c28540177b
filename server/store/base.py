"""The room store interface.

A room record (:meth:`server.rooms.core.RoomCore.record`) is plain JSON-able data. The room
actor awaits :meth:`RoomStore.save` after every accepted change and before it acknowledges it,
so a store whose ``save`` returns only once the record is durable (Redis with AOF, say) gives
"nothing acknowledged is lost".
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any


class RoomStore(ABC):
    """Async storage of room records by room code."""

    @abstractmethod
    async def create(self, code: str, record: dict[str, Any]) -> bool:
        """Store a new room; ``False`` if the code is already taken (codes are unique)."""

    @abstractmethod
    async def save(self, code: str, record: dict[str, Any]) -> None:
        """Replace the room's record; return once it is stored."""

    @abstractmethod
    async def load(self, code: str) -> dict[str, Any] | None:
        """The room's record, or ``None``."""

    @abstractmethod
    async def list(self) -> list[str]:
        """Codes of every stored room."""

    @abstractmethod
    async def delete(self, code: str) -> None:
        """Forget the room."""

    async def close(self) -> None:  # noqa: B027 - optional hook, a no-op by default
        """Release connections (nothing to do for in-memory stores)."""
