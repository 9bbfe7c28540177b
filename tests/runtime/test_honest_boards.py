"""Honest leaderboards (no entry without play), over real WebSockets on loopback: a daily room
takes one person and its bots are fixed; only a device identity the server issued ranks, and
one address gets few of them a day; a result needs a minimum of the person's own play."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

import pytest

from clients import CardroomClient, CardroomError
from protocol.messages import HostOp
from server.net.devices import TOKEN_LENGTH
from server.net.server import CardroomServer
from server.store.leaderboard import Board
from tests.support.http import metric, metrics
from tests.support.results_api import play_daily
from tests.support.server import device_for, make_config, play_until_over

MADE_UP = [f"sock-puppet-device-{i:04d}" for i in range(5)]


async def hello(
    server: CardroomServer, device: str | None, source: str = "127.0.0.1"
) -> CardroomClient:
    c = await CardroomClient.connect(server.url, hello=False, local_addr=(source, 0))
    await c.hello(device=device)
    return c


async def issued(
    server: CardroomServer, device: str | None, source: str = "127.0.0.1"
) -> str | None:
    """The device identity a hello with ``device`` is welcomed with (``None``: unranked)."""
    c = await CardroomClient.connect(server.url, hello=False, local_addr=(source, 0))
    welcome = await c.hello(device=device)
    await c.close()
    return welcome.device


async def test_a_daily_room_takes_one_person() -> None:
    # rule SS-9.2: the daily game is one person against four bots; colluding seats cannot sit
    async with CardroomServer(make_config()) as server:
        host = await hello(server, device_for(server, "ann"))
        await host.create("sheepshead", seats=5, name="Ann", daily=True)
        assert host.room is not None
        for name, device in zip(("Bob", "Cy"), MADE_UP, strict=False):
            puppet = await hello(server, device)
            for seat in (None, 1):
                with pytest.raises(CardroomError) as refused:
                    await puppet.join(host.room, name=name, seat=seat)
                assert refused.value.code == "daily_fixed" and refused.value.message
            watched = await puppet.watch(host.room)  # watching is fine
            assert watched.seat is None
            await puppet.close()
        await host.host("start")
        room = await host.wait_room(lambda r: r.status == "playing", timeout=10)
        assert [s.kind for s in room.seats] == ["human", "bot", "bot", "bot", "bot"]
        await host.close()


async def test_a_daily_rooms_bots_are_fixed() -> None:
    # the host may not turn the day's bots to "random" (before or during the match)
    async with CardroomServer(make_config()) as server:
        host = await hello(server, device_for(server, "ann"))
        await host.create("sheepshead", seats=5, name="Ann", daily=True)
        lobby: tuple[tuple[HostOp, int | None], ...] = (("add_bot", 1), ("fill_bots", None))
        for op, seat in lobby:
            with pytest.raises(CardroomError) as refused:
                await host.host(op, seat, "random")
            assert refused.value.code == "daily_fixed"
        await host.host("start")
        room = await host.wait_room(lambda r: r.status == "playing", timeout=10)
        levels = [s.bot_level for s in room.seats[1:]]
        playing: tuple[HostOp, ...] = ("set_bot_level", "remove_bot")
        for op in playing:  # in the middle of the match
            with pytest.raises(CardroomError) as refused:
                await host.host(op, 2, "random")
            assert refused.value.code == "daily_fixed"
        info = host.room_info
        assert info is not None and [s.bot_level for s in info.seats[1:]] == levels
        assert "random" not in levels
        await host.close()


async def test_made_up_devices_earn_nothing() -> None:
    config = replace(make_config(), devices_per_address=3)
    async with CardroomServer(config) as server:
        given = [await issued(server, device) for device in MADE_UP]  # five sock puppets
        assert all(d is not None and server.devices.valid(d) for d in given[:3])
        assert given[3:] == [None, None]  # the address had its day's three
        assert not any(d in MADE_UP for d in given)
        text = await metrics(server)
        assert metric(text, "cardroom_devices_issued") == 3
        assert metric(text, "cardroom_devices_refused") == 2
        # a forged identity of the right shape is not one: it is not said back
        forged = "cr1" + "A" * (TOKEN_LENGTH - 3)
        other = await issued(server, forged, source="127.0.0.2")  # another address: its own
        assert other is not None and other != forged and server.devices.valid(other)
        # an identity the server issued is kept, and costs nothing more
        assert await issued(server, given[0]) == given[0]
        assert metric(await metrics(server), "cardroom_devices_issued") == 4


@pytest.mark.slow
async def test_sock_puppets_do_not_reach_the_daily_board() -> None:
    # three made-up devices play a whole daily match each from one address: one entry
    config = replace(make_config(), devices_per_address=1)
    async with CardroomServer(config) as server:
        for name, device in zip(("Ann", "Bob", "Cy"), MADE_UP, strict=False):
            me = await hello(server, device)
            await play_daily(me, name)
            await me.close()
        board = Board.parse("daily")
        deadline = time.monotonic() + 10
        while not await server.stores.boards.top(board):
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)  # the others would have been recorded by now
        assert [e.name for e in await server.stores.boards.top(board)] == ["Ann"]


async def test_a_game_a_stand_in_played_ranks_nobody() -> None:
    # the minimum of play: Ann starts a game and leaves, and makes no move of her own; Bob
    # plays his (a room with no person connected waits, so Bob stays)
    async with CardroomServer(make_config(grace=0.1)) as server:
        ann = await hello(server, device_for(server, "ann"))
        bob = await hello(server, device_for(server, "bob"))
        await ann.create("shithead", seats=3, name="Ann")
        assert ann.room is not None
        await bob.join(ann.room, name="Bob")
        await ann.host("start")
        await ann.close()  # a stand-in plays every move of Ann's
        await play_until_over(bob)
        board = Board.alltime("shithead")
        deadline = time.monotonic() + 10
        while not (entries := await server.stores.boards.top(board)):
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        assert [e.name for e in entries] == ["Bob"]
        await bob.close()


@pytest.mark.slow
async def test_identities_hoarded_from_one_address_share_its_daily_entries() -> None:
    # one address collects an identity a day for four days, then plays four daily matches
    config = replace(make_config(), rooms=replace(make_config().rooms, daily_entries_per_address=2))
    async with CardroomServer(config) as server:
        hoard = [server.devices.mint("10.9.9.9") for _ in range(4)]
        for name, device in zip(("Ann", "Bob", "Cy", "Dee"), hoard, strict=True):
            assert device is not None
            me = await hello(server, device)
            assert me.device == device  # each a real identity the server issued
            await play_daily(me, name)
            await me.close()
        board = Board.parse("daily")
        deadline = time.monotonic() + 10
        while len(await server.stores.boards.top(board)) < 2:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)  # the others would have been recorded by now
        assert sorted(e.name for e in await server.stores.boards.top(board)) == ["Ann", "Bob"]


@pytest.mark.slow
async def test_daily_rooms_open_to_several_people_rank_nobody() -> None:
    # --daily-alone off (the fuzzer's rooms of scripted people) cannot feed the daily board
    rooms = replace(make_config().rooms, daily_alone=False)
    async with CardroomServer(replace(make_config(), rooms=rooms)) as server:
        me = await hello(server, device_for(server, "ann"))
        await play_daily(me, "Ann")
        assert me.room is not None
        deadline = time.monotonic() + 10
        while len(await server.store.history(me.room)) < 10:  # stored with the results
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        assert await server.stores.boards.top(Board.parse("daily")) == []
        assert await server.stores.boards.top(Board.alltime("sheepshead")) == []
        await me.close()
