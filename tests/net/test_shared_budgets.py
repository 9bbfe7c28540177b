"""Per-address budgets over real sockets: shared by the processes of one Redis (an address
spends one budget, not one a process), an IPv6 site (/48) held to a multiple of one /64's
budget, and a spent budget that rotating through many other addresses does not reset."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from clients import CardroomClient, CardroomError
from server.net.server import CardroomServer, ServerConfig
from server.tools.bench.redis_server import RedisServer
from tests.support.http import get, metric, metrics
from tests.support.server import make_config


def budgets(**kw: Any) -> ServerConfig:
    """Tight budgets that do not refill during a test."""
    rooms = {"rooms_per_minute": 1e-6, "rooms_burst": 2.0}
    config = make_config(**rooms)
    base = {"history_rate": 1e-6, "history_burst": 3.0, "devices_per_address": 3}
    return dataclasses.replace(config, **{**base, **kw})


@pytest.fixture
async def pair(redis_server: RedisServer) -> AsyncIterator[tuple[CardroomServer, CardroomServer]]:
    """Two processes of one service: one Redis."""
    config = budgets(redis_url=redis_server.url, place_rooms=False)
    async with AsyncExitStack() as stack:
        one = await stack.enter_async_context(CardroomServer(config))
        two = await stack.enter_async_context(CardroomServer(config))
        yield one, two


async def device(server: CardroomServer, **ws: Any) -> str | None:
    async with CardroomClient.connect(server.url, hello=False, **ws) as c:
        return (await c.hello()).device


async def created(server: CardroomServer, **ws: Any) -> bool:
    async with CardroomClient.connect(server.url, **ws) as c:
        try:
            await c.create("shithead", seats=2, name="Ann")
        except CardroomError as refused:
            assert refused.code == "too_many_rooms"
            return False
        return True


@pytest.mark.slow
async def test_two_processes_issue_one_addresses_identities_once(
    pair: tuple[CardroomServer, CardroomServer],
) -> None:
    one, two = pair
    given = [await device(server) for server in (one, two) * 3]
    assert sum(d is not None for d in given) == 3  # the address's day's three, not 3 a process


@pytest.mark.slow
async def test_two_processes_share_one_addresses_room_rate(
    pair: tuple[CardroomServer, CardroomServer],
) -> None:
    one, two = pair
    made = [await created(server) for server in (one, two, one, two)]
    assert made == [True, True, False, False]  # a burst of two for the address, not two each


@pytest.mark.slow
async def test_two_processes_share_one_addresses_api_burst(
    pair: tuple[CardroomServer, CardroomServer],
) -> None:
    one, two = pair
    answers = [(await get(server, "/api/daily"))[0] for server in (one, two) * 3]
    assert answers == [200, 200, 200, 429, 429, 429]


@pytest.fixture
async def proxied() -> AsyncIterator[CardroomServer]:
    """A server behind a proxy on 127.0.0.1 that forwards what clients say is their address."""
    config = budgets(trusted_proxies=("127.0.0.1/32",), history_burst=2.0, devices_per_address=1)
    async with CardroomServer(config) as server:
        yield server


def sixty_fours(n: int) -> list[str]:
    """``n`` addresses of one /48, each of its own /64: what one subscriber may use."""
    return [f"2001:db8:7:{i:x}::1" for i in range(n)]


async def test_an_ipv6_site_cannot_multiply_its_api_budget(proxied: CardroomServer) -> None:
    ok = 0
    for ip in sixty_fours(40):
        status, _, _ = await get(proxied, "/api/daily", headers={"X-Forwarded-For": ip})
        ok += status == 200
    multiple = proxied.config.ipv6_site_multiple
    assert ok == 2 * multiple  # the /48's share: a multiple of one /64's burst of two
    # another site is its own
    other = await get(proxied, "/api/daily", headers={"X-Forwarded-For": "2001:db8:8::1"})
    assert other[0] == 200


async def test_an_ipv6_site_cannot_multiply_its_identities(proxied: CardroomServer) -> None:
    given = [
        await device(proxied, additional_headers=[("X-Forwarded-For", ip)])
        for ip in sixty_fours(20)
    ]
    assert sum(d is not None for d in given) == proxied.config.ipv6_site_multiple


async def test_an_ipv6_site_cannot_multiply_its_rooms(proxied: CardroomServer) -> None:
    made = [
        await created(proxied, additional_headers=[("X-Forwarded-For", ip)])
        for ip in sixty_fours(20)
    ]
    assert sum(made) == 2 * proxied.config.ipv6_site_multiple


async def test_rotating_addresses_does_not_reset_a_spent_api_budget() -> None:
    config = budgets(trusted_proxies=("127.0.0.1/32",), history_burst=2.0, budget_addresses=50)
    async with CardroomServer(config) as server:

        def ask(ip: str) -> Any:
            return get(server, "/api/daily", headers={"X-Forwarded-For": ip})

        assert [(await ask("198.51.100.1"))[0] for _ in range(3)] == [200, 200, 429]
        for i in range(config.budget_addresses + 1):  # more addresses than are remembered
            await ask(f"10.1.{i >> 8}.{i & 255}")
        assert (await ask("198.51.100.1"))[0] == 429  # still spent
        # the newcomers past the memory's bound were refused (fail closed), and counted
        text = await metrics(server)
        assert metric(text, 'cardroom_budget_full_total{budget="api"}') == 2
        assert metric(text, 'cardroom_budget_fallbacks_total{budget="api"}') == 0


async def test_rotating_addresses_does_not_reset_a_spent_identity_budget() -> None:
    config = budgets(trusted_proxies=("127.0.0.1/32",), devices_per_address=1, budget_addresses=20)
    async with CardroomServer(config) as server:

        async def hello(ip: str) -> str | None:
            return await device(server, additional_headers=[("X-Forwarded-For", ip)])

        assert await hello("198.51.100.1") is not None
        assert await hello("198.51.100.1") is None
        for i in range(config.budget_addresses + 1):
            await hello(f"10.1.{i >> 8}.{i & 255}")
        assert await hello("198.51.100.1") is None  # still spent for the day


async def test_an_ipv6_site_cannot_multiply_its_sockets() -> None:
    config = budgets(trusted_proxies=("127.0.0.1/32",), max_per_address=2)
    async with CardroomServer(config) as server:
        held, refused = [], 0
        for ip in sixty_fours(20):
            try:
                held.append(await connect(server.url, additional_headers=[("X-Forwarded-For", ip)]))
            except InvalidStatus as exc:
                assert exc.response.status_code == 503
                refused += 1
        assert len(held) == 2 * config.ipv6_site_multiple and refused == 20 - len(held)
        for ws in held:
            await ws.close()


@pytest.mark.slow
async def test_two_processes_share_one_addresses_sockets(redis_server: RedisServer) -> None:
    config = budgets(redis_url=redis_server.url, place_rooms=False, max_per_address=3)
    async with CardroomServer(config) as one, CardroomServer(config) as two:
        held = [await connect(one.url), await connect(one.url), await connect(two.url)]
        await asyncio.sleep(0.1)  # each process writes its count in the background
        with pytest.raises(InvalidStatus) as refused:
            await connect(two.url)  # the address's fourth, though two holds one
        assert refused.value.response.status_code == 503
        await held.pop().close()
        await held.pop().close()
        await asyncio.sleep(0.1)
        held += [await connect(two.url), await connect(two.url)]  # its places are free again
        for ws in held:
            await ws.close()
