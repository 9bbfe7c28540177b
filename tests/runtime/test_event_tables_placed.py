"""An event's tables placed on Redis (docs/events.md): each is let go for the process its
people's resumes reach, and one that no process takes is not deleted as Play now's would be
but taken by the process that made it, where the stand-ins play it, so that its event ends
even when nobody came to the table."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses

import pytest

from clients import CardroomClient
from protocol import messages as m
from server.net.server import CardroomServer
from server.tools.bench.redis_server import RedisServer
from tests.support.server import device_for, make_config

pytestmark = pytest.mark.slow


async def test_a_table_nobody_takes_is_played_by_the_stand_ins(redis_server: RedisServer) -> None:
    config = make_config(grace=0.2, lobby_timeout=0.3, next_hand_delay=0.05, bot_delay=0.0)
    config = dataclasses.replace(config, redis_url=redis_server.url)
    async with CardroomServer(config) as srv, contextlib.AsyncExitStack() as stack:
        ann, bob = [
            await stack.enter_async_context(CardroomClient.connect(srv.url)) for _ in range(2)
        ]
        await ann.hello(device=device_for(srv, "ann"))
        await bob.hello(device=device_for(srv, "bob"))
        create = m.EventCreate(
            id="c", name="Ann", game="sheepshead", table_size=5, rounds=1, hands=1
        )
        await ann.request(create, m.Ack)
        first = await ann.wait_for(lambda x: isinstance(x, m.EventFrame), timeout=5)
        assert isinstance(first, m.EventFrame)
        code = first.info.code
        await bob.request(m.EventJoin(id="j", event=code, name="Bob"), m.Ack)
        await ann.request(m.EventHost(id="s", event=code, op="start"), m.Ack)

        def opened(x: m.ServerMessage) -> bool:
            return isinstance(x, m.EventFrame) and bool(x.you and x.you.room)

        seated = await ann.wait_for(opened, timeout=5)
        assert isinstance(seated, m.EventFrame) and seated.you and seated.you.room
        room = seated.you.room
        assert room not in srv.manager.rooms  # let go at once, for whoever resumes it
        assert srv.metrics.rooms_placed == 1

        def over(x: m.ServerMessage) -> bool:
            return isinstance(x, m.EventFrame) and x.info.phase == "over"

        # nobody resumes: past the lobby's wait it is taken here, and the stand-ins play it
        end = await ann.wait_for(over, timeout=20)
        assert isinstance(end, m.EventFrame)
        assert [s.hands for s in end.info.standings] == [1, 1]
        assert await srv.store.history(room)  # its hand, recorded by the room that played it
        await asyncio.sleep(0)
