"""Cardroom on a Redis Cluster: the ``redis+cluster://`` URL, the client for it, and what must
differ from one Redis because a cluster runs a script or transaction only on keys of one slot.

``redis+cluster://host:port[,host:port...]`` names seed nodes (one is enough; the client finds
the rest with ``CLUSTER SLOTS``). On a cluster:

- a room's keys share the hash tag ``{CODE}`` (as on one Redis), so every room script runs in
  the room's slot; the global room index (``cr:rooms``) is not written by them: the rooms are
  listed by a ``SCAN`` of every master for ``cr:{*}:room`` (:func:`scan_rooms`), which costs
  nothing per action; a server on Redis loads a room when a player asks for it and never lists
  them (``RoomStore.list`` is for a store without that, and for the tools);
- a room's fence key is its own fence counter (:mod:`server.store.lease`): a token grows with
  every takeover of the room and never falls below Redis's clock in milliseconds, so a code used
  again after its room went never repeats a token a paused old owner could still hold;
- each leaderboard's script runs in one slot (its keys share the tag ``{lb:BOARD}``): one
  board's writes go to one master, different boards spread over the masters; the display names
  (one hash for every board) are written after it;
- pub/sub goes through one plain connection to one seed node, the lowest of the URL's
  (:func:`bus_client`): Redis 6 delivers every ``PUBLISH`` to the subscribers of every node, but
  its reply counts those of the node it was sent to only, and the cluster reads a count of 0 as
  "the owner is gone"; so every process must be given the same seeds. ``PUBSUB NUMSUB`` is asked
  of every node and added up.

One Redis (``redis://``) keeps the keys and scripts it had, so a store written before still
loads.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any, TypeVar
from urllib.parse import urlsplit

from redis.asyncio import Redis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.maint_notifications import MaintNotificationsConfig

SCHEME = "redis+cluster"
#: Connections a process opens to one cluster node at most (past that a command fails as
#: ``StoreUnavailable``: redis-py's cluster client cannot wait for one).
NODE_POOL_SIZE = 512
#: Single-slot script calls a process has in flight at once when it does one per room
#: (renewing every lease it holds: a cluster runs no script across slots).
AT_ONCE = 64

T = TypeVar("T")


def is_cluster_url(url: str) -> bool:
    return url.startswith(f"{SCHEME}://")


def seeds(url: str) -> list[tuple[str, int]]:
    """The seed nodes of a ``redis+cluster://`` URL.

    >>> seeds("redis+cluster://127.0.0.1:7000,127.0.0.1:7001/")
    [('127.0.0.1', 7000), ('127.0.0.1', 7001)]
    >>> seeds("redis+cluster://[::1]:7000")
    [('::1', 7000)]
    """
    netloc = urlsplit(url).netloc
    if not is_cluster_url(url) or not netloc or "@" in netloc:
        raise ValueError(f"not a {SCHEME}://host:port[,host:port...] URL: {url!r}")
    out = []
    for seed in netloc.split(","):
        parts = urlsplit(f"//{seed}")
        if parts.hostname is None:
            raise ValueError(f"no host in seed {seed!r} of {url!r}")
        out.append((parts.hostname, parts.port or 6379))
    return out


class _Cluster(RedisCluster):
    """redis-py's cluster client, which finds the cluster before its first command runs: left
    to itself, commands sent at once by a fresh client raced its discovery of the nodes and
    failed (a connection torn down under them; 14 runs of 20 with 10-90 writes at once)."""

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        if self._initialize:  # redis-py's own flag: not yet initialized
            await self.initialize()
        return await super().execute_command(*args, **kwargs)


def connect_cluster(url: str, timeout: float) -> RedisCluster:
    """A cluster client for a ``redis+cluster://`` URL that fails within ``timeout`` seconds
    (like :func:`server.store.redis_client.connect`); it finds the cluster on first use."""
    return _Cluster(
        startup_nodes=[ClusterNode(host, port) for host, port in seeds(url)],
        max_connections=NODE_POOL_SIZE,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        retry=Retry(NoBackoff(), 1),
        # Redis 6 has no CLIENT MAINT_NOTIFICATIONS: asking cost every new connection a round trip
        maint_notifications_config=MaintNotificationsConfig(enabled=False),
    )


def bus_client(url: str, timeout: float) -> Redis:
    """A plain client to the lowest seed node, for pub/sub (a cluster pipeline refuses
    ``PUBLISH``; one connection keeps the published order): every process given the same seeds,
    in any order, publishes and listens on the same node."""
    host, port = min(seeds(url))
    return Redis(host=host, port=port, socket_timeout=timeout, socket_connect_timeout=timeout)


async def scan_rooms(client: RedisCluster, prefix: str) -> list[str]:
    """The codes of every room stored on the cluster: its ``{CODE}:room`` keys, from a ``SCAN``
    of every master."""
    codes = set()
    async for key in client.scan_iter(match=f"{prefix}:{{*}}:room", count=1000):
        text = key.decode() if isinstance(key, bytes) else str(key)
        codes.add(text[len(prefix) + 2 : text.index("}")])
    return sorted(codes)


async def ping_masters(client: RedisCluster) -> None:
    """``PING`` every master the client knows (its own ``ping()`` answers ``True`` while one is
    down): raises the first node's error."""
    await each([partial(client.ping, target_nodes=node) for node in client.get_primaries()])


async def each(calls: Sequence[Callable[[], Awaitable[T]]], at_once: int = AT_ONCE) -> list[T]:
    """Run ``calls`` (one single-slot command each), ``at_once`` at a time; answers in order."""
    out: list[T] = []
    for at in range(0, len(calls), at_once):
        out.extend(await asyncio.gather(*(call() for call in calls[at : at + at_once])))
    return out
