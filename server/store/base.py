"""The room store interface.

A stored room is its record (:meth:`server.rooms.core.RoomCore.meta`: seats, options, how the
match was dealt) plus the list of its accepted actions, appended one at a time. The room actor
awaits :meth:`RoomStore.append` for every accepted action (and :meth:`RoomStore.save` for every
other change) before it acknowledges it, so a store whose calls return only once the data is
durable (Redis with AOF, say) gives "nothing acknowledged is lost". Appending keeps the cost of
an action constant however long the game.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, NamedTuple


class StoredRoom(NamedTuple):
    record: dict[str, Any]
    actions: list[dict[str, Any]]


class RoomStore(ABC):
    """Async storage of room records by room code."""

    @abstractmethod
    async def create(self, code: str, record: dict[str, Any]) -> bool:
        """Store a new room; ``False`` if the code is already taken (codes are unique)."""

    @abstractmethod
    async def save(self, code: str, record: dict[str, Any]) -> None:
        """Replace the room's record; return once it is stored."""

    @abstractmethod
    async def append(self, code: str, entry: dict[str, Any]) -> None:
        """Add one accepted action to the room's log; return once it is stored."""

    @abstractmethod
    async def load(self, code: str) -> StoredRoom | None:
        """The room's record and actions, or ``None``."""

    @abstractmethod
    async def list(self) -> list[str]:
        """Codes of every stored room."""

    @abstractmethod
    async def delete(self, code: str) -> None:
        """Forget the room."""

    async def close(self) -> None:  # noqa: B027 - optional hook, a no-op by default
        """Release connections (nothing to do for in-memory stores)."""
