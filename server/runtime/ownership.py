"""Who holds a room: the strategy a :class:`~server.runtime.manager.RoomManager` is built with.

A process alone on its store holds every room it opens or loads (:class:`OneProcess`, here):
nothing to claim, no fencing token, nobody to forward to. Several processes on one Redis hold
rooms by lease, forwarding messages for a room to the process that holds it
(:class:`server.runtime.cluster.Cluster`). The manager asks the same questions of both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from server.rooms.inputs import RoomRequest
from server.rooms.matchmaker import Reserved

#: Seconds a process waits for a room's answer to an input it gave it (a bot seat taken).
ANSWER_WAIT = 5.0


@dataclass(frozen=True, slots=True)
class Elsewhere:
    """A room another live process owns."""

    owner: str


@dataclass(frozen=True, slots=True)
class StandInNow:
    """Told to a room wherever it is held: the stand-in plays ``seat`` from now on (an event's
    host replaced its player)."""

    seat: int


@dataclass(frozen=True, slots=True)
class CloseNow:
    """Told to a room wherever it is held: it closes (its event ended)."""

    reason: str


#: What one process may tell a room another holds, with no answer awaited.
Told = StandInNow | CloseNow


class OneProcess:
    """The only process on its store: every room is this process's, with fencing token 0."""

    #: Seconds to wait for a dead owner's lease (there is none).
    takeover_wait = 0.0
    #: Every room is this process's: none is let go for another.
    places_rooms = False

    async def start(self, rooms: object) -> None:
        """Nothing to listen for."""

    async def stop(self) -> None:
        """Nothing to give up."""

    async def claim(self, code: str, wait: float = 0.0) -> int | Elsewhere:
        """The room's fencing token: always 0 (no lease)."""
        return 0

    def release(self, code: str) -> None:
        """This process no longer has the room: nothing to release."""

    async def let_go(self, code: str) -> None:
        """Never asked (:attr:`places_rooms` is off): nothing to release."""

    async def forward(self, conn: int, code: str, owner: str, msg: RoomRequest) -> bool:
        """Never asked: no room is elsewhere."""
        return False

    def disconnected(self, conn: int) -> None:
        """A client closed: nothing was relayed for it."""

    async def take_bot_seat(self, owner: str, code: str, seat: int, person: Reserved) -> bool:
        """Never asked: no room is elsewhere."""
        return False

    def tell(self, owner: str, code: str, told: Told) -> None:
        """Never asked: no room is elsewhere."""

    async def peers(self) -> list[str]:
        """No other process to hand a room to."""
        return []

    async def hand_over(self, codes: Sequence[str], to_owner: str) -> list[str]:
        """Never asked: there are no peers."""
        return []
