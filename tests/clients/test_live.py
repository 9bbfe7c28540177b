"""The client library against a real server on loopback: turns() through a whole game,
states(), refusals that say what was refused, and reconnect() taking the seat back."""

from __future__ import annotations

import asyncio

import pytest

from clients import CardroomClient, CardroomError, ConnectionLost
from protocol.messages import Act, State
from server.net.server import CardroomServer
from tests.support.server import choose


async def test_turns_yield_each_turn_once_until_the_game_is_over(live: CardroomServer) -> None:
    async with CardroomClient.connect(live.url) as ann:
        await ann.create("shithead", seats=3, name="Ann")
        await ann.host("fill_bots", level="basic")
        await ann.host("start")
        seen: list[int] = []
        async for state in ann.turns(timeout=30):
            assert state.version not in seen  # never the same state twice
            seen.append(state.version)
            if state.view["phase"] == "over":
                break
            try:
                await ann.act(choose(state.view), version=state.version)
            except CardroomError as exc:
                assert exc.code == "stale_version"
        assert ann.view is not None and ann.view["phase"] == "over"
        assert len(seen) > 3


async def test_states_iterates_every_state_and_refusals_say_what_and_why(
    live: CardroomServer,
) -> None:
    async with CardroomClient.connect(live.url) as ann:
        await ann.create("sheepshead", seats=5, name="Ann")
        await ann.host("start")
        await ann.wait_state()
        state = ann.state
        assert state is not None
        with pytest.raises(CardroomError) as refused:
            await ann.act({"kind": "play", "cards": ["2C"]}, version=state.version)
        exc = refused.value
        assert isinstance(exc.request, Act) and exc.request.action.cards == ["2C"]
        assert str(exc).startswith(f"act play 2C refused: {exc.code}: ")
        assert exc.message  # the server's explanation for people

        versions: list[int] = []

        async def watch() -> None:
            async for s in ann.states():
                versions.append(s.version)
                if s.view["phase"] == "over":
                    return

        watcher = asyncio.create_task(watch())
        async for turn in ann.turns(timeout=30):
            if turn.view["phase"] == "over":
                break
            await ann.act(turn.view["legal"][0], version=turn.version)
        await asyncio.wait_for(watcher, 10)
        assert versions == sorted(versions) and versions[-1] == ann.version


async def test_reconnect_resumes_the_seat_after_a_dropped_connection(
    live: CardroomServer,
) -> None:
    async with CardroomClient.connect(live.url) as ann:
        joined = await ann.create("shithead", seats=2, name="Ann")
        await ann.host("fill_bots", level="basic")
        await ann.host("start")
        before = await ann.wait_state()
        ann._ws.transport.abort()  # the network drops
        with pytest.raises(ConnectionLost):
            await ann.wait_for(lambda msg: False, timeout=5)
        again = await ann.reconnect()
        assert again is not None
        assert (again.room, again.seat) == (joined.room, 0)
        # the resume rotated the seat's token: the client keeps the fresh one
        assert ann.token == again.token and ann.token != joined.token
        snapshot = await ann.wait_state()
        assert isinstance(snapshot, State) and snapshot.version >= before.version
        assert snapshot.events == []  # a snapshot, as after any resume
        assert (await ann.ping()).type == "pong"
        ann._ws.transport.abort()  # dropped again: the fresh token resumes the seat
        with pytest.raises(ConnectionLost):
            await ann.wait_for(lambda msg: False, timeout=5)
        assert (await ann.reconnect()) is not None and ann.seat == 0


async def test_the_device_token_is_said_at_connect_and_again_after_a_reconnect(
    live: CardroomServer,
) -> None:
    # the token under which a player's finished games are ranked must survive a dropped line;
    # a made-up one ranks nothing: the server's welcome issues one, said from then on
    async with CardroomClient.connect(live.url, device="terminal-device-token-0001") as ann:
        await ann.create("shithead", seats=2, name="Ann")
        device = ann.device
        assert device is not None and device != "terminal-device-token-0001"
        (first,) = live.connected.sockets
        assert live.connected.device_of(first) == device
        ann._ws.transport.abort()  # the network drops
        with pytest.raises(ConnectionLost):
            await ann.wait_for(lambda msg: False, timeout=5)
        assert await ann.reconnect() is not None
        (second,) = live.connected.sockets
        assert second != first and live.connected.device_of(second) == device


async def test_reconnect_says_when_the_seat_is_gone(live: CardroomServer) -> None:
    async with (
        CardroomClient.connect(live.url) as ann,
        CardroomClient.connect(live.url) as bob,
    ):
        await ann.create("shithead", seats=3, name="Ann")
        await bob.join(ann.room or "", "Bob")
        bob._ws.transport.abort()  # Bob's network drops...
        await ann.wait_room(lambda r: not r.seats[1].connected)
        await ann.host("kick", seat=1)  # ...and the host gives his seat away meanwhile
        with pytest.raises(CardroomError) as gone:
            await bob.reconnect()
        assert gone.value.code == "bad_token" and gone.value.message


async def test_a_removed_seat_ends_the_wait_for_a_turn(live: CardroomServer) -> None:
    async with (
        CardroomClient.connect(live.url) as ann,
        CardroomClient.connect(live.url) as bob,
    ):
        await ann.create("shithead", seats=3, name="Ann")
        await bob.join(ann.room or "", "Bob")
        await ann.host("kick", seat=1)
        with pytest.raises(CardroomError) as removed:
            await bob.wait_turn(timeout=5)
        assert removed.value.code == "removed" and bob.room is None
