"""Play now over real sockets, one process (the queue in memory): people who queue a
moment apart sit at one table; someone alone gets strong bots once the fill wait is over;
the waiting frames count and time; and every abuse rule refuses with its code."""

from __future__ import annotations

import asyncio
import time

import pytest

from clients import CardroomClient, CardroomError
from protocol.messages import Queued, Seated
from server.net.server import CardroomServer
from server.store.leaderboard import player_id
from tests.support.queue import is_queued, is_seated, person, queue_config


async def test_two_people_a_second_apart_sit_at_one_table() -> None:
    async with CardroomServer(queue_config(shithead_table=2, fill_wait=30.0)) as server:
        ann = await person(server.url, 2)
        bob = await person(server.url, 3)
        first = await ann.queue("shithead", "Ann")
        assert (first.game, first.waiting) == ("shithead", 1)
        await asyncio.sleep(1.0)
        await bob.queue("shithead", "Bob")
        joined = await asyncio.gather(ann.take_seat(timeout=5), bob.take_seat(timeout=5))
        assert joined[0].room == joined[1].room
        assert {j.seat for j in joined} == {0, 1}
        state = await ann.wait_state(timeout=5)
        assert state.room == joined[0].room and state.seat == ann.seat
        info = await bob.wait_room(timeout=5)
        assert [s.kind for s in info.seats] == ["human", "human"]
        assert info.locked  # strangers watch; nobody joins by its code
        # the longest waiting person sits first (seat 0) and hosts
        assert ann.seat == 0 and info.seats[0].host and info.seats[0].name == "Ann"
        await ann.close()
        await bob.close()


async def test_someone_alone_gets_strong_bots_after_the_fill_wait() -> None:
    async with CardroomServer(queue_config(shithead_table=4, fill_wait=1.5)) as server:
        ann = await person(server.url, 2)
        queued_at = time.monotonic()
        await ann.queue("shithead", "Ann")
        waiting = await ann.wait_for(is_queued, timeout=2)  # the next status frame
        assert isinstance(waiting, Queued) and waiting.waiting == 1 and waiting.fill_in <= 1.5
        seated = await ann.wait_for(is_seated, timeout=5)
        assert isinstance(seated, Seated) and seated.seat == 0
        assert time.monotonic() - queued_at >= 1.4  # not before the fill wait
        joined = await ann.resume(seated.room, seated.token)
        assert joined.seat == 0
        info = await ann.wait_room(timeout=5)
        assert [(s.kind, s.bot_level) for s in info.seats] == [
            ("human", None),
            ("bot", "strong"),
            ("bot", "strong"),
            ("bot", "strong"),
        ]
        assert info.options.model_dump() == {  # the book's rules
            "seven_lower": False,
            "eight_skips": False,
            "three_invisible": False,
        }
        assert (await ann.wait_state(timeout=5)).view["game"] == "shithead"
        await ann.close()


async def test_sheepshead_tables_are_five() -> None:
    async with CardroomServer(queue_config(fill_wait=0.5)) as server:
        ann = await person(server.url, 2)
        await ann.queue("sheepshead", "Ann")
        joined = await ann.take_seat(timeout=5)
        info = await ann.wait_room(timeout=5)
        assert joined.seat == 0 and len(info.seats) == 5 and info.game == "sheepshead"
        await ann.close()


async def test_one_address_never_sits_twice_at_a_table() -> None:
    async with CardroomServer(queue_config(shithead_table=2, fill_wait=1.0)) as server:
        ann = await person(server.url, 2)
        twin = await person(server.url, 2)  # another identity from Ann's address
        await ann.queue("shithead", "Ann")
        await twin.queue("shithead", "Twin")
        rooms = [
            s.room for s in await asyncio.gather(*(c.take_seat(timeout=5) for c in (ann, twin)))
        ]
        assert rooms[0] != rooms[1]  # each alone with a bot, after the fill wait
        await ann.close()
        await twin.close()


