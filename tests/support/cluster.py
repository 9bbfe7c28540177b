"""A process's rooms and clients as :class:`server.runtime.cluster.Cluster` sees them, doing
nothing: nobody relayed anywhere, no room to adopt. Tests subclass it for what they watch."""

from __future__ import annotations

from server.rooms.inputs import RoomRequest
from server.runtime.connected import Outbox


class IdleProcess:
    """The cluster's ``Rooms`` and ``Clients`` with every call a no-op."""

    def send(self, conn: int, text: str) -> None: ...
    def relay(self, conn: int, outbox: Outbox) -> None: ...
    def identify(self, conn: int, device: str) -> None: ...
    def device_of(self, conn: int) -> str | None:
        return None

    def forward(self, conn: int, code: str, owner: str) -> None: ...
    def unforward(self, conn: int) -> tuple[str, str] | None:
        return None

    def forwarded_to(self, owner: str) -> list[int]:
        return []

    def owners(self) -> set[str]:
        return set()

    def unforward_room(self, code: str, owner: str) -> list[int]:
        return []

    async def adopt(self, code: str) -> bool:
        return False

    async def route(
        self, conn: int, msg: RoomRequest, received: float, *, forwarded: bool = False
    ) -> None: ...

    def disconnected(self, conn: int) -> None: ...
    def evict_soon(self, code: str, reason: str) -> None: ...
