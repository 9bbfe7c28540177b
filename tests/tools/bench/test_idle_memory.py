"""What an idle connection keeps alive in the server, traced by ``tracemalloc`` over real
WebSockets on loopback (the clients in a load worker process, so that only the server's
objects are counted): the response, the request's headers, websockets' keepalive task (one
sweep pings every connection instead), the empty deques of drain waiters and of the message
assembler, and the hello timer no longer live as long as the connection."""

from __future__ import annotations

import pytest

from server.tools.bench.idle_memory import measure

pytestmark = pytest.mark.slow


async def test_an_idle_connection_keeps_under_10_5_kb_of_python_objects() -> None:
    held = await measure(300)
    # 16.5 KB a connection before the response and the drain waiters' deque were let go,
    # 14.0 KB after; 9.2 KB once the request's headers, the keepalive task, the assembler's
    # deque and the hello timer went too (1,000 connections)
    assert 0 < held.per_connection < 10_500, "\n".join(held.lines(15))
    # no connection keeps its request's headers: a request's headers are about 1 KB, so
    # kept by every connection they would be hundreds of KB here; a handful still in flight
    # as the snapshot is taken (seen once in CI) are not what this asks about
    headers = sum(size for site, size, _ in held.sites if "datastructures.py" in site)
    assert headers < 50 * held.connections, "\n".join(held.lines(15))
    # once they closed (and a collection) their objects are gone: what RSS keeps is the
    # allocator's, not Python objects still alive
    assert held.left < 1_000 * held.connections, held.left
