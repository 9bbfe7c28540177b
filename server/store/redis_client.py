"""One way to reach Redis for every Redis-backed store: a client that fails fast when Redis is
gone and reconnects by itself when it returns, key names, and the mapping of Redis's connection
errors to :class:`~server.store.base.StoreUnavailable`.

Keys of one room share a hash tag (``{CODE}``), so a room's keys live in one slot and its
scripts stay valid on a Redis Cluster.

>>> room_key("ABCDE", "log")
'cr:{ABCDE}:log'
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import redis.exceptions as rex
from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from server.store.base import StoreUnavailable
from server.store.redis_cluster import connect_cluster, is_cluster_url
from server.store.redis_sentinel import connect_sentinel, is_sentinel_url

#: A client of one Redis or of a Redis Cluster (``redis+cluster://``: see
#: :mod:`server.store.redis_cluster`).
RedisClient = Redis | RedisCluster

#: Seconds to wait for Redis to accept or answer before calling it unavailable.
TIMEOUT = 2.0
PREFIX = "cr"
#: Connections to Redis a process keeps at most (commands beyond wait for one, up to TIMEOUT).
POOL_SIZE = 64

# Errors that mean "Redis cannot take this now", as opposed to a bug in a command.
_UNAVAILABLE: tuple[type[BaseException], ...] = (
    rex.ConnectionError,  # refused, reset, still loading its data set
    rex.TimeoutError,
    rex.ReadOnlyError,  # a replica, or a primary demoted during a failover
    rex.OutOfMemoryError,
    OSError,
)


# Redis cannot write now (its disk full, loading, no primary, out of memory, a replica): as a
# reply of its own, or inside a script's error ("Error running script ...: -MISCONF ...")
_REFUSED_NOW = re.compile(r"(?:^|-)(?:MISCONF|LOADING|MASTERDOWN|OOM|READONLY)\b")


def room_key(code: str, part: str) -> str:
    """The key of one part of a room: ``room``, ``log``, ``fence``, ``lease`` or ``hist``."""
    return f"{PREFIX}:{{{code}}}:{part}"


def global_key(name: str) -> str:
    """A key shared by every room (the fence counter, the room index, leaderboards)."""
    return f"{PREFIX}:{name}"


def connect(url: str, timeout: float = TIMEOUT) -> RedisClient:
    """A client for ``url`` (``redis://host:port/db``, ``redis+cluster://host:port,...`` for a
    cluster, ``redis+sentinel://host:port,.../MASTER`` for the primary Sentinel names) that
    fails within ``timeout`` seconds.

    A dropped connection is retried once at once: after a Redis restart the pool's first
    command meets a dead socket and the retry opens a fresh one, so callers see the outage
    only while Redis is really down. Every script is safe to run twice.
    """
    if is_cluster_url(url):
        return connect_cluster(url, timeout)
    if is_sentinel_url(url):
        return connect_sentinel(url, timeout, POOL_SIZE)
    # A pool that makes a command wait for a free connection: redis-py's default pool fails
    # at once (MaxConnectionsError) past 100 commands in flight, which 300 people on two
    # processes reached (tests/deploy/test_deployment.py); Redis runs them one at a time anyway.
    pool = BlockingConnectionPool.from_url(
        url,
        max_connections=POOL_SIZE,
        timeout=timeout,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        retry=Retry(NoBackoff(), 1),
        retry_on_error=[rex.ConnectionError],
        health_check_interval=30,
    )
    client = Redis(connection_pool=pool)
    client.auto_close_connection_pool = True  # closed with the client (as Redis.from_url does)
    return client


@contextmanager
def unavailable_as_store_error() -> Iterator[None]:
    """Turn Redis's "cannot reach / cannot write now" errors into :class:`StoreUnavailable`."""
    try:
        yield
    except _UNAVAILABLE as exc:
        raise StoreUnavailable(f"{type(exc).__name__}: {exc}") from exc
    except (rex.ClusterDownError, rex.TryAgainError, rex.SlotNotCoveredError) as exc:
        raise StoreUnavailable(f"{type(exc).__name__}: {exc}") from exc  # a cluster node away
    except rex.RedisClusterException as exc:
        if isinstance(exc.__cause__, _UNAVAILABLE):  # no node of the cluster could be reached
            raise StoreUnavailable(f"{type(exc).__name__}: {exc}") from exc
        raise
    except rex.ResponseError as exc:
        if _REFUSED_NOW.search(str(exc)):
            raise StoreUnavailable(str(exc)) from exc
        raise
