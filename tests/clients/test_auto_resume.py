"""The Python client comes back by itself (``auto_resume``): in place when its room
moved, through the next URL when its server goes away, and not at all when its room closed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from clients import CardroomClient
from protocol import messages as m
from server.net.server import CardroomServer
from server.store.memory import MemoryStore
from tests.support.server import make_config


def _tell(server: CardroomServer, code: str, reason: str) -> None:
    """Send ``closing`` with ``reason`` to every connection of this server in room ``code``."""
    people = server.connected
    for conn in [c for c in people.sockets if people.room_of(c) == code]:
        people.send(conn, m.dump(m.Closing(reason=reason)))


def _joined(client: CardroomClient) -> int:
    return sum(1 for msg in client.history if isinstance(msg, m.Joined))


@asynccontextmanager
async def hosting() -> AsyncIterator[tuple[CardroomServer, CardroomClient, str]]:
    """A server, and Ann (``auto_resume``) hosting a room on it: its code."""
    async with (
        CardroomServer(make_config()) as srv,
        CardroomClient.connect(srv.url, auto_resume=True) as ann,
    ):
        await ann.create("shithead", seats=3, name="Ann")
        assert ann.room is not None
        yield srv, ann, ann.room


async def test_it_resumes_on_its_open_connection_when_the_room_moved() -> None:
    async with hosting() as (srv, ann, code):
        socket = ann._ws
        _tell(srv, code, "the room moved; resume with your token")
        await ann.wait_for(lambda msg: msg.type == "closing", timeout=10)
        await ann.recovered()
        assert ann.recovery_error is None and _joined(ann) == 2  # create, then the resume
        assert ann._ws is socket and not ann.closed  # the same connection
        assert ann.seat == 0


async def test_it_comes_back_through_the_next_url_when_its_server_goes_away() -> None:
    store = MemoryStore()
    first = CardroomServer(make_config(), store=store)
    await first.start()
    ann = await CardroomClient.connect(first.url, auto_resume=True)
    await ann.create("shithead", seats=3, name="Ann")
    code, token = ann.room, ann.token
    async with CardroomServer(make_config(), store=store) as second:  # restores the room
        ann.urls.append(second.url)
        await first.stop()  # closing, then 1001: Ann calls nothing
        await ann.wait_for(lambda msg: msg.type == "closing", timeout=10)
        await ann.recovered()
        assert ann.recovery_error is None
        assert ann.url == second.url and not ann.closed
        assert (ann.room, ann.seat) == (code, 0) and ann.token not in (None, token)
        await ann.close()


async def test_a_room_closed_for_good_is_not_resumed() -> None:
    async with hosting() as (srv, ann, code):
        _tell(srv, code, "room closed: idle")
        await ann.wait_for(lambda msg: msg.type == "closing", timeout=10)
        await ann.ping()  # a round trip: a resume would have been sent before it
        await ann.recovered()
        assert _joined(ann) == 1 and not ann.closed


async def test_a_request_made_while_it_reconnects_waits_for_the_new_hello() -> None:
    # found by `cardroom bench handover`: a player's act went out on the new connection before
    # the reconnection's hello, and the server refused it (hello_required)
    async with hosting() as (_srv, ann, code):
        old = ann._ws
        reconnecting = asyncio.create_task(ann.reconnect())
        for _ in range(10_000):  # bounded: every turn of the loop until the new socket is in
            if ann._ws is not old:
                break
            await asyncio.sleep(0)
        assert ann._ws is not old
        # asked before the reconnection's hello and resume went out (a ping needs no hello)
        said = await ann.chat("still here")
        await reconnecting
        assert isinstance(said, m.Ack)
        assert (ann.room, ann.seat) == (code, 0) and _joined(ann) == 2


async def test_a_deals_value_sent_while_it_reconnects_does_not_hold_up_the_resume() -> None:
    async with hosting() as (_srv, ann, code):
        info = ann.room_info
        assert info is not None and info.next_deal is not None
        reconnecting = asyncio.create_task(ann.reconnect())
        await asyncio.sleep(0)  # the reconnection is under way
        ann.contributions.clear()
        ann._contribute(info)  # as a room message read meanwhile makes it send one
        await asyncio.wait_for(reconnecting, 5)  # its hello and resume did not wait for it
        await asyncio.wait_for(ann.contributions_sent(), 5)  # sent once resumed
        assert (ann.room, ann.seat) == (code, 0)
        assert (code, info.next_deal.game) in ann.contributions