async def test_cancel_and_disconnect_leave_the_line() -> None:
    async with CardroomServer(queue_config(shithead_table=2, fill_wait=30.0)) as server:
        ann = await person(server.url, 2)
        await ann.queue("shithead", "Ann")
        await ann.cancel_queue()
        with pytest.raises(CardroomError) as refused:
            await ann.cancel_queue()
        assert refused.value.code == "not_queued"
        cid = await person(server.url, 4)
        await cid.queue("shithead", "Cid")
        await cid.close()  # gone: out of the line
        deadline = time.monotonic() + 5
        while server.queue.mine or await server.queue.store.entries("shithead"):
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        bob = await person(server.url, 3)
        await bob.queue("shithead", "Bob")
        await asyncio.sleep(0.5)  # several groupings: nobody to sit with
        status = await bob.wait_for(is_queued, timeout=2)
        assert isinstance(status, Queued) and status.waiting == 1
        assert not any(isinstance(msg, Seated) for msg in bob.history)
        assert server.queue.seated == 0
        await ann.close()
        await bob.close()


async def test_abuse_is_refused_with_codes() -> None:
    config = queue_config(shithead_table=4, fill_wait=60.0, joins_burst=3.0, per_game=2)
    async with CardroomServer(config) as server:
        ann = await person(server.url, 2)
        await ann.queue("shithead", "Ann")
        for request in (
            ann.queue("shithead", "Ann"),  # one entry per connection
            ann.queue("sheepshead", "Ann"),
            ann.create("shithead", 2, "Ann"),  # no room while queued
        ):
            with pytest.raises(CardroomError) as refused:
                await request
            assert refused.value.code == "already_queued"
        # the same identity from a second connection
        again = await CardroomClient.connect(server.url, hello=False, local_addr=("127.0.0.2", 0))
        await again.hello(device=ann.device)
        with pytest.raises(CardroomError) as refused:
            await again.queue("shithead", "Ann")
        assert refused.value.code in ("already_queued", "queue_too_often")
        # an address's joins are budgeted (three at once here: Ann's, and two refused above
        # that took none, then again's)
        bob = await person(server.url, 3)
        await bob.queue("shithead", "Bob")
        cid = await person(server.url, 4)
        with pytest.raises(CardroomError) as refused:
            await cid.queue("shithead", "Cid")  # the line holds two
        assert refused.value.code == "queue_full"
        # in a room: no queue
        dan = await person(server.url, 5)
        await dan.create("shithead", 2, "Dan")
        with pytest.raises(CardroomError) as refused:
            await dan.queue("sheepshead", "Dan")
        assert refused.value.code == "already_in_room"
        # a bad name is refused as for a room
        with pytest.raises(CardroomError) as refused:
            await cid.queue("sheepshead", "\u200b")
        assert refused.value.code == "bad_name"
        for c in (ann, again, bob, cid, dan):
            await c.close()


async def test_joins_per_address_are_budgeted() -> None:
    async with CardroomServer(queue_config(fill_wait=60.0, joins_burst=2.0)) as server:
        ann = await person(server.url, 2)
        for _ in range(2):
            await ann.queue("shithead", "Ann")
            await ann.cancel_queue()
        with pytest.raises(CardroomError) as refused:
            await ann.queue("shithead", "Ann")
        assert refused.value.code == "queue_too_often"
        other = await person(server.url, 3)  # another address has its own budget
        assert (await other.queue("shithead", "Bob")).waiting >= 1
        await ann.close()
        await other.close()


async def test_an_unknown_game_is_an_invalid_message(server: CardroomServer) -> None:
    ann = await person(server.url, 2)
    await ann.send_raw('{"type": "queue", "id": "q", "game": "poker", "name": "Ann"}')
    error = await ann.wait_for(lambda msg: getattr(msg, "ref", None) == "q", timeout=5)
    assert getattr(error, "code", None) == "invalid_message"
    await ann.close()


