"""The per-address budget component, in memory and in a real Redis: an IPv6 /64 and its /48
spent together or not at all, bounded memory that never forgets a spent budget, and a Redis
outage that falls back to the process's own count."""

from __future__ import annotations

import asyncio

import pytest

from server.store.budgets import Budgets, Daily, LiveCounts, MemoryBudget, Rate, RedisBudget
from server.store.redis_client import connect
from server.tools.bench.redis_server import RedisServer


def rate(max_keys: int = 100, clock: list[float] | None = None) -> MemoryBudget:
    at = clock if clock is not None else [0.0]
    return MemoryBudget(
        "t", Rate(1.0, 2.0), site_multiple=2.0, max_keys=max_keys, clock=lambda: at[0]
    )


async def test_a_site_is_spent_with_its_sixty_fours_and_a_refusal_spends_nothing() -> None:
    budget = rate()
    sixty_fours = [f"2001:db8:7:{i}::/64" for i in range(3)]
    assert [await budget.take(sixty_fours[0]) for _ in range(3)] == [True, True, False]
    assert [await budget.take(sixty_fours[1]) for _ in range(3)] == [True, True, False]
    assert not await budget.take(sixty_fours[2])  # the /48's four are spent
    assert "2001:db8:7:2::/64" not in budget._kept  # refused: nothing written for it
    assert await budget.take("2001:db8:8::/64")  # another site


async def test_rotating_more_addresses_than_are_kept_does_not_reset_a_spent_budget() -> None:
    clock = [0.0]
    budget = rate(max_keys=10_000, clock=clock)
    assert [await budget.take("198.51.100.1") for _ in range(3)] == [True, True, False]
    given = [budget.take_now(f"10.{i >> 16}.{(i >> 8) & 255}.{i & 255}") for i in range(10_001)]
    assert not await budget.take("198.51.100.1")  # still spent
    assert len(budget) == 10_000 and given.count(False) == 2 and budget.full == 2  # fail closed
    clock[0] = 2.0  # every bucket refilled: worth nothing, dropped for newcomers
    assert await budget.take("192.0.2.99") and len(budget) == 10_000
    assert await budget.take("198.51.100.1")


async def test_a_daily_count_is_kept_all_day_and_dropped_the_next() -> None:
    day = [1]
    budget = MemoryBudget("d", Daily(1), max_keys=2, day=lambda: day[0])
    assert await budget.take("192.0.2.1") and await budget.take("192.0.2.2")
    assert not await budget.take("192.0.2.3")  # full of today's counts: refused
    assert not await budget.take("192.0.2.1")
    day[0] = 2
    assert await budget.take("192.0.2.3") and await budget.take("192.0.2.1")


async def test_redis_budgets_are_one_for_every_process(redis_server: RedisServer) -> None:
    one, two = connect(redis_server.url), connect(redis_server.url)
    try:
        a, b = (Budgets(c, site_multiple=2.0).make("api", Rate(1e-6, 2.0)) for c in (one, two))
        taken = [await x.take("2001:db8:7:1::/64") for x in (a, b, a)]
        assert taken == [True, True, False]
        assert [await b.take("2001:db8:7:2::/64") for _ in range(3)] == [True, True, False]
        assert not await a.take("2001:db8:7:3::/64")  # the /48's four
        days = [Budgets(c).make("devices", Daily(2)) for c in (one, two)]
        assert [await days[i % 2].take("192.0.2.1") for i in range(3)] == [True, True, False]
        found = await one.keys("cr:budget:*")
        keys = sorted(k.decode() if isinstance(k, bytes) else k for k in found)
        assert "cr:budget:api:{2001:db8:7::/48}:2001:db8:7::/48" in keys
        assert "cr:budget:api:{2001:db8:7::/48}:2001:db8:7:3::/64" not in keys  # refused
        ttls = [await one.ttl(k) for k in keys]
        assert all(0 < ttl <= 86_400 + 60 for ttl in ttls)  # nothing kept for ever
    finally:
        await one.aclose()
        await two.aclose()


@pytest.mark.slow
async def test_a_redis_outage_counts_in_the_process(redis_server: RedisServer) -> None:
    client = connect(redis_server.url, timeout=0.5)
    try:
        budget = Budgets(client).make("api", Rate(1e-6, 2.0))
        assert isinstance(budget, RedisBudget)
        assert await budget.take("192.0.2.1")
        redis_server.stop()
        assert [await budget.take("192.0.2.1") for _ in range(3)] == [True, True, False]
        assert budget.fallbacks == 3
    finally:
        await client.aclose()


@pytest.mark.slow
async def test_live_counts_are_summed_over_the_other_processes(redis_server: RedisServer) -> None:
    client = connect(redis_server.url, timeout=0.5)
    a, b, c = (LiveCounts(client, "t", stale=0.3) for _ in range(3))
    try:
        a.set("192.0.2.1", 2)
        b.set("192.0.2.1", 1)
        await asyncio.sleep(0.05)  # written in the background
        assert await c.others("192.0.2.1") == 3 and await a.others("192.0.2.1") == 1
        await b.stop()  # a process that stops takes its counts out
        assert await c.others("192.0.2.1") == 2
        await asyncio.sleep(0.4)  # a (never started: no refresh) is as a process that died
        assert await c.others("192.0.2.1") == 0
        redis_server.stop()
        assert await c.others("192.0.2.1") == 0  # Redis away: each process counts its own
    finally:
        await client.aclose()
