"""What an idle connection keeps alive in the server, traced by ``tracemalloc`` over real
WebSockets on loopback (the clients in a load worker process, so that only the server's
objects are counted): the response headers and an empty deque of drain waiters no longer
live as long as the connection."""

from __future__ import annotations

from server.tools.bench.idle_memory import measure


async def test_an_idle_connection_keeps_under_15_kb_of_python_objects() -> None:
    held = await measure(300)
    # 16.5 KB a connection before the response and the drain waiters' deque were let go
    # (14.1 KB after, measured with 1,000 connections; docs/benchmarks.md)
    assert 0 < held.per_connection < 15_000, "\n".join(held.lines(15))
