"""The listening socket's backlog: a burst of connections (a rolling restart sends every client
of the stopping process to the other at once) is queued by the kernel, not dropped.

With asyncio's default backlog of 100, the 300 clients of ``cardroom bench handover --rooms 100``
arriving together overflowed the accept queue (``ListenOverflows`` in ``/proc/net/netstat`` rose
by 280 in one run): each dropped SYN was sent again a second later, then three, and those rooms
paused 1-3.5 s longer than the others. The process is stopped here (SIGSTOP), so nothing is
accepted while the burst arrives and only the kernel's queue holds it.
"""

from __future__ import annotations

import contextlib
import selectors
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.deploy.processes import Serve

pytestmark = pytest.mark.slow

BURST = 300
#: A SYN that the queue dropped is retried after a second: a connection that completed before
#: this bound was queued at once.
BOUND = 0.6
UPGRADE = (
    b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


@contextlib.contextmanager
def stopped(srv: Serve) -> Iterator[None]:
    """The server's process stopped (it accepts nothing) for the block, continued after."""
    assert srv.process is not None
    srv.process.send_signal(signal.SIGSTOP)
    try:
        yield
    finally:
        srv.process.send_signal(signal.SIGCONT)


def connect_all(port: int, count: int, within: float) -> tuple[list[socket.socket], int]:
    """``count`` non-blocking connects at once: the sockets, and how many completed ``within``
    seconds."""
    socks = []
    with selectors.DefaultSelector() as sel:
        for i in range(count):
            s = socket.socket()
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", port))
            socks.append(s)
            sel.register(s, selectors.EVENT_WRITE, i)
        done, deadline = 0, time.monotonic() + within
        while done < count and (left := deadline - time.monotonic()) > 0:
            for key, _ in sel.select(left):
                sel.unregister(key.fileobj)
                ready = socks[key.data]
                done += ready.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0
    return socks, done


def upgraded(s: socket.socket, timeout: float) -> bool:
    """Whether the server answers a WebSocket handshake on ``s`` with 101."""
    s.setblocking(True)
    s.settimeout(timeout)
    try:
        s.sendall(UPGRADE)
        return s.recv(12).startswith(b"HTTP/1.1 101")
    except OSError:
        return False


def test_a_burst_of_connections_is_queued_while_the_server_is_busy(tmp_path: Path) -> None:
    args = ["--max-handshakes-per-address", "1000", "--max-per-address", "1000"]
    with Serve(args, tmp_path / "serve.log") as srv:
        with stopped(srv):
            socks, done = connect_all(srv.port, BURST, BOUND)
        try:
            assert done == BURST  # all in the kernel's queue: no SYN waits for its retry
            assert all(upgraded(s, 10.0) for s in socks)  # and each is served once accepted
        finally:
            for s in socks:
                s.close()


def test_the_backlog_is_a_setting(tmp_path: Path) -> None:
    with Serve(["--backlog", "50"], tmp_path / "serve.log") as srv:
        with stopped(srv):
            socks, done = connect_all(srv.port, 120, BOUND)
        for s in socks:
            s.close()
    assert 40 <= done <= 60  # the kernel queues backlog + 1; the others' SYNs were dropped
