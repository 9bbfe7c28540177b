"""Play now with several processes on one real Redis: one line for the whole service. People
connected to different processes sit at one table; when every process groups the same people
at the same moment, each person is seated once (the take is one script); arrivals on two
processes for a table's bot seats get one seat each, the seats there are and no more; a
process SIGKILLed while people wait loses nobody's place, nor a seat it was telling someone."""

from __future__ import annotations

import asyncio
import dataclasses
import signal
import time

import pytest

from clients import CardroomClient, CardroomError
from protocol.messages import Queued, Seated
from server.net.server import CardroomServer
from server.tools.bench.procs import free_port
from server.tools.bench.redis_server import RedisServer
from tests.support.queue import is_seated, person, queue_config, two_processes
from tests.support.redis_games import serving


async def test_people_of_two_processes_sit_at_one_table(redis_server: RedisServer) -> None:
    async with two_processes(redis_server.url, shithead_table=2, fill_wait=30.0) as (a, b):
        ann = await person(a.url, 2)
        bob = await person(b.url, 3)
        await ann.queue("shithead", "Ann")
        await bob.queue("shithead", "Bob")
        joined = await asyncio.gather(ann.take_seat(timeout=10), bob.take_seat(timeout=10))
        assert joined[0].room == joined[1].room and {j.seat for j in joined} == {0, 1}
        # both play the one room, wherever it is held
        states = await asyncio.gather(ann.wait_state(timeout=10), bob.wait_state(timeout=10))
        assert states[0].version == states[1].version
        await ann.close()
        await bob.close()


async def test_two_processes_grouping_at_once_seat_each_person_once(
    redis_server: RedisServer,
) -> None:
    # each process groups only when the test says (a tick of an hour after the first)
    async with two_processes(redis_server.url, shithead_table=2, fill_wait=60.0, tick=3600.0) as (
        a,
        b,
    ):
        people = [await person((a, b)[i % 2].url, 2 + i) for i in range(8)]
        for i, p in enumerate(people):
            await p.queue("shithead", f"P{i}")
        # both group the same eight people at the same moment
        await asyncio.gather(a.queue.tick(), b.queue.tick())
        seated: list[Seated] = []
        for p in people:
            got = await p.wait_for(is_seated, timeout=10)
            assert isinstance(got, Seated)
            seated.append(got)
        await asyncio.sleep(0.3)  # a second seat for anyone would have come by now
        for p in people:
            assert sum(isinstance(msg, Seated) for msg in p.history) == 1
        tables: dict[str, list[int]] = {}
        for s in seated:
            tables.setdefault(s.room, []).append(s.seat)
        assert sorted(sorted(seats) for seats in tables.values()) == [[0, 1]] * 4
        assert a.queue.seated + b.queue.seated == 8
        assert a.queue.lost_races + b.queue.lost_races >= 1  # they did race for them
        assert not await a.queue.store.entries("shithead")
        for p in people:
            await p.close()


async def test_arrivals_on_two_processes_take_each_bot_seat_once(
    redis_server: RedisServer,
) -> None:
    # groupings only when the test says; the bots wait a minute before their first move
    async with two_processes(
        redis_server.url, bot_delay=60.0, shithead_table=3, fill_wait=0.2, tick=3600.0
    ) as (a, b):
        ann = await person(a.url, 2)
        await ann.queue("shithead", "Ann")
        await asyncio.sleep(0.3)
        await a.queue.tick()  # Ann and two bots
        first = await ann.take_seat(timeout=10)  # the room is held where Ann plays it
        assert first.room in a.manager.rooms
        # three arrivals at once, one on the room's process and two on the other, for the
        # two bot seats: each seat goes to one of them, and the third waits in the line
        people = [await person(url, n) for url, n in ((a.url, 3), (b.url, 4), (b.url, 5))]
        await asyncio.gather(*(p.queue("shithead", f"P{i}") for i, p in enumerate(people)))
        await asyncio.sleep(0.5)  # a seat given would have been told by now
        seated = [next((x for x in p.history if isinstance(x, Seated)), None) for p in people]
        assert sorted(s.seat for s in seated if s is not None) == [1, 2]
        assert {s.room for s in seated if s is not None} == {first.room}
        assert a.queue.took_bot_seats + b.queue.took_bot_seats == 2
        # someone on the process that does not hold the room took a seat through its owner
        assert b.queue.took_bot_seats >= 1
        waiting = [p for p, s in zip(people, seated, strict=True) if s is None]
        assert [e.name for e in await a.queue.store.entries("shithead")] == [
            f"P{people.index(waiting[0])}"
        ]
        # the people seated play their seats at Ann's table, rated for them
        for p, s in zip(people, seated, strict=True):
            if s is not None:
                assert (await p.take_seat(s, timeout=10)).seat == s.seat
        info = await ann.wait_room(timeout=10)
        while [x.kind for x in info.seats] != ["human"] * 3:
            info = await ann.wait_room(timeout=10)
        core = a.manager.rooms[first.room].core
        assert core.state.rated_seats == [x.device for x in core.state.seats]
        for p in (ann, *people):
            await p.close()


