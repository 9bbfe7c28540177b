"""Per-address budgets, one piece of code for all of them: a token bucket (:class:`Rate`) or a
count a UTC day (:class:`Daily`) per client address key, kept in this process's memory or, for a
service of several processes, in Redis, so that an address spends one budget however many
processes it reaches (behind nginx, two processes once gave it twice every budget).

**Two levels for IPv6.** An IPv6 client is counted by its /64 (its budget key, see
:mod:`server.net.address`) *and* by the /48 that holds it, whose budget is ``site_multiple``
times a /64's: a subscriber holds a /56 or a /48 (256 or 65,536 /64s), and by its /64 alone
it had that many times every budget. A spend takes from both levels or from neither.

**Memory never forgets a spent budget.** At most ``max_keys`` keys are kept. Only what is worth
nothing is dropped (a bucket refilled, a count of a past day), least recently used first; when
everything kept is still in use, a new key is refused (fail closed) rather than an old key
forgotten, so rotating through many addresses cannot reset one address's spent budget. With
Redis, keys expire by themselves once worth nothing (a bucket when full again, at most a day
later; a count after its day), and a refused spend writes nothing.

**A Redis outage** falls back to the process's own memory budget (what every process had
before the budgets were shared): neither everyone refused while Redis is away nor the budget
lifted; an address may get one budget a process for as long as the outage lasts.

>>> import asyncio
>>> clock = [0.0]
>>> api = MemoryBudget("api", Rate(per_second=1.0, burst=2.0), clock=lambda: clock[0])
>>> [asyncio.run(api.take("192.0.2.1")) for _ in range(3)]
[True, True, False]
>>> clock[0] = 1.0
>>> asyncio.run(api.take("192.0.2.1")), asyncio.run(api.take("192.0.2.2"))
(True, True)
>>> levels("2001:db8:7:1::/64", 8.0)
[('2001:db8:7:1::/64', 1.0), ('2001:db8:7::/48', 8.0)]
"""

from __future__ import annotations

import ipaddress
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from server.store.base import StoreUnavailable
from server.store.redis_client import RedisClient, global_key, unavailable_as_store_error

log = logging.getLogger(__name__)

#: An IPv6 /48 (a site: the most one subscriber is given) gets this many times a /64's budget.
SITE_MULTIPLE = 8.0
SITE_PREFIX = 48
#: Keys one memory budget keeps at most (each a few hundred bytes).
MAX_KEYS = 100_000
#: Seconds a Redis bucket is kept at most after its last spend (a bucket that takes longer to
#: refill is dropped full a little early: a budget of more than a day is not one of these).
MAX_TTL = 86_400
DAY = 86_400


@dataclass(frozen=True, slots=True)
class Rate:
    """A token bucket: ``per_second`` on average, ``burst`` at once."""

    per_second: float
    burst: float


@dataclass(frozen=True, slots=True)
class Daily:
    """At most ``cap`` a UTC day."""

    cap: int


Limit = Rate | Daily


def levels(key: str, site_multiple: float = SITE_MULTIPLE) -> list[tuple[str, float]]:
    """The keys a spend of ``key`` counts against, each with its multiple of the budget: an
    IPv6 /64 and its /48; anything else (IPv4, ``?``) itself.

    >>> levels("192.0.2.1")
    [('192.0.2.1', 1.0)]
    """
    if key.endswith("/64") and ":" in key:
        try:
            net = ipaddress.IPv6Network(key)
        except ValueError:
            return [(key, 1.0)]
        return [(key, 1.0), (str(net.supernet(new_prefix=SITE_PREFIX)), site_multiple)]
    return [(key, 1.0)]


class AddressBudget(Protocol):
    """One budget per client address key (``take``: spend one, ``False`` when over it)."""

    name: str
    limit: Limit

    async def take(self, key: str) -> bool: ...


