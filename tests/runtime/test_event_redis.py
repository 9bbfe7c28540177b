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


async def test_the_host_replaces_and_ends_at_a_table_another_process_holds(
    redis_server: RedisServer,
) -> None:
    """The host's command reaches a table held by the other process: the replaced player's
    stand-in plays at once (not after the minute's grace), and the event's end closes it."""
    ports = free_port(), free_port()
    redis = Redis.from_url(redis_server.url, decode_responses=True)
    async with (
        serving(ports[0], redis_server.url, *FLAGS),
        serving(ports[1], redis_server.url, *FLAGS),
        contextlib.AsyncExitStack() as stack,
    ):
        urls = [f"ws://127.0.0.1:{p}/ws" for p in ports]
        clients = await greeted(stack, urls[:1])  # everyone on process 0, where it starts
        code = await open_night(clients, NAMES, 1, HANDS)
        tables: dict[str, list[tuple[CardroomClient, str]]] = {}  # a room: its people
        for c in clients:
            got = await c.wait_for(
                lambda x: isinstance(x, m.EventFrame) and x.you is not None and bool(x.you.room),
                timeout=10,
            )
            assert isinstance(got, m.EventFrame) and got.you and got.you.room and got.you.token
            tables.setdefault(got.you.room, []).append((c, got.you.token))
        # a table process 0 let go for process 1 has no lease yet: held there once resumed;
        # else every table is process 0's, and the host speaks from process 1
        free = [r for r in tables if await redis.get(room_key(r, "lease")) is None]
        room = free[0] if free else next(iter(tables))
        table_at, host_at = (1, 0) if free else (0, 1)
        players = []
        for c, token in tables[room]:  # its people sit down and never act
            p = await stack.enter_async_context(CardroomClient.connect(urls[table_at], hello=False))
            await p.hello(device=c.device)
            await p.resume(room, token)
            players.append(p)
        watcher = players[0]

        def stalled(x: object) -> bool:  # a person's turn: the bots have played up to it
            info = watcher.room_info
            return (
                isinstance(x, m.State)
                and info is not None
                and any(info.seats[s].kind == "human" for s in x.view.get("to_act", []))
            )

        state = await watcher.wait_for(stalled, timeout=10)
        assert isinstance(state, m.State) and watcher.room_info is not None
        seat = next(s for s in state.view["to_act"] if watcher.room_info.seats[s].kind == "human")
        name = watcher.room_info.seats[seat].name
        assert name is not None
        host = await stack.enter_async_context(CardroomClient.connect(urls[host_at], hello=False))
        await host.hello(device=clients[0].device)
        await host.request(m.EventHost(id="r", event=code, op="replace", target=name), m.Ack)
        await watcher.wait_for(  # at once: the grace is 60 s
            lambda x: isinstance(x, m.Room) and x.room.seats[seat].playing_for is not None,
            timeout=10,
        )
        await host.request(m.EventHost(id="e", event=code, op="end"), m.Ack)
        closed = await watcher.wait_for(lambda x: isinstance(x, m.Closing), timeout=10)
        assert isinstance(closed, m.Closing) and "event" in closed.reason
    await redis.aclose()