@pytest.mark.slow
async def test_a_seated_lost_with_a_sigkilled_process_is_given_again(
    redis_server: RedisServer,
) -> None:
    port = free_port()
    never = ("--queue-fill-wait", "600", "--queue-shithead-table", "2")
    config = dataclasses.replace(
        queue_config(shithead_table=2, fill_wait=0.3, tick=3600.0), redis_url=redis_server.url
    )
    async with serving(port, redis_server.url, *never) as first, CardroomServer(config) as other:
        ann = await person(f"ws://127.0.0.1:{port}/", 2)
        device = ann.device
        await ann.queue("shithead", "Ann")
        await asyncio.sleep(0.4)  # her entry is heard from, and past the other's fill wait
        first.send_signal(signal.SIGSTOP)  # her process hears nothing more...
        await other.queue.tick()  # ...while the other seats her with a bot and tells it
        assert other.queue.seated == 1
        first.kill()  # SIGKILL: the ``seated`` it was sent dies with it
        await first.wait()
        assert not any(isinstance(msg, Seated) for msg in ann.history)
        await ann.close()
        # Ann comes back through the other process and queues again: the same seat
        again = await CardroomClient.connect(other.url, hello=False, local_addr=("127.0.0.2", 0))
        await again.hello(device=device)
        back = await again.queue("shithead", "Ann")
        assert isinstance(back, Queued)
        seated = await again.wait_for(is_seated, timeout=5)
        assert isinstance(seated, Seated) and seated.seat == 0
        joined = await again.take_seat(seated, timeout=10)
        assert joined.seat == 0
        info = await again.wait_room(timeout=10)
        assert [s.kind for s in info.seats] == ["human", "bot"] and info.seats[0].name == "Ann"
        await again.close()


@pytest.mark.slow
async def test_a_sigkilled_process_loses_nobodys_place(redis_server: RedisServer) -> None:
    first_port, second_port = free_port(), free_port()
    wait = ("--queue-fill-wait", "60", "--queue-shithead-table", "2")
    async with (
        serving(first_port, redis_server.url, *wait) as first,
        serving(second_port, redis_server.url, *wait),
    ):
        ann = await person(f"ws://127.0.0.1:{first_port}/", 2)
        device = ann.device
        await ann.queue("shithead", "Ann")
        queued_at = time.monotonic()
        await asyncio.sleep(1.0)
        first.kill()  # SIGKILL: no goodbye, no cleanup of its entries
        await first.wait()
        await ann.close()
        # Ann comes back through the other process with her identity
        again = await CardroomClient.connect(
            f"ws://127.0.0.1:{second_port}/", hello=False, local_addr=("127.0.0.2", 0)
        )
        await again.hello(device=device)
        deadline = time.monotonic() + 15
        while True:  # the dead process's entry is still "heard" for a few seconds
            try:
                back = await again.queue("shithead", "Ann")
                break
            except CardroomError as exc:
                assert exc.code == "already_queued" and time.monotonic() < deadline
                await asyncio.sleep(0.6)  # each try spends one of the address's joins
        assert isinstance(back, Queued)
        # her place (the time she queued) is kept
        assert back.waited >= time.monotonic() - queued_at - 1.0
        assert back.waited >= 1.0
        # and the line goes on: Bob arrives and sits with her
        bob = await person(f"ws://127.0.0.1:{second_port}/", 3)
        await bob.queue("shithead", "Bob")
        joined = await asyncio.gather(again.take_seat(timeout=10), bob.take_seat(timeout=10))
        assert joined[0].room == joined[1].room
        await again.close()
        await bob.close()
