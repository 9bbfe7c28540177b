"""Shared test settings, and the real redis-server fixture."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from server.tools.bench.redis_cluster import RedisCluster
from server.tools.bench.redis_replicated import ReplicatedRedis
from server.tools.bench.redis_server import RedisServer

# A real server on loopback (the ``store`` and ``server`` fixtures), for every folder's tests
pytest_plugins = ["tests.support.server"]

settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=False
)
settings.register_profile(
    "ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
# CI sets CI=true: the same examples on every run, so a red build is reproducible
settings.load_profile("ci" if os.environ.get("CI", "").lower() in ("true", "1") else "default")

# What makes a test slow whatever its own code: a browser, nginx in front of processes, a Redis
# Cluster. A test that uses one is marked ``slow`` here, so `make check` (``-m "not slow"``)
# never starts them; other slow tests carry the mark themselves.
SLOW_FIXTURES = frozenset(
    {
        "browser",
        "new_context",
        "deployment",
        "proxied",
        "redis_cluster_processes",
        "replicated_redis",
    }
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        params = getattr(item, "callspec", None)
        on_cluster = params is not None and "redis_cluster" in params.params.values()
        if on_cluster or SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A real redis-server on a free loopback port (stop and start it mid-test)."""
    with RedisServer(tmp_path) as server:
        yield server


@pytest.fixture
def replicated_redis(tmp_path: Path) -> Iterator[ReplicatedRedis]:
    """A real primary, two replicas and one Sentinel on loopback (its ``url`` is
    ``redis+sentinel://...``): kill the primary and the Sentinel promotes a replica."""
    with ReplicatedRedis(tmp_path, sentinels=1, replicas=2) as pair:
        yield pair


@pytest.fixture(scope="session")
def redis_cluster_processes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisCluster]:
    """A real three-master Redis Cluster on loopback, started once for the whole run."""
    with RedisCluster(tmp_path_factory.mktemp("redis-cluster")) as cluster:
        yield cluster


@pytest.fixture
def redis_cluster(redis_cluster_processes: RedisCluster) -> RedisCluster:
    """The Redis Cluster, emptied for this test (its ``url`` is ``redis+cluster://...``)."""
    redis_cluster_processes.flush()
    return redis_cluster_processes


@pytest.fixture(params=[pytest.param("redis_server", id="redis"), "redis_cluster"])
def any_redis(request: pytest.FixtureRequest) -> RedisServer | RedisCluster:
    """The test once on one redis-server and once on the Redis Cluster: its ``url``."""
    server: RedisServer | RedisCluster = request.getfixturevalue(request.param)
    return server
