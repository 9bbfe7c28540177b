"""A friend drops: everyone sees until when their seat is held (``SeatInfo.held_until``, the
grace timer's own deadline), and the host may hand it to a stand-in bot at once (``host
stand_in``) rather than keep the table waiting; the friend takes the seat back on return."""

from __future__ import annotations

import time

import pytest

from clients import CardroomClient, CardroomError
from server.net.server import CardroomServer
from server.rooms.outputs import GraceTimer, RunBot
from server.store.memory import MemoryStore
from tests.support.room_core import SETTINGS, Harness, create_shithead, whole
from tests.support.server import device_for, make_config, play_until_over


def started_with_bob() -> tuple[Harness, str]:
    """Ann hosts (conn 1), Bob (conn 2, seat 1) sits, a bot in seat 2, the match started;
    Bob's seat token."""
    h = Harness()
    create_shithead(h)
    token = h.send(2, type="join", name="Bob")[0]["token"]
    h.send(1, type="host", op="start")
    h.bots.clear()
    return h, token


def test_a_dropped_friends_seat_says_until_when_it_is_held() -> None:
    h, _ = started_with_bob()
    assert h.last(1, "room")["room"]["seats"][1]["held_until"] is None  # here: nothing held
    h.now = 2000.0
    h.disconnect(2)
    bob = h.last(1, "room")["room"]["seats"][1]
    # the deadline the grace timer fires at, not a guess of the client's
    assert bob["held_until"] == h.timers[GraceTimer(1)] == 2000.0 + SETTINGS.grace
    h.fire(GraceTimer(1))
    assert h.last(1, "room")["room"]["seats"][1]["held_until"] is None  # a bot plays now


def test_the_host_hands_a_dropped_seat_to_a_bot_at_once_and_the_friend_takes_it_back() -> None:
    h, token = started_with_bob()
    h.disconnect(2)
    replies = h.send(1, type="host", op="stand_in", seat=1)
    assert [r["type"] for r in replies][:1] == ["ack"]
    assert h.seat(1).away
    bob = h.last(1, "room")["room"]["seats"][1]
    assert bob["held_until"] is None and bob["playing_for"] == SETTINGS.stand_in_level
    # the swap: Bob's stand-in is asked to get ready now, not after the grace
    assert any(isinstance(job, RunBot) and job.seat == 1 for job in h.bots)
    h.run_bots()
    assert h.room.match is not None and 1 not in h.room.match.current.to_act()
    # Bob comes back with his token: the seat is his again
    replies = h.send(3, type="resume", token=token)
    assert replies[0]["type"] == "joined" and replies[0]["seat"] == 1
    assert not h.seat(1).away and h.last(1, "room")["room"]["seats"][1]["held_until"] is None


@pytest.mark.parametrize(
    ("why", "conn", "seat", "code"),
    [
        ("Bob is here", 1, 1, "bad_seat"),
        ("a bot's seat", 1, 2, "bad_seat"),
        ("the host's own seat", 1, 0, "bad_seat"),
        ("no such seat", 1, 7, "bad_seat"),
        ("not the host", 3, 1, "not_host"),
    ],
)
def test_a_stand_in_is_refused_for_a_seat_nobody_waits_for(
    why: str, conn: int, seat: int, code: str
) -> None:
    h, _ = started_with_bob()
    if conn == 3:
        h.send(3, type="watch")
    before = whole(h.room)
    reply = h.send(conn, type="host", op="stand_in", seat=seat)
    assert reply[0]["type"] == "error" and reply[0]["code"] == code, why
    assert whole(h.room) == before, why  # a refusal changes nothing


def test_a_stand_in_is_refused_in_the_lobby_and_for_a_seat_already_handed_over() -> None:
    h = Harness()
    create_shithead(h)
    h.send(2, type="join", name="Bob")
    h.disconnect(2)
    before = whole(h.room)
    reply = h.send(1, type="host", op="stand_in", seat=1)
    assert reply[0]["code"] == "not_started"  # a lobby seat is freed after grace instead
    assert whole(h.room) == before
    h.send(1, type="host", op="start")
    h.send(1, type="host", op="stand_in", seat=1)
    before = whole(h.room)
    assert h.send(1, type="host", op="stand_in", seat=1)[0]["code"] == "bad_seat"
    assert whole(h.room) == before


async def test_over_a_socket_the_table_plays_on_without_waiting_the_grace(
    store: MemoryStore,
) -> None:
    # a grace far longer than the test may take: only the host's command lets it finish
    async with CardroomServer(make_config(grace=600.0), store=store) as srv:
        ann = await CardroomClient.connect(srv.url, device=device_for(srv, "ann"))
        bob = await CardroomClient.connect(srv.url, device=device_for(srv, "bob"))
        try:
            await ann.create("shithead", seats=2, name="Ann")
            await bob.join(ann.room or "", name="Bob")
            await ann.host("start")
            await bob.close()
            room = await ann.wait_room(lambda r: not r.seats[1].connected)
            held = room.seats[1].held_until
            assert held is not None and 590 < held - time.time() <= 600
            with pytest.raises(CardroomError) as err:
                await ann.host("stand_in", seat=0)
            assert err.value.code == "bad_seat"
            await ann.host("stand_in", seat=1)
            room = await ann.wait_room(lambda r: r.seats[1].held_until is None)
            view = await play_until_over(ann, timeout=20)  # Bob's stand-in plays his turns
            assert view["phase"] == "over"
        finally:
            await ann.close()
