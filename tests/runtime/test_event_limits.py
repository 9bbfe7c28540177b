"""The budgets of events on a public server (docs/running.md): events one address creates a
minute, events open at once in a process, and an event's size; each refusal is a typed error
and opens nothing."""

from __future__ import annotations

import contextlib
import dataclasses

from clients import CardroomClient, CardroomError
from protocol import messages as m
from server.net.server import CardroomServer
from server.rooms.event_settings import EventLimits
from server.store.memory import MemoryStore
from tests.support.server import device_for, make_config


def create(i: int, **kw: object) -> m.EventCreate:
    fields: dict[str, object] = {"game": "sheepshead", "table_size": 5, "rounds": 2, "hands": 1}
    fields.update(kw)
    return m.EventCreate.model_validate({"id": f"c{i}", "name": f"Host{i}", **fields})


async def refused(client: CardroomClient, msg: m.EventCreate | m.EventJoin | m.EventWatch) -> str:
    try:
        await client.request(msg, m.Ack)
    except CardroomError as exc:
        return exc.code
    raise AssertionError("not refused")


async def test_one_address_opens_events_within_its_budget() -> None:
    limits = EventLimits(events_per_minute=0.001, events_burst=3)
    config = dataclasses.replace(make_config(), events=limits)
    async with CardroomServer(config, store=MemoryStore()) as srv:
        url = f"ws://127.0.0.1:{srv.port}/ws"
        async with CardroomClient.connect(url) as c:
            await c.hello(device=device_for(srv, "ann"))
            for i in range(3):
                await c.request(create(i), m.Ack)
            assert await refused(c, create(9)) == "too_many_events"
            # another connection of the same address shares the budget
            async with CardroomClient.connect(url) as d:
                await d.hello(device=device_for(srv, "bob"))
                assert await refused(d, create(10)) == "too_many_events"
        assert len(srv.events.opened) == 3
        assert len(await srv.stores.events.open_codes()) == 3


async def test_a_process_holds_so_many_open_events_and_one_over_frees_a_place() -> None:
    limits = EventLimits(events_per_minute=1e6, events_burst=1e6, max_events=2)
    config = dataclasses.replace(make_config(), events=limits)
    async with CardroomServer(config, store=MemoryStore()) as srv:
        url = f"ws://127.0.0.1:{srv.port}/ws"
        async with contextlib.AsyncExitStack() as stack:
            people = [await stack.enter_async_context(CardroomClient.connect(url)) for _ in "ab"]
            for i, c in enumerate(people):
                await c.hello(device=device_for(srv, f"p{i}"))
            ann = people[0]
            await ann.request(create(0), m.Ack)
            frame = await ann.wait_for(lambda x: isinstance(x, m.EventFrame), timeout=5)
            assert isinstance(frame, m.EventFrame)
            code = frame.info.code
            await ann.request(create(1), m.Ack)
            assert await refused(ann, create(2)) == "too_many_events"
            # the first is ended: its place is free again
            await people[1].request(m.EventJoin(id="j", event=code, name="Bob"), m.Ack)
            await ann.request(m.EventHost(id="s", event=code, op="start"), m.Ack)
            await ann.request(m.EventHost(id="e", event=code, op="end"), m.Ack)
            await ann.request(create(3), m.Ack)


async def test_an_event_takes_no_more_people_than_its_tables() -> None:
    limits = EventLimits(max_tables=1)
    config = dataclasses.replace(make_config(), events=limits)
    async with CardroomServer(config, store=MemoryStore()) as srv:
        url = f"ws://127.0.0.1:{srv.port}/ws"
        async with contextlib.AsyncExitStack() as stack:
            people = [
                await stack.enter_async_context(CardroomClient.connect(url)) for _ in "abcdef"
            ]
            for i, c in enumerate(people):
                await c.hello(device=device_for(srv, f"p{i}"))
            await people[0].request(create(0), m.Ack)
            frame = await people[0].wait_for(lambda x: isinstance(x, m.EventFrame), timeout=5)
            assert isinstance(frame, m.EventFrame)
            code = frame.info.code
            for i in range(1, 5):
                await people[i].request(m.EventJoin(id="j", event=code, name=f"P{i}"), m.Ack)
            join = m.EventJoin(id="j", event=code, name="P5")
            assert await refused(people[5], join) == "event_full"  # one table of five
            # rounds, hands and tables out of bounds: bad_event, nothing stored
            for bad in (create(7, rounds=11), create(8, hands=0), create(9, table_size=6)):
                assert await refused(people[0], bad) == "bad_event"
            assert len(await srv.stores.events.open_codes()) == 1


async def test_guessing_event_codes_spends_the_misses_budget() -> None:
    config = dataclasses.replace(make_config(), miss_rate=0.001, miss_burst=3, miss_floor=0.0)
    async with CardroomServer(config, store=MemoryStore()) as srv:
        url = f"ws://127.0.0.1:{srv.port}/ws"
        async with CardroomClient.connect(url) as c:
            await c.hello(device=device_for(srv, "ann"))
            await c.request(create(0), m.Ack)  # creating takes none
            frame = await c.wait_for(lambda x: isinstance(x, m.EventFrame), timeout=5)
            assert isinstance(frame, m.EventFrame)
            code = frame.info.code
            for i in range(3):
                guess = m.EventWatch(id=f"g{i}", event=f"ZZZZ{i}")
                assert await refused(c, guess) == "event_not_found"
            guess = m.EventWatch(id="g9", event="ZZZZ9")
            assert await refused(c, guess) == "too_many_misses"
            # the event it follows is its own: its requests go on
            await c.request(m.EventWatch(id="w", event=code), m.Ack)
