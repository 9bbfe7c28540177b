"""The compression policy: permessage-deflate is declined unless the server is configured to
accept it (measured, deflate cost about a quarter of the CPU per action)."""

from __future__ import annotations

from typing import Literal

import pytest
from websockets.asyncio.client import connect

from server.net.server import CardroomServer, ServerConfig


@pytest.mark.parametrize(("policy", "negotiated"), [("off", False), ("deflate", True)])
async def test_a_client_offering_deflate_gets_it_only_when_the_server_accepts_it(
    policy: Literal["off", "deflate"], negotiated: bool
) -> None:
    config = ServerConfig(port=0, compression=policy, web_root=None)
    async with (
        CardroomServer(config) as server,
        connect(server.url, compression="deflate", proxy=None) as ws,
    ):
        assert bool(ws.protocol.extensions) is negotiated
        await ws.send('{"type": "hello", "id": 1, "protocol": 1}')
        assert '"welcome"' in str(await ws.recv())


def test_the_default_declines_compression() -> None:
    assert ServerConfig().compression == "off"
