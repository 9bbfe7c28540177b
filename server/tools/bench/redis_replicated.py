"""A local Redis primary, a replica and Sentinels watching them, for tests and benchmarks: each
a ``redis-server`` process (Sentinel is ``redis-server --sentinel``, so no other binary) on a
free loopback port in its own directory.

Its :attr:`ReplicatedRedis.url` is the ``redis+sentinel://`` URL ``cardroom serve --redis``
takes. Sentinel here notices a dead primary after :data:`DOWN_AFTER_MS` and promotes the replica
at once (one Sentinel: a quorum of one; three: two), so a failover takes a few seconds.

>>> import tempfile, pathlib
>>> with ReplicatedRedis(pathlib.Path(tempfile.mkdtemp())) as pair:  # doctest: +SKIP
...     pair.primary.stop(kill=True)
...     pair.wait_failover()
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import time
from pathlib import Path

from server.tools.bench.procs import free_port
from server.tools.bench.redis_server import Group, RedisServer, ask, end, redis_binary

#: The name the Sentinels watch the primary under.
MASTER = "cardroom"
#: Milliseconds without an answer before a Sentinel calls the primary down.
DOWN_AFTER_MS = 1000


class Sentinel:
    """One Sentinel process watching :data:`MASTER`."""

    def __init__(self, directory: Path, primary_port: int, quorum: int) -> None:
        self.directory = directory
        self.port = free_port()
        self.primary_port = primary_port
        self.quorum = quorum
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 10.0) -> None:
        conf = self.directory / "sentinel.conf"
        conf.write_text(
            f"port {self.port}\nbind 127.0.0.1\ndaemonize no\ndir {self.directory}\n"
            f"logfile {self.directory / 'sentinel.log'}\n"
            f"sentinel monitor {MASTER} 127.0.0.1 {self.primary_port} {self.quorum}\n"
            f"sentinel down-after-milliseconds {MASTER} {DOWN_AFTER_MS}\n"
            f"sentinel failover-timeout {MASTER} 10000\n"
            f"sentinel parallel-syncs {MASTER} 1\n"
        )
        self.process = subprocess.Popen(
            [redis_binary(), str(conf), "--sentinel"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while not ask(self.port, b"PING").startswith(b"+PONG"):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"redis-server --sentinel did not start on {self.port}")
            time.sleep(0.02)

    def primary(self) -> int | None:
        """The port of the primary this Sentinel names now."""
        reply = ask(self.port, f"SENTINEL get-master-addr-by-name {MASTER}".encode())
        parts = reply.split(b"\r\n")
        return int(parts[4]) if len(parts) > 4 and parts[4].isdigit() else None

    def stop(self) -> None:
        if self.process is not None:
            end(self.process)
        self.process = None


class ReplicatedRedis(Group):
    """A primary, ``replicas`` replicas and ``sentinels`` Sentinels; a context manager for
    them all.

    ``fsync`` is each Redis's ``appendfsync``; the failover tests kill a primary, so what it
    wrote to its own disk does not matter there: what matters is what reached a replica. With
    one replica, ``--durability replicated`` refuses writes after a failover until another
    replica joins (the old primary back, as a replica): two keep play going at once.
    """

    def __init__(
        self, directory: Path, sentinels: int = 1, replicas: int = 1, fsync: str = "everysec"
    ) -> None:
        self.directory = directory
        self.fsync = fsync
        self.count = sentinels
        self.wanted = replicas
        (directory / "primary").mkdir(parents=True, exist_ok=True)
        self.primary = RedisServer(directory / "primary", fsync=fsync)
        self.replicas: list[RedisServer] = []  # made once the primary's port is sure
        self.sentinels: list[Sentinel] = []

    @property
    def url(self) -> str:
        where = ",".join(f"127.0.0.1:{s.port}" for s in self.sentinels)
        return f"redis+sentinel://{where}/{MASTER}"

    def start(self, timeout: float = 20.0) -> None:
        self.primary.start()
        for i in range(self.wanted):
            (self.directory / f"replica{i}").mkdir(parents=True, exist_ok=True)
            replica = RedisServer(
                self.directory / f"replica{i}",
                fsync=self.fsync,
                extra=("--replicaof", "127.0.0.1", str(self.primary.port)),
            )
            self.replicas.append(replica)
            replica.start()
        quorum = 1 if self.count == 1 else self.count // 2 + 1
        for i in range(self.count):
            (self.directory / f"sentinel{i}").mkdir(parents=True, exist_ok=True)
            self.sentinels.append(
                Sentinel(self.directory / f"sentinel{i}", self.primary.port, quorum)
            )
        deadline = time.monotonic() + timeout
        for replica in self.replicas:
            while b"master_link_status:up" not in ask(replica.port, b"INFO replication"):
                if time.monotonic() > deadline:
                    raise RuntimeError("a replica did not catch up with the primary")
                time.sleep(0.05)
        for sentinel in self.sentinels:
            sentinel.start()
        # every Sentinel has found every replica (it promotes only a replica it knows)
        while not all(self._knows_replicas(s) for s in self.sentinels):
            if time.monotonic() > deadline:
                raise RuntimeError("the Sentinels did not find the replicas")
            time.sleep(0.05)

    def _knows_replicas(self, sentinel: Sentinel) -> bool:
        reply = ask(sentinel.port, f"SENTINEL replicas {MASTER}".encode())
        return all(f"{r.port}".encode() in reply for r in self.replicas)

    def serving(self) -> int | None:
        """The port of the primary every Sentinel names, once they agree."""
        named = {s.primary() for s in self.sentinels}
        return named.pop() if len(named) == 1 else None

    def wait_failover(self, timeout: float = 30.0) -> float:
        """Wait until the Sentinels name a replica and it takes writes; the seconds waited."""
        started = time.monotonic()
        while True:
            named = self.serving()
            promoted = named is not None and named in {r.port for r in self.replicas}
            if promoted and b"role:master" in ask(named or 0, b"INFO replication"):
                return time.monotonic() - started
            if time.monotonic() - started > timeout:
                raise RuntimeError("no failover to the replica")
            time.sleep(0.05)

    def cut_replicas(self) -> None:
        """Leave the replicas behind: each stopped (SIGSTOP), and their links cut on the
        primary, so what the primary takes from now on reaches no replica."""
        for replica in self.replicas:
            assert replica.process is not None
            replica.process.send_signal(signal.SIGSTOP)
        ask(self.primary.port, b"CLIENT KILL TYPE replica")

    def resume_replicas(self) -> None:
        for replica in self.replicas:
            if replica.process is not None:
                replica.process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        self.resume_replicas()  # a stopped process does not hear SIGTERM
        for sentinel in self.sentinels:
            with contextlib.suppress(Exception):
                sentinel.stop()
        for server in (*self.replicas, self.primary):
            with contextlib.suppress(Exception):
                server.stop()
