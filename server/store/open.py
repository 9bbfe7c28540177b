"""The stores of one server process, from one setting: no URL, everything in memory; a Redis
URL (``cardroom serve --redis``, or ``REDIS_URL``; ``redis+sentinel://``: the primary Sentinel
names, followed through a failover), rooms, history, events, leaderboards and ratings in
Redis on one shared connection pool (a ``redis+cluster://`` URL: on a Redis Cluster, with one more
connection to one seed node for pub/sub)."""

from __future__ import annotations

from dataclasses import dataclass, field

from redis.asyncio import Redis

from server.store.base import RoomStore
from server.store.events import EventStore, MemoryEvents, RedisEvents
from server.store.health import StoreHealth
from server.store.leaderboard import Leaderboards, MemoryLeaderboards
from server.store.memory import MemoryStore
from server.store.move_codes import MemoryMoveCodes, MoveCodes, RedisMoveCodes
from server.store.ratings import MemoryRatings, Ratings
from server.store.redis_client import TIMEOUT, RedisClient, connect
from server.store.redis_cluster import bus_client, is_cluster_url
from server.store.redis_leaderboard import RedisLeaderboards
from server.store.redis_ratings import RedisRatings
from server.store.redis_sentinel import Durability
from server.store.redis_store import RedisStore


@dataclass
class Stores:
    rooms: RoomStore
    boards: Leaderboards
    health: StoreHealth
    events: EventStore = field(default_factory=MemoryEvents)
    redis: RedisClient | None = None  # the shared client, when on Redis
    bus: Redis | None = None  # for pub/sub, when that is another client (on a cluster)
    ratings: Ratings = field(default_factory=MemoryRatings)
    moves: MoveCodes = field(default_factory=MemoryMoveCodes)  # identity move codes

    async def close(self) -> None:
        await self.health.close()
        if self.bus is not None:
            await self.bus.aclose()
        if self.redis is not None:
            if isinstance(self.rooms, RedisStore) and self.rooms.batch is not None:
                await self.rooms.batch.close()  # its own connection, outside the shared pool
            await self.redis.aclose()
        else:
            await self.rooms.close()
            await self.boards.close()


def open_stores(
    redis_url: str | None = None,
    rooms: RoomStore | None = None,
    durability: Durability = Durability.LOCAL,
) -> Stores:
    """Stores on Redis at ``redis_url``, or in memory (``rooms``: a room store to use as is);
    ``durability``: when a room's write to Redis counts as stored."""
    if redis_url:
        client = connect(redis_url)
        on_redis = RedisStore(client=client, durability=durability)
        bus = bus_client(redis_url, TIMEOUT) if is_cluster_url(redis_url) else None
        boards = RedisLeaderboards(client=client)
        ratings = RedisRatings(client=client)
        moves = RedisMoveCodes(client=client)
        events = RedisEvents(client)
        return Stores(on_redis, boards, StoreHealth(on_redis), events, client, bus, ratings, moves)
    in_memory = rooms or MemoryStore()
    return Stores(in_memory, MemoryLeaderboards(), StoreHealth(in_memory))
