"""People at rated tables of a server under test: each from an address of their own (as a
proxy on 127.0.0.1 says it), with the identity the server issued them."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from typing import Any

from clients import CardroomClient
from protocol.messages import RoomInfo
from server.net.server import CardroomServer, ServerConfig
from tests.support.server import device_for, make_config


def rated_config(**rooms: Any) -> ServerConfig:
    """A test server's config whose clients say their address through a proxy on 127.0.0.1:
    one each, as people are (a rated table seats one identity an address)."""
    return replace(make_config(**rooms), trusted_proxies=("127.0.0.1/32",))


async def person(
    server: CardroomServer, who: str, address: str, device: str | None = None
) -> CardroomClient:
    """``who`` from ``address``, with the identity the server issued them (or ``device``)."""
    headers = [("X-Forwarded-For", address)]
    c = await CardroomClient.connect(server.url, hello=False, additional_headers=headers)
    await c.hello(device=device if device is not None else device_for(server, who))
    return c


async def shown(client: CardroomClient, timeout: float = 10.0) -> RoomInfo:
    """The room frame that shows the last rated game's changes."""
    deadline = time.monotonic() + timeout
    while client.room_info is None or client.room_info.ratings is None:
        assert time.monotonic() < deadline, client.room_info
        await asyncio.sleep(0.02)
    return client.room_info


async def last_game(server: CardroomServer, room: str) -> dict[str, Any]:
    """The last finished game of ``room``'s stored history (waited for)."""
    deadline = time.monotonic() + 10
    while not (games := await server.store.history(room)):
        assert time.monotonic() < deadline
        await asyncio.sleep(0.02)
    return games[-1]
