"""Server processes for the tools and the tests: a free loopback port, the ``cardroom serve``
command line (its limits raised for loads), starting a process (pinned to one CPU if asked),
waiting until it serves, stopping it, and reading its memory and CPU time from ``/proc`` (Linux).
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import IO

from server.rooms.secret import process_secret

PR_SET_PDEATHSIG = 1  # prctl(2)

#: Limits of ``cardroom serve`` that protect a public server and would throttle a loopback load
#: test: raised explicitly (the defaults stay safe), and printed by the tools that pass them.
RAISED_LIMITS = (
    "--rate",
    "1000000",
    "--burst",
    "1000000",
    "--max-connections",
    "100000",
    "--max-per-address",
    "100000",
    # hundreds of simulated people open their connections at once from one address
    "--max-handshakes-per-address",
    "100000",
    # every simulated person comes from 127.0.0.1: the room budgets of one address are raised
    "--rooms-per-minute",
    "1000000",
    "--rooms-burst",
    "1000000",
    "--rooms-per-address",
    "100000",
    "--max-rooms",
    "100000",
    "--chat-per-minute",
    "1000000",
    "--chat-burst",
    "1000000",
    "--chat-each-per-minute",
    "1000000",
    "--chat-each-burst",
    "1000000",
)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def child_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """A server process's environment: this one's, unbuffered output, and ``env`` over all;
    without a ``CARDROOM_SECRET``, this process's own secret (the processes of one Redis must
    share theirs, which Redis does not keep: so do the servers this process runs itself)."""
    secret = process_secret().hex()
    return {"CARDROOM_SECRET": secret, **os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}


def serve_command(port: int, *extra: str) -> list[str]:
    """The command line of a quiet ``cardroom serve`` on ``port`` whose bots move at once."""
    return [
        sys.executable,
        "-m",
        "server.cli",
        "serve",
        "--port",
        str(port),
        "--bot-delay",
        "0",
        "--log-level",
        "WARNING",
        *extra,
    ]


def pinned(command: Sequence[str], cpu: int | None) -> list[str]:
    """``command`` run on one CPU with ``taskset`` (unchanged if ``cpu`` is None or no taskset)."""
    if cpu is None or shutil.which("taskset") is None:
        return list(command)
    return ["taskset", "-c", str(cpu), *command]


def die_with_parent() -> None:
    """In a child: SIGKILL it if the process that started it dies first (even SIGKILLed itself)."""
    if sys.platform == "linux":
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def pin_self(cpu: int | None) -> None:
    """Keep this process on one CPU (the load generator's), if asked and possible."""
    if cpu is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {cpu})


def start(
    command: Sequence[str],
    *,
    stderr: IO[str] | IO[bytes] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
) -> subprocess.Popen[bytes]:
    """Start a server quietly (its standard output discarded, its output unbuffered, ``env``
    added to this process's environment, ``stderr`` where its log goes); stop it with
    :func:`stop`."""
    return subprocess.Popen(
        list(command),
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        env=child_env(env),
        cwd=cwd,
    )


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop a process of :func:`start` (SIGTERM; SIGKILL after 20 s); safe if it has exited."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def wait_http(
    port: int,
    path: str = "/healthz",
    timeout: float = 30.0,
    proc: subprocess.Popen[bytes] | None = None,
) -> None:
    """Wait until ``http://127.0.0.1:port/path`` answers (raises TimeoutError), or until
    ``proc``, the server started to answer there, exits (raises ChildProcessError)."""
    deadline = time.monotonic() + timeout
    while True:
        if proc is not None and proc.poll() is not None:
            raise ChildProcessError(f"the server exited at once (status {proc.returncode})")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as r:
                r.read()
                return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing answered on port {port} in {timeout:g} s") from None
            time.sleep(0.05)


@asynccontextmanager
async def serve_process(port: int, *args: str) -> AsyncIterator[asyncio.subprocess.Process]:
    """``cardroom serve *args`` (:func:`serve_command`) as a real process on loopback ``port``,
    once it says it serves (its standard output stays a pipe, unread); killed at the end if it
    is still running. Raises RuntimeError if it does not start."""
    proc = await asyncio.create_subprocess_exec(
        *serve_command(port, *args),
        stdout=asyncio.subprocess.PIPE,
        env=child_env(),
    )
    try:
        assert proc.stdout is not None
        line = await asyncio.wait_for(proc.stdout.readline(), 30)
        if b"serving on" not in line:
            raise RuntimeError(f"cardroom serve did not start: {line!r}")
        yield proc
    finally:
        if proc.returncode is None:
            proc.kill()
        await proc.wait()


def wait_port(port: int, timeout: float = 30.0) -> None:
    """Wait until something accepts TCP connections on 127.0.0.1:``port``."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing listens on port {port}") from None
            time.sleep(0.05)


def rss_bytes(pid: int) -> int:
    """Resident memory of process ``pid`` (``VmRSS``)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise ValueError(f"no VmRSS for process {pid}")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process ``pid`` so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def listening_pid(port: int) -> int | None:
    """The process listening on TCP ``port`` on loopback, found through ``/proc`` (or None)."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    parts = line.split()
                    if parts[3] == "0A" and int(parts[1].rsplit(":", 1)[1], 16) == port:
                        inodes.add(parts[9])
        except OSError:
            continue
    if not inodes:
        return None
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:[") and link[8:-1] in inodes:
                    return int(pid)
        except OSError:
            continue
    return None
