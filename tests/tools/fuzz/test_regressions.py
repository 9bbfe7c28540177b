"""Defects the fuzzer found, each pinned by a test over real sockets."""

from __future__ import annotations

import asyncio
import json

import pytest

from server.net.server import CardroomServer
from server.tools.fuzz.probe import Session, Tally
from tests.support.server import make_config

pytestmark = pytest.mark.slow

CREATE = {"type": "create", "game": "shithead", "seats": 3, "name": "Ann"}


async def test_pipelined_creates_open_one_room_that_closes_when_its_host_goes() -> None:
    # found by `cardroom fuzz`: 139 rooms left open after everyone had left, each opened by
    # the second `create` of a batch written at once (the first room kept its host forever)
    async with CardroomServer(make_config(grace=0.2, idle_timeout=0.5)) as server:
        session = Session(server.url)
        await session.open()
        frames: list[str | bytes] = [json.dumps({"type": "hello", "id": 0, "protocol": 1})]
        frames += [json.dumps({**CREATE, "id": i}) for i in range(1, 4)]
        await session.send(frames)  # one TCP write
        tally = Tally()
        await session.settle(tally, timeout=5)
        assert tally.answers["joined"] == 1 and tally.answers["error:already_in_room"] == 2
        assert len(server.manager.rooms) == 1
        await session.raw.close(abrupt=True)
        async with asyncio.timeout(10):
            # the room idle-closes once its host is gone (the server exposes no event)
            while server.manager.rooms:  # noqa: ASYNC110
                await asyncio.sleep(0.05)