class MemoryBudget:
    """An :class:`AddressBudget` in this process's memory (see the module)."""

    def __init__(
        self,
        name: str,
        limit: Limit,
        site_multiple: float = SITE_MULTIPLE,
        max_keys: int = MAX_KEYS,
        clock: Callable[[], float] = time.monotonic,
        day: Callable[[], int] = lambda: int(time.time() // DAY),
    ) -> None:
        self.name = name
        self.limit = limit
        self.site_multiple = site_multiple
        self.max_keys = max_keys
        self.clock = clock
        self.day = day
        self.full = 0  # new keys refused because every key kept was still in use
        # key -> [what is left to spend, when (a monotonic time, or a day)], least recently
        # used first
        self._kept: OrderedDict[str, list[float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._kept)

    async def take(self, key: str) -> bool:
        return self.take_now(key)

    def take_now(self, key: str) -> bool:
        """:meth:`take` without awaiting anything."""
        now = self.clock() if isinstance(self.limit, Rate) else float(self.day())
        spends = levels(key, self.site_multiple)
        after = []
        for level, multiple in spends:
            left = self._left(self._kept.get(level), multiple, now)
            if left < 1:
                return False
            after.append(left - 1)
        new = sum(level not in self._kept for level, _ in spends)
        if new and not self._room_for(new, now):
            self.full += 1
            return False
        for (level, _), left in zip(spends, after, strict=True):
            self._kept[level] = [left, now]
            self._kept.move_to_end(level)
        return True

    def _left(self, kept: list[float] | None, multiple: float, now: float) -> float:
        """What ``kept`` has left to spend at ``now`` (a new key: the whole budget)."""
        limit = self.limit
        if isinstance(limit, Rate):
            burst = limit.burst * multiple
            if kept is None:
                return burst
            return min(burst, kept[0] + max(0.0, now - kept[1]) * limit.per_second * multiple)
        if kept is None or kept[1] != now:  # what was left of a past day is of no matter
            return limit.cap * multiple
        return kept[0]

    def _room_for(self, new: int, now: float) -> bool:
        """Make room for ``new`` keys by dropping what is worth nothing, least recently used
        first; ``False`` if that is not enough (nothing in use is dropped)."""
        kept = self._kept
        while len(kept) + new > self.max_keys and kept:
            level, value = next(iter(kept.items()))
            multiple = self.site_multiple if level.endswith(f"/{SITE_PREFIX}") else 1.0
            if not self._worthless(value, multiple, now):
                return False
            del kept[level]
        return len(kept) + new <= self.max_keys

    def _worthless(self, value: list[float], multiple: float, now: float) -> bool:
        limit = self.limit
        if isinstance(limit, Rate):
            return self._left(value, multiple, now) >= limit.burst * multiple
        return value[1] != now


_RATE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local rate, burst, max_ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local left = {}
for i, key in ipairs(KEYS) do
  local m = tonumber(ARGV[3 + i])
  local kept = redis.call('HMGET', key, 't', 's')
  local tokens = burst * m
  if kept[1] then
    tokens = math.min(tokens, tonumber(kept[1]) + math.max(0, now - tonumber(kept[2])) * rate * m)
  end
  if tokens < 1 then return 0 end
  left[i] = tokens - 1
end
for i, key in ipairs(KEYS) do
  local m = tonumber(ARGV[3 + i])
  redis.call('HSET', key, 't', tostring(left[i]), 's', tostring(now))
  -- kept until it is full again: then it is worth nothing
  local ttl = max_ttl
  if rate > 0 then ttl = math.min(max_ttl, (burst * m - left[i]) / (rate * m)) end
  redis.call('PEXPIRE', key, math.ceil(ttl * 1000) + 1000)
end
return 1
"""

_DAILY = """
local t = redis.call('TIME')
local day = math.floor(tonumber(t[1]) / 86400)
local cap = tonumber(ARGV[1])
local counts = {}
for i, key in ipairs(KEYS) do
  local kept = redis.call('HMGET', key, 'd', 'n')
  local n = 0
  if kept[1] and tonumber(kept[1]) == day then n = tonumber(kept[2]) end
  if n >= cap * tonumber(ARGV[1 + i]) then return 0 end
  counts[i] = n
end
for i, key in ipairs(KEYS) do
  redis.call('HSET', key, 'd', day, 'n', counts[i] + 1)
  redis.call('EXPIREAT', key, (day + 1) * 86400 + 60)
end
return 1
"""


class RedisBudget:
    """An :class:`AddressBudget` in Redis, shared by every process of the service: one
    atomic script checks every level and spends from all or none, on Redis's clock. While
    Redis is away, the process's own ``fallback`` counts (see the module)."""

    def __init__(
        self,
        client: RedisClient,
        name: str,
        limit: Limit,
        site_multiple: float = SITE_MULTIPLE,
        fallback: MemoryBudget | None = None,
    ) -> None:
        self.name = name
        self.limit = limit
        self.site_multiple = site_multiple
        self.fallback = fallback or MemoryBudget(name, limit, site_multiple)
        self.fallbacks = 0  # spends counted in memory because Redis was away
        self._script = client.register_script(_RATE if isinstance(limit, Rate) else _DAILY)

    def key(self, level: str, site: str) -> str:
        """The Redis key of one level of an address; the widest level in braces, so that
        every level of one address is in one slot of a Redis Cluster."""
        return global_key(f"budget:{self.name}:{{{site}}}:{level}")

    async def take(self, key: str) -> bool:
        spends = levels(key, self.site_multiple)
        site = spends[-1][0]
        keys = [self.key(level, site) for level, _ in spends]
        multiples = [m for _, m in spends]
        limit = self.limit
        if isinstance(limit, Rate):
            args: list[float] = [limit.per_second, limit.burst, MAX_TTL, *multiples]
        else:
            args = [limit.cap, *multiples]
        try:
            with unavailable_as_store_error():
                return bool(await self._script(keys=keys, args=args))
        except StoreUnavailable as exc:
            if not self.fallbacks:
                log.warning("budget %s counted per process while Redis is away: %s", self.name, exc)
            self.fallbacks += 1
            return self.fallback.take_now(key)


@dataclass(frozen=True, slots=True)
class Budgets:
    """Makes the budgets of one service: in Redis when it has one (``client``), else in this
    process's memory; IPv6 sites get ``site_multiple`` times a /64's budget."""

    client: RedisClient | None = None
    site_multiple: float = SITE_MULTIPLE
    max_keys: int = MAX_KEYS

    def make(self, name: str, limit: Limit) -> AddressBudget:
        memory = MemoryBudget(name, limit, self.site_multiple, self.max_keys)
        if self.client is None:
            return memory
        return RedisBudget(self.client, name, limit, self.site_multiple, fallback=memory)
