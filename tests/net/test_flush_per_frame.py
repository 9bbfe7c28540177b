"""A client frame's replies are written as soon as it is handled, not behind every other frame
read in the same turn of the event loop (server/net/server.py, ``_received``).

With 10,000 people one turn read 30-80 frames back to back, and each one's replies waited
for all of them and for one flush of them all at the end of the turn: 13-22 ms of the tail."""

from __future__ import annotations

import asyncio
import time

from server.net.server import CardroomServer, ServerConfig
from tests.support.http import http_get
from tests.support.raw_ws import open_raw, read_frame, text

CLIENTS = 40


async def test_frames_read_in_one_turn_are_answered_one_flush_each() -> None:
    config = ServerConfig(port=0, rate=1000.0, burst=1000.0, hello_timeout=30.0)
    async with CardroomServer(config) as server:
        clients = [await open_raw(server.port) for _ in range(CLIENTS)]
        flushes, sent = server.metrics.flushes, server.metrics.frames_sent
        for n, (_, writer) in enumerate(clients):
            writer.write(text(f'{{"type": "ping", "id": {n}}}'))  # sent now, on loopback
        # the loop (the server's too) is held until every ping is in the server's sockets:
        # its next turn reads all forty
        time.sleep(0.05)  # noqa: ASYNC251  # held on purpose
        replies = [await asyncio.wait_for(read_frame(reader), 5) for reader, _ in clients]
        assert [(op, f'"ref":{n}' in data.decode()) for n, (op, data) in enumerate(replies)] == [
            (0x1, True)
        ] * CLIENTS  # each its own pong, in text
        assert server.metrics.frames_sent - sent == CLIENTS
        # one write pass per frame handled; before, one for all forty at the end of the turn
        assert server.metrics.flushes - flushes == CLIENTS
        for _, writer in clients:
            writer.close()
        _, metrics = await asyncio.to_thread(http_get, server.port, "/metrics")
        assert f"cardroom_flushes_total {float(server.metrics.flushes)}" in metrics.splitlines()
