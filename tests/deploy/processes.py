"""Real processes for the deployment tests: ``cardroom serve`` and Debian's nginx, each
started in the test's directory and always killed at the end (``with`` blocks), and plain
HTTP from a chosen loopback source address (so the server sees different people)."""

from __future__ import annotations

import contextlib
import os
import re
import resource
import selectors
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from server.tools.bench.procs import child_env, die_with_parent

ROOT = Path(__file__).resolve().parents[2]
LISTENING = re.compile(rb"cardroom serving on http://[^:]+:(\d+)/")


class Serve:
    """One ``cardroom serve`` subprocess on a free port (``port`` once started).

    ``nofile`` lowers its file-descriptor limit; ``cwd`` runs another checkout's code (the
    measurements ran the same probe against the code before a fix, to see what the fix did).
    """

    def __init__(
        self,
        args: Sequence[str],
        log: Path,
        *,
        nofile: int | None = None,
        cwd: Path = ROOT,
        host: str = "127.0.0.1",
        env: dict[str, str] | None = None,
    ) -> None:
        self.args = [*args]
        self.env = env or {}
        self.log = log
        self.nofile = nofile
        self.cwd = cwd
        self.host = host
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 30.0) -> Serve:
        nofile = self.nofile

        def limit() -> None:  # in the child, before it runs Python
            die_with_parent()
            if nofile is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        command = [sys.executable, "-m", "server.cli", "serve", "--host", self.host]
        command += ["--port", "0", "--log-level", "WARNING", *self.args]
        with self.log.open("ab") as err:
            self.process = subprocess.Popen(
                command,
                cwd=self.cwd,
                stdout=subprocess.PIPE,
                stderr=err,
                preexec_fn=limit,
                env=child_env(self.env),
            )
        assert self.process.stdout is not None
        seen = _read_until(self.process.stdout, LISTENING, timeout)
        match = LISTENING.search(seen)
        if match is None:
            self.kill()
            raise RuntimeError(f"cardroom serve did not start: {seen!r}; see {self.log}")
        self.port = int(match[1])
        return self

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}/"

    def kill(self) -> None:
        """SIGKILL: the process is gone at once, as in a crash."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        self._close_pipe()

    def _close_pipe(self) -> None:
        if self.process is not None and self.process.stdout is not None:
            self.process.stdout.close()

    def stop(self) -> None:
        """SIGTERM (a graceful stop), then SIGKILL if it takes too long."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.kill()
        self._close_pipe()

    def __enter__(self) -> Serve:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self.kill()


def _read_until(pipe: object, pattern: re.Pattern[bytes], timeout: float) -> bytes:
    seen = b""
    fd = pipe.fileno()  # type: ignore[attr-defined]
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        while not pattern.search(seen) and time.monotonic() < deadline:
            if not sel.select(max(0.0, deadline - time.monotonic())):
                break
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            seen += chunk
    return seen


def http(
    port: int,
    path: str,
    *,
    source: str = "127.0.0.1",
    host: str = "127.0.0.1",
    headers: Sequence[tuple[str, str]] = (),
    timeout: float = 5.0,
) -> tuple[int, bytes]:
    """One HTTP/1.1 GET from ``source``: the status and the body (status 0: no answer)."""
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}:{port}", "Connection: close"]
    lines += [f"{k}: {v}" for k, v in headers]
    request = ("\r\n".join(lines) + "\r\n\r\n").encode()
    try:
        with socket.create_connection((host, port), timeout, (source, 0)) as s:
            s.sendall(request)
            data = b""
            while chunk := s.recv(65536):
                data += chunk
    except OSError:
        return 0, b""
    head, _, body = data.partition(b"\r\n\r\n")
    match = re.match(rb"HTTP/1\.1 (\d{3})", head)
    return (int(match[1]) if match else 0), body


@contextlib.contextmanager
def half_sent(
    port: int, count: int, source: str, host: str = "127.0.0.1"
) -> Iterator[list[socket.socket]]:
    """``count`` connections from ``source`` that send the start of a request and no more
    (slowloris); the ones the server refused at once are among them, closed or reset."""
    held: list[socket.socket] = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            held.append(s)
            s.bind((source, 0))
            s.settimeout(5)
            try:
                s.connect((host, port))
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            except OSError:
                pass  # refused or reset at once: still one of the attempts
        yield held
    finally:
        for s in held:
            s.close()


def closed_by_peer(s: socket.socket) -> bool:
    """Whether the server has closed this connection (EOF or reset), without waiting."""
    s.setblocking(False)
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True
    finally:
        s.settimeout(5)
