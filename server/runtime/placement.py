"""Rooms land where they live: with several processes behind a proxy that routes
``/ws/CODE`` by a hash of the code (deploy/nginx.conf), a room belongs on the process its code
hashes to, which only the proxy knows. So the process that gets a ``create`` from a ``/ws``
connection opens the room, seats its host, stores both and lets the room go at once (its lease
released); then it tells the host ``moved`` and hands over the ``joined``. The host reconnects
to ``/ws/CODE``, and the process the proxy picks is the first to get a message for the room:
it takes the lease and loads the room from the store. A connection to the bare ``/`` (an older
client, which knows nothing of ``moved``) keeps today's way: the room stays where it was made.

The host's frames are held back until the lease is released, so its ``resume`` cannot reach
another process while this one still holds the room (that process would forward it here).
"""

from __future__ import annotations

from protocol import messages as m
from server.runtime.actor import Owner, RoomActor


class HeldBack:
    """The owner a room's actor has while its host is seated before the room is let go:
    frames wait here; nobody is counted in the room in this process."""

    def __init__(self, rooms: Owner) -> None:
        self.rooms = rooms
        self.frames: list[tuple[int, str]] = []

    def send(self, conn: int, text: str) -> None:
        self.frames.append((conn, text))

    def sync_member(self, conn: int, code: str, member: bool) -> None:
        """Nobody stays: the room is let go once its host is seated."""

    def detach(self, conn: int, code: str) -> None:
        """Nobody was counted in."""

    def close_room_soon(self, code: str, reason: str) -> None:
        self.rooms.close_room_soon(code, reason)

    def evict_soon(self, code: str, reason: str) -> None:
        """The store refused a write: the host's ``create`` is refused (held back here)."""

    async def seat_host(self, actor: RoomActor, host: int) -> bool:
        """Run ``actor`` until it has handled (and stored) what it was given, and stop it;
        whether ``host`` got its seat. Then :attr:`frames` are what to send once the room is
        let go: ``moved`` first if it did (else only the refusal it got)."""
        actor.start()
        await actor.stop()  # after the host's request, stored
        if host not in actor.core.where:  # refused (the store away): no seat to resume
            return False
        self.frames.insert(0, (host, m.dump(m.Moved(room=actor.code))))
        return True
