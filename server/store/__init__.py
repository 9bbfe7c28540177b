"""Room stores: where room records live between actions and across restarts."""

from server.store.base import RoomStore, StoredRoom
from server.store.memory import MemoryStore

__all__ = ["MemoryStore", "RoomStore", "StoredRoom"]
