"""``cardroom serve`` as a real process: SIGTERM stops it gracefully."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from clients import CardroomClient
from server.tools.bench.procs import free_port, serve_process

pytestmark = pytest.mark.slow


@asynccontextmanager
async def serving() -> AsyncIterator[tuple[asyncio.subprocess.Process, int]]:
    """``cardroom serve`` on a free loopback port, killed if the test leaves it running."""
    port = free_port()
    async with serve_process(port) as proc:
        yield proc, port


async def test_sigterm_tells_clients_closes_with_1001_and_exits_cleanly() -> None:
    async with serving() as (proc, port):
        client = await CardroomClient.connect(f"ws://127.0.0.1:{port}/")
        await client.create("shithead", seats=3, name="Ann")
        async with connect(f"ws://127.0.0.1:{port}/") as raw:
            proc.send_signal(signal.SIGTERM)
            closing = await client.wait_for(lambda m: m.type == "closing", timeout=10)
            assert "shutting down" in closing.reason  # type: ignore[union-attr]
            try:
                while True:
                    await asyncio.wait_for(raw.recv(), 10)
            except ConnectionClosed as closed:
                assert closed.rcvd is not None and closed.rcvd.code == 1001
        assert await asyncio.wait_for(proc.wait(), 15) == 0
        await client.close()
