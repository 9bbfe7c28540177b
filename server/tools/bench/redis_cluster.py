"""A local Redis Cluster for tests and benchmarks: three masters (no replicas) on free loopback
ports, each a :class:`~server.tools.bench.redis_server.RedisServer` in its own directory with
``--cluster-enabled yes``, the 16,384 slots shared out by ``redis-cli --cluster create``.

Its :attr:`RedisCluster.url` is the ``redis+cluster://`` URL ``cardroom serve --redis`` takes.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
from pathlib import Path

from server.tools.bench.procs import free_port
from server.tools.bench.redis_server import Group, RedisServer, ask, redis_cli_binary

#: A cluster node also listens on its port + 10,000 (the cluster bus; Redis 6 has no setting).
BUS_OFFSET = 10_000


def free_cluster_port() -> int:
    """A free loopback port whose cluster-bus port (+10,000) is free and valid too."""
    for _ in range(200):
        port = free_port()
        if port + BUS_OFFSET > 65_535:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port + BUS_OFFSET))
            except OSError:
                continue
        return port
    raise RuntimeError("no free port pair for a cluster node")


def _cluster_ok(port: int) -> bool:
    """Whether the node on ``port`` sees the whole cluster up (every slot served)."""
    return b"cluster_state:ok" in ask(port, b"CLUSTER INFO")


class RedisCluster(Group):
    """Three cluster masters on loopback; a context manager that starts and stops them all."""

    def __init__(self, directory: Path, masters: int = 3, fsync: str = "always") -> None:
        self.nodes = []
        for i in range(masters):
            node_dir = directory / f"node{i}"
            node_dir.mkdir(parents=True, exist_ok=True)
            options = ("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")
            self.nodes.append(RedisServer(node_dir, free_cluster_port(), fsync, options))

    @property
    def url(self) -> str:
        seeds = ",".join(f"127.0.0.1:{node.port}" for node in self.nodes)
        return f"redis+cluster://{seeds}"

    @property
    def ports(self) -> list[int]:
        return [node.port for node in self.nodes]

    def start(self, timeout: float = 30.0) -> None:
        """Start every node, join them and share out the slots; return once every node
        reports the cluster ``ok``."""
        for node in self.nodes:
            node._start(10.0)  # the port is fixed: its bus port was checked with it
        subprocess.run(
            [
                redis_cli_binary(),
                "--cluster",
                "create",
                *(f"127.0.0.1:{port}" for port in self.ports),
                "--cluster-replicas",
                "0",
                "--cluster-yes",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=timeout,
        )
        deadline = time.monotonic() + timeout
        while not all(_cluster_ok(port) for port in self.ports):
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the Redis Cluster did not come up")
            time.sleep(0.05)

    def flush(self) -> None:
        """Empty every node (between tests sharing one cluster)."""
        for port in self.ports:
            if not ask(port, b"FLUSHALL", timeout=5).startswith(b"+OK"):
                raise RuntimeError(f"FLUSHALL failed on port {port}")

    def stop(self) -> None:
        for node in self.nodes:
            with contextlib.suppress(Exception):
                node.stop()