async def test_an_arrival_takes_a_bot_seat_in_the_tables_first_seconds() -> None:
    config = queue_config(shithead_table=3, fill_wait=1.0, take_window=30.0)
    async with CardroomServer(config) as server:
        ann = await person(server.url, 2)
        await ann.queue("shithead", "Ann")
        first = await ann.wait_for(is_seated, timeout=5)  # Ann and two bots
        assert isinstance(first, Seated)
        bob = await person(server.url, 3)
        await bob.queue("shithead", "Bob")  # answered, then seated at once: no fill wait
        seated = await bob.wait_for(is_seated, timeout=2)
        assert isinstance(seated, Seated) and (seated.room, seated.seat) == (first.room, 1)
        assert server.queue.took_bot_seats == 1 and not server.queue.mine
        joined = await asyncio.gather(ann.take_seat(first), bob.take_seat(seated))
        assert [j.seat for j in joined] == [0, 1]
        info = await bob.wait_room(timeout=5)
        assert [(s.kind, s.name) for s in info.seats][:2] == [("human", "Ann"), ("human", "Bob")]
        assert info.seats[2].kind == "bot"
        # the seat is rated for Bob (the bot that sat there never is: it made no move)
        core = server.manager.rooms[first.room].core
        devices = [s.device for s in core.state.seats]
        assert core.state.rated_seats == [*devices[:2], "bot:strong"]
        assert None not in devices[:2] and devices[0] != devices[1]
        # rule: a rated table seats one identity an address; Ann's twin waits for another
        twin = await person(server.url, 2)
        await twin.queue("shithead", "Twin")
        elsewhere = await twin.wait_for(is_seated, timeout=5)
        assert isinstance(elsewhere, Seated) and elsewhere.room != first.room
        for c in (ann, bob, twin):
            await c.close()


async def test_a_bot_that_moved_or_a_closed_window_keeps_its_seat() -> None:
    config = queue_config(shithead_table=2, fill_wait=1.0, take_window=30.0)
    async with CardroomServer(config) as server:
        ann = await person(server.url, 2)
        await ann.queue("shithead", "Ann")
        joined = await ann.take_seat(timeout=5)
        state = await ann.wait_state(timeout=5)
        await ann.act({"kind": "ready"}, version=state.version)
        while state.view["phase"] == "swap":  # the bot is ready too: it has moved
            state = await ann.wait_state(timeout=5)
        dan = await person(server.url, 4)
        await dan.queue("shithead", "Dan")
        # the store gave Dan the bot's seat; the room refused it: Dan is back in the line
        assert not [t for t in await server.queue.store.tables() if t.room == joined.room]
        assert [e.name for e in await server.queue.store.entries("shithead")] == ["Dan"]
        assert server.queue.took_bot_seats == 0
        seated = await dan.wait_for(is_seated, timeout=5)  # a table of his own
        assert isinstance(seated, Seated) and seated.room != joined.room
        await ann.close()
        await dan.close()
    config = queue_config(shithead_table=2, fill_wait=0.5, take_window=0.5)
    async with CardroomServer(config) as server:
        ann = await person(server.url, 2)
        await ann.queue("shithead", "Ann")
        first = await ann.wait_for(is_seated, timeout=5)
        assert isinstance(first, Seated)
        await asyncio.sleep(0.6)  # the table's first seconds are over
        bob = await person(server.url, 3)
        await bob.queue("shithead", "Bob")
        seated = await bob.wait_for(is_seated, timeout=5)
        assert isinstance(seated, Seated) and seated.room != first.room
        assert server.queue.took_bot_seats == 0
        await ann.close()
        await bob.close()


async def test_a_seat_given_is_given_again_until_it_is_resumed() -> None:
    async with CardroomServer(queue_config(shithead_table=2, fill_wait=0.5)) as server:
        ann = await person(server.url, 2)
        await ann.queue("shithead", "Ann")
        first = await ann.wait_for(is_seated, timeout=5)
        assert isinstance(first, Seated)
        device = ann.device
        await ann.close()  # the ``seated`` never used, as if it had been lost
        again = await CardroomClient.connect(server.url, hello=False, local_addr=("127.0.0.2", 0))
        await again.hello(device=device)
        await again.queue("shithead", "Ann")
        second = await again.wait_for(is_seated, timeout=2)
        assert isinstance(second, Seated)
        assert (second.room, second.seat, second.token) == (first.room, first.seat, first.token)
        assert (await again.take_seat(second)).seat == first.seat
        # resumed: the next ``queue`` (after leaving) is a new place in the line
        await again.leave()
        deadline = time.monotonic() + 5
        assert device is not None
        while await server.queue.store.assigned(player_id(device), time.time()):
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        await again.close()
