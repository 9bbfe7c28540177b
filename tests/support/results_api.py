"""The history, results and leaderboard API of a server under test, and a player's daily match."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any

from clients import CardroomClient
from server.net.server import CardroomServer
from tests.support.server import device_for, play_until_over

ANN, BOB = "ann-device-0123456789", "bob-device-0123456789"


async def get(server: CardroomServer, path: str, token: str | None = None) -> tuple[int, Any]:
    """GET on the server's port (in a thread: the server runs in this test's event loop),
    with a seat token in the ``Authorization`` header if given."""
    return await asyncio.to_thread(get_json, server, path, token)


def auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def get_json(server: CardroomServer, path: str, token: str | None = None) -> tuple[int, Any]:
    request = urllib.request.Request(f"http://127.0.0.1:{server.port}{path}", headers=auth(token))
    try:
        with urllib.request.urlopen(request, timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


async def client(server: CardroomServer, who: str) -> CardroomClient:
    """A client that says ``who``'s device identity (issued by this server) in its hello."""
    c = await CardroomClient.connect(server.url, hello=False)
    await c.hello(device=device_for(server, who))
    return c


async def play_daily(me: CardroomClient, name: str) -> None:
    """Create a daily room and play its ten hands (rule SS-9.2) to the end."""
    await me.create("sheepshead", seats=5, name=name, daily=True)
    await me.host("start")
    for hand in range(10):
        await play_until_over(me)
        if hand < 9:
            await me.host("next_game")
