"""The bot pool's queue: requests taken round-robin by owner (the address that opened the
room), then by room within an owner, first come first served within a room.

A room with a long backlog therefore delays another room's request by at most one request per
room ahead of it in the ring, and an owner with many rooms gets one turn per round like an
owner with one. Pure data: no clock, no I/O.

>>> q: FairQueue[str] = FairQueue()
>>> for item in ("a1", "a2", "a3"):
...     q.push("alice", "ROOMA", item)
>>> q.push("bob", "ROOMB", "b1")
>>> [q.pop() for _ in range(4)]
['a1', 'b1', 'a2', 'a3']
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

T = TypeVar("T")


class FairQueue(Generic[T]):
    """Round-robin over owners, then over each owner's rooms; FIFO within a room."""

    def __init__(self) -> None:
        # owner -> room -> items; an owner or room is present only while it has items
        self._ring: OrderedDict[Hashable, OrderedDict[Hashable, deque[T]]] = OrderedDict()
        self._count: dict[Hashable, int] = {}  # owner -> items queued
        self._len = 0

    def __len__(self) -> int:
        return self._len

    def queued(self, owner: Hashable) -> int:
        """How many items ``owner`` has waiting."""
        return self._count.get(owner, 0)

    def push(self, owner: Hashable, room: Hashable, item: T) -> None:
        rooms = self._ring.get(owner)
        if rooms is None:
            rooms = self._ring[owner] = OrderedDict()  # a new owner waits a full round
        items = rooms.get(room)
        if items is None:
            items = rooms[room] = deque()
        items.append(item)
        self._count[owner] = self._count.get(owner, 0) + 1
        self._len += 1

    def pop(self, accept: Callable[[T], bool] | None = None) -> T | None:
        """The next item in fair order, or ``None``; with ``accept``, the next room head that
        it accepts (a room's later items never pass its head)."""
        for owner, rooms in self._ring.items():
            for room, items in rooms.items():
                if accept is None or accept(items[0]):
                    return self._take(owner, rooms, room, items)
        return None

    def _take(
        self,
        owner: Hashable,
        rooms: OrderedDict[Hashable, deque[T]],
        room: Hashable,
        items: deque[T],
    ) -> T:
        item = items.popleft()
        if items:
            rooms.move_to_end(room)  # the owner's other rooms go first next time
        else:
            del rooms[room]
        if rooms:
            self._ring.move_to_end(owner)  # every other owner goes first next time
        else:
            del self._ring[owner]
        self._forget(owner)
        return item

    def remove(self, owner: Hashable, room: Hashable, item: T) -> bool:
        """Take ``item`` out of the queue (a request whose caller stopped waiting)."""
        rooms = self._ring.get(owner)
        items = rooms.get(room) if rooms is not None else None
        if rooms is None or items is None or item not in items:
            return False
        items.remove(item)
        if not items:
            del rooms[room]
            if not rooms:
                del self._ring[owner]
        self._forget(owner)
        return True

    def _forget(self, owner: Hashable) -> None:
        self._len -= 1
        left = self._count[owner] - 1
        if left:
            self._count[owner] = left
        else:
            del self._count[owner]
