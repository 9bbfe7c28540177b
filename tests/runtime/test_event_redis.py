"""Events on real ``cardroom serve --redis`` processes: a night whose people and tables are on
two processes of one Redis (each hears of the event's changes through Redis; each table lives
on the process its people's resumes reach) ends with the standings its tables' histories give;
and a process SIGKILLed after the start loses nothing of the event: started again, its page is
the same, and the night is played to its end."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence

import pytest
from redis.asyncio import Redis

from clients import CardroomClient
from protocol import messages as m
from server.store.redis_client import room_key
from server.tools.bench.procs import free_port
from server.tools.bench.redis_server import RedisServer
from tests.support.events import AtTable, check_night, get_at, histories_of, open_night, person
from tests.support.redis_games import serving

pytestmark = pytest.mark.slow

ROUNDS, HANDS = 3, 2
NAMES = [f"Player{i:02}" for i in range(12)]
FLAGS = (
    "--devices-per-address", "1000", "--grace", "60", "--bot-delay", "0",
    "--next-hand-delay", "0.05", "--history-rate", "1000", "--history-burst", "1000",
    "--miss-rate", "1000", "--miss-burst", "1000",
)  # fmt: skip


async def greeted(stack: contextlib.AsyncExitStack, urls: Sequence[str]) -> list[CardroomClient]:
    """One client a name, on the processes of ``urls`` in turn, each given a device identity."""
    clients = []
    for i in range(len(NAMES)):
        c = await stack.enter_async_context(CardroomClient.connect(urls[i % len(urls)]))
        await c.hello()
        assert c.device is not None
        clients.append(c)
    return clients


async def test_a_night_with_people_and_tables_on_two_processes(
    redis_server: RedisServer,
) -> None:
    """Each table is let go by the process that seated its round and lives where its people's
    resumes reach: here a proxy sends table ``t``'s code to process ``t % 2``; every table is
    held (its lease) by the process its people played it on, so one event's tables live on
    both."""
    ports = free_port(), free_port()
    owners: dict[int, set[str]] = {0: set(), 1: set()}  # a process: its tables' lease owners

    def at_table(client: CardroomClient) -> AtTable:
        async def go(frame: m.EventFrame) -> CardroomClient:
            assert frame.you is not None and frame.you.room and frame.you.token
            room = frame.you.room
            [t] = [t.table for t in frame.info.seatings[frame.info.round].tables if t.room == room]
            player = await CardroomClient.connect(urls[t % 2], hello=False)
            await player.hello(device=client.device)
            await player.resume(room, frame.you.token)
            lease = await redis.get(room_key(room, "lease"))
            assert lease is not None  # held while it is played
            owners[t % 2].add(str(lease).split()[0])
            return player

        return go

    redis = Redis.from_url(redis_server.url, decode_responses=True)
    async with (
        serving(ports[0], redis_server.url, *FLAGS),
        serving(ports[1], redis_server.url, *FLAGS),
        contextlib.AsyncExitStack() as stack,
    ):
        urls = [f"ws://127.0.0.1:{p}/ws" for p in ports]
        clients = await greeted(stack, urls)
        code = await open_night(clients, NAMES, ROUNDS, HANDS)
        nights = (person(c, code, at_table(c)) for c in clients)
        infos = await asyncio.wait_for(asyncio.gather(*nights), 240)
        info = infos[0]
        assert all(i == info for i in infos)  # the same end, heard on either process
        # each process held the tables routed to it, and only those: one owner each, two
        assert len(owners[0]) == len(owners[1]) == 1 and owners[0] != owners[1]
        check_night(info, await histories_of(ports[1], info), NAMES, ROUNDS, HANDS)
        status, page = await asyncio.to_thread(get_at, ports[1], f"/api/events/{code}")
        assert status == 200 and m.EventInfo.model_validate(page) == info
    await redis.aclose()


async def test_a_process_killed_after_the_start_loses_nothing(redis_server: RedisServer) -> None:
    port = free_port()
    url = f"ws://127.0.0.1:{port}/ws"
    async with contextlib.AsyncExitStack() as stack:
        first = await stack.enter_async_context(serving(port, redis_server.url, *FLAGS))
        clients = await greeted(stack, [url])
        devices = [c.device for c in clients]
        code = await open_night(clients, NAMES, ROUNDS, HANDS)
        host = clients[0]
        while True:  # until every table of round 1 is open
            got = await host.wait_for(lambda x: isinstance(x, m.EventFrame), timeout=10)
            assert isinstance(got, m.EventFrame)
            if got.info.seatings and all(t.room for t in got.info.seatings[0].tables):
                before = got.info
                break
        first.kill()  # SIGKILL: no shutdown, nothing saved at the end
        await first.wait()
    async with serving(port, redis_server.url, *FLAGS), contextlib.AsyncExitStack() as stack:
        status, page = await asyncio.to_thread(get_at, port, f"/api/events/{code}")
        assert status == 200
        again = m.EventInfo.model_validate(page)
        assert (again.commitment, again.people, again.seatings[0].tables) == (
            before.commitment,
            before.people,
            before.seatings[0].tables,
        )
        clients = []
        for device in devices:  # everyone comes back with their identity
            c = await stack.enter_async_context(CardroomClient.connect(url))
            await c.hello(device=device)
            await c.request(m.EventWatch(id="w", event=code), m.Ack)
            clients.append(c)
        infos = await asyncio.wait_for(asyncio.gather(*(person(c, code) for c in clients)), 240)
        check_night(infos[0], await histories_of(port, infos[0]), NAMES, ROUNDS, HANDS)
