"""A process's rooms and clients as :class:`server.runtime.cluster.Cluster` sees them, doing
nothing: nobody relayed anywhere, no room to adopt. Tests subclass it for what they watch."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from server.rooms.inputs import RoomRequest
from server.rooms.matchmaker import Reserved
from server.runtime.cluster import Cluster
from server.runtime.connected import Outbox
from server.runtime.ownership import Told
from server.store.health import StoreHealth
from server.store.lease import Leases
from server.store.redis_client import RedisClient, connect
from server.store.redis_store import RedisStore


class IdleProcess:
    """The cluster's ``Rooms`` and ``Clients`` with every call a no-op."""

    def send(self, conn: int, text: str) -> None: ...
    def relay(self, conn: int, outbox: Outbox) -> None: ...
    def identify(self, conn: int, device: str) -> None: ...
    def device_of(self, conn: int) -> str | None:
        return None

    def locate(self, conn: int, origin: str) -> None: ...
    def origin_of(self, conn: int) -> str | None:
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

    async def take_bot_seat(
        self, code: str, seat: int, person: Reserved, *, forwarded: bool = False
    ) -> bool:
        return False

    async def tell(self, code: str, told: Told, *, forwarded: bool = False) -> None: ...

    async def route(
        self, conn: int, msg: RoomRequest, received: float, *, forwarded: bool = False
    ) -> None: ...

    def disconnected(self, conn: int) -> None: ...
    def evict_soon(self, code: str, reason: str) -> None: ...


@asynccontextmanager
async def process_me(url: str, rooms: IdleProcess) -> AsyncIterator[tuple[Cluster, RedisClient]]:
    """A cluster process named "me" on the Redis at ``url`` with ``rooms`` (not started), and a
    second client for the test to act as process "peer"; all stopped and closed after."""
    client, peer, store = connect(url), connect(url), RedisStore(url)
    cluster = Cluster(client, Leases(client, owner="me"), rooms, StoreHealth(store))
    try:
        yield cluster, peer
    finally:
        await cluster.stop()
        await peer.aclose()
        await client.aclose()
        await store.close()
