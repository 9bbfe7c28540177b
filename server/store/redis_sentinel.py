"""Cardroom on a Redis primary with replicas watched by Sentinel: the ``redis+sentinel://`` URL,
and a client that follows a failover by itself.

``redis+sentinel://host:port[,host:port...]/MASTER[/DB]`` names Sentinels (one is enough; more
let the client ask another when one is away) and the name they watch the primary under. The
client asks a Sentinel for the primary's address whenever it opens a connection, so after
Sentinel promotes a replica the next connection goes to the new primary: a connection to the
old one fails (it is dead, or, demoted to a replica, answers ``READONLY``), and its callers
see :class:`~server.store.base.StoreUnavailable` until the promotion is done, as for an outage
of one Redis. Leases and fences need nothing more: a fence token never falls below the
primary's clock in milliseconds (:mod:`server.store.lease`), so a token taken on the new
primary is above any a paused owner took on the old one even if the replica missed it.

Replication is asynchronous: what the primary answered may be lost with it. The durability
setting (:class:`Durability`) decides whether a write is acknowledged then, or only once a
replica has it too (``WAIT``).

>>> sentinel_address("redis+sentinel://127.0.0.1:26379,127.0.0.1:26380/cardroom")
([('127.0.0.1', 26379), ('127.0.0.1', 26380)], 'cardroom', 0)
>>> sentinel_address("redis+sentinel://[::1]:26379/main/2")
([('::1', 26379)], 'main', 2)
"""

from __future__ import annotations

import enum
from typing import Any
from urllib.parse import urlsplit

import redis.exceptions as rex
from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool
from redis.backoff import NoBackoff

SCHEME = "redis+sentinel"


class Durability(enum.Enum):
    """When a write to Redis counts as stored (``cardroom serve --durability``).

    ``LOCAL``: once the primary has it (in memory, and in its append-only file up to its
    ``appendfsync``). A failover may lose what the replica had not copied yet.
    ``REPLICATED``: once at least one replica has it too (``WAIT 1``); a write no replica
    confirms in time is refused as ``store_unavailable`` (its outcome unknown, as for a lost
    reply), never acknowledged.
    """

    LOCAL = "local"
    REPLICATED = "replicated"


#: Milliseconds a write waits for a replica under ``REPLICATED`` before it is refused.
REPLICA_TIMEOUT_MS = 1000


def is_sentinel_url(url: str) -> bool:
    return url.startswith(f"{SCHEME}://")


def sentinel_address(url: str) -> tuple[list[tuple[str, int]], str, int]:
    """The Sentinels, the watched primary's name and the database of a sentinel URL."""
    parts = urlsplit(url)
    path = [p for p in parts.path.split("/") if p]
    if not is_sentinel_url(url) or not parts.netloc or "@" in parts.netloc or not path:
        raise ValueError(f"not a {SCHEME}://host:port[,host:port...]/MASTER URL: {url!r}")
    if len(path) > 2 or (len(path) == 2 and not path[1].isdigit()):
        raise ValueError(f"after the master's name only a database number may follow: {url!r}")
    sentinels = []
    for one in parts.netloc.split(","):
        where = urlsplit(f"//{one}")
        if where.hostname is None:
            raise ValueError(f"no host in {one!r} of {url!r}")
        sentinels.append((where.hostname, where.port or 26379))
    return sentinels, path[0], int(path[1]) if len(path) == 2 else 0


class _BlockingSentinelPool(SentinelConnectionPool, BlockingConnectionPool):
    """Sentinel's pool that makes a command wait for a free connection (as
    :func:`~server.store.redis_client.connect`'s pool does) instead of failing past its size."""


class _PrimaryClient(Redis):
    """A client of the primary that closes its Sentinels' connections with its own."""

    async def aclose(self, close_connection_pool: bool | None = None) -> None:
        pool = self.connection_pool
        await super().aclose(close_connection_pool)
        if isinstance(pool, SentinelConnectionPool):
            await pool.sentinel_manager.aclose()


def connect_sentinel(url: str, timeout: float, pool_size: int) -> Redis:
    """A client of the primary the Sentinels of ``url`` name, failing within ``timeout``."""
    sentinels, master, db = sentinel_address(url)
    socket: dict[str, Any] = {"socket_timeout": timeout, "socket_connect_timeout": timeout}
    manager = Sentinel(sentinels, sentinel_kwargs=dict(socket))
    client: Redis = manager.master_for(
        master,
        redis_class=_PrimaryClient,
        connection_pool_class=_BlockingSentinelPool,
        db=db,
        max_connections=pool_size,
        timeout=timeout,
        retry=Retry(NoBackoff(), 1),
        retry_on_error=[rex.ConnectionError],
        health_check_interval=30,
        **socket,
    )
    client.auto_close_connection_pool = True
    return client


async def primary_address(client: Redis) -> tuple[str, int] | None:
    """Where ``client``'s primary is now, if Sentinel picks it (``None``: a plain pool)."""
    pool = client.connection_pool
    if isinstance(pool, SentinelConnectionPool):
        host, port = await pool.get_master_address()  # type: ignore[no-untyped-call]
        return str(host), int(port)
    return None
