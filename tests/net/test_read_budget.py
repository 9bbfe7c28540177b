"""One budget for every read an address makes, however it asks: the ``leaderboard`` message
takes from the same per-address bucket as ``/api/leaderboard``, ``/api/daily`` and history."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from server.net.server import CardroomServer
from tests.support.http import get
from tests.support.server import make_config


def budgeted(burst: float) -> CardroomServer:
    config = dataclasses.replace(make_config(), history_rate=0.01, history_burst=burst)
    return CardroomServer(config)


async def boards(ws: ClientConnection, count: int) -> list[dict[str, Any]]:
    """Ask for ``count`` boards at once; every answer, in order."""
    for i in range(count):
        await ws.send(json.dumps({"type": "leaderboard", "id": 10 + i, "board": "shithead"}))
    return [json.loads(await asyncio.wait_for(ws.recv(), 5)) for _ in range(count)]


async def test_the_leaderboard_message_is_within_the_read_budget() -> None:
    async with budgeted(5) as srv, connect(srv.url) as ws:
        await ws.send(json.dumps({"type": "hello", "id": 1, "protocol": 1}))
        await ws.recv()
        got = await boards(ws, 8)
        kinds = [g["type"] if g["type"] != "error" else g["code"] for g in got]
        assert kinds == ["standings"] * 5 + ["rate_limited"] * 3
        assert [g["ref"] for g in got] == list(range(10, 18))


async def test_http_and_websocket_reads_share_one_bucket() -> None:
    async with budgeted(4) as srv, connect(srv.url) as ws:
        for _ in range(3):
            assert (await get(srv, "/api/leaderboard?board=shithead"))[0] == 200
        await ws.send(json.dumps({"type": "hello", "id": 1, "protocol": 1}))
        await ws.recv()
        got = await boards(ws, 2)
        assert [g["type"] for g in got] == ["standings", "error"]
        assert (await get(srv, "/api/daily"))[0] == 429
