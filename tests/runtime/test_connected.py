"""Who is connected, known in one place: one :class:`~server.runtime.connected.Connected` that the
WebSocket server, the room manager and the cluster share, and the one place that refuses a
connection a second room (``already_in_room``), here or relayed to another process."""

from __future__ import annotations

import asyncio

import pytest

from clients import CardroomClient, CardroomError
from protocol.errors import ErrorCode
from server.net.server import CardroomServer
from server.rooms.refusal import Refusal
from server.runtime.connected import Connected
from tests.support.server import make_config


class Box:
    def __init__(self) -> None:
        self.frames: list[str] = []

    def send(self, text: str) -> None:
        self.frames.append(text)


def test_a_connection_is_in_one_room_here_or_relayed_elsewhere() -> None:
    people: Connected[Box] = Connected()
    people.open(1, Box(), "10.0.0.1")
    people.enter(1, "AAAAA")
    people.enter(1, "AAAAA")  # the same room again: its own request, no refusal
    with pytest.raises(Refusal) as other:
        people.enter(1, "BBBBB")
    assert other.value.code == ErrorCode.ALREADY_IN_ROOM and "AAAAA" in other.value.message
    with pytest.raises(Refusal):
        people.check_free(1)  # nor a new room
    assert people.room_of(1) == "AAAAA"  # a refusal changes nothing
    people.left(1, "BBBBB")  # not where it is: nothing happens
    people.left(1, "AAAAA")
    people.enter(1, "BBBBB")
    people.left(1, "BBBBB")
    # relayed to a room another process holds: that room only, until it leaves
    people.forward(1, "CCCCC", "proc-b")
    people.check_free(1, "CCCCC")
    for code in ("DDDDD", None):
        with pytest.raises(Refusal) as relayed:
            people.check_free(1, code)
        assert relayed.value.code == ErrorCode.ALREADY_IN_ROOM and "CCCCC" in relayed.value.message
    assert people.room_of(1) is None  # relayed is not in a room here
    assert people.unforward(1) == ("CCCCC", "proc-b")
    people.check_free(1)


def test_a_client_gone_leaves_nothing_behind() -> None:
    people: Connected[Box] = Connected()
    ann, bob = Box(), Box()
    people.open(1, ann, "10.0.0.1")
    people.open(2, bob, "10.0.0.1")
    people.relay(-1, Box())  # a client of another process
    assert people.from_address("10.0.0.1") == 2
    people.identify(1, "device-1")
    people.identify(-1, "device-9")
    people.enter(1, "AAAAA")
    people.enter(-1, "AAAAA")
    people.forward(2, "BBBBB", "proc-b")
    assert people.forwarded_to("proc-b") == [2] and people.owners() == set()
    people.send(1, "one")
    people.send(3, "nobody")  # not connected: dropped
    assert ann.frames == ["one"] and bob.frames == []
    assert people.empty("AAAAA") == [1, -1] and people.room_of(1) is None
    people.enter(1, "AAAAA")
    assert people.forget(1) == "AAAAA"
    assert people.from_address("10.0.0.1") == 1 and not people.present(1)
    assert people.device_of(1) is None and people.present(-1)
    people.forget(2)
    people.forget(-1)
    assert people.tracked() == 0 and people.from_address("10.0.0.1") == 0


async def test_the_server_and_its_rooms_share_who_is_connected() -> None:
    async with CardroomServer(make_config()) as server:
        connected = server.connected
        async with CardroomClient.connect(server.url) as ann:
            await ann.create("shithead", seats=2, name="Ann")
            (conn,) = connected.sockets
            assert connected.room_of(conn) == ann.room
            assert connected.from_address("127.0.0.1") == 1
            assert connected.device_of(conn) == ann.device  # the one its welcome issued
            with pytest.raises(CardroomError) as err:  # a second room: one refusal for all
                await ann.create("shithead", seats=2, name="Ann")
            assert err.value.code == "already_in_room" and str(ann.room) in err.value.message
        for _ in range(200):  # gone from the server, the manager and the rooms alike
            if connected.tracked() == 0:
                break
            await asyncio.sleep(0.01)
        assert connected.tracked() == 0
