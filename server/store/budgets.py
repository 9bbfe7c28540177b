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

import asyncio
import contextlib
import ipaddress
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
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
        new = 0
        for level, _ in spends:  # out of the way of what makes room for the new ones
            if level in self._kept:
                self._kept.move_to_end(level)
            else:
                new += 1
        if new and not self._room_for(new, now):
            self.full += 1
            return False
        for (level, _), left in zip(spends, after, strict=True):
            self._kept[level] = [left, now]
            self._kept.move_to_end(level)
        return True

    def refund(self, key: str) -> None:
        """Give back one that :meth:`take_now` spent (what it was spent on cost nothing after
        all), at every level, within the budget."""
        now = self.clock() if isinstance(self.limit, Rate) else float(self.day())
        for level, multiple in levels(key, self.site_multiple):
            kept = self._kept.get(level)
            if kept is not None:
                whole = self._left(None, multiple, now)
                kept[:] = [min(whole, self._left(kept, multiple, now) + 1), now]

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
    made: list[MemoryBudget | RedisBudget] = field(default_factory=list)

    def make(self, name: str, limit: Limit) -> AddressBudget:
        memory = MemoryBudget(name, limit, self.site_multiple, self.max_keys)
        budget: MemoryBudget | RedisBudget = memory
        if self.client is not None:
            budget = RedisBudget(self.client, name, limit, self.site_multiple, fallback=memory)
        self.made.append(budget)
        return budget

    def counts(self) -> list[tuple[str, int, int]]:
        """Each budget made: its name, new addresses refused because its memory was full of
        budgets in use, and spends counted in memory while Redis was away."""
        out = []
        for budget in self.made:
            memory = budget if isinstance(budget, MemoryBudget) else budget.fallback
            fell_back = budget.fallbacks if isinstance(budget, RedisBudget) else 0
            out.append((budget.name, memory.full, fell_back))
        return out


#: Seconds a process's live counts stand in Redis without being written again: a process that
#: died stops counting after this (each process writes its counts again every third of it).
LIVE_STALE = 30.0

_LIVE_OTHERS = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local stale = tonumber(ARGV[2])
local kept = redis.call('HGETALL', KEYS[1])
local sum = 0
for i = 1, #kept, 2 do
  local n, at = string.match(kept[i + 1], '^(%d+):(%d+)$')
  if not n or now - tonumber(at) > stale then
    redis.call('HDEL', KEYS[1], kept[i])  -- a process that stopped writing: it counts no more
  elseif kept[i] ~= ARGV[1] then
    sum = sum + tonumber(n)
  end
end
return sum
"""

_LIVE_SET = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i, key in ipairs(KEYS) do
  local n = tonumber(ARGV[2 + i])
  if n > 0 then
    redis.call('HSET', key, ARGV[1], n .. ':' .. now)
    redis.call('PEXPIRE', key, tonumber(ARGV[2]))
  else
    redis.call('HDEL', key, ARGV[1])
  end
end
return 1
"""


class LiveCounts:
    """A live count per address key that several processes share through Redis (the open
    WebSockets of an address): each process writes its own count in a hash per key, stamped
    with Redis's time and written again every third of :data:`LIVE_STALE`, and a check sums
    the other processes' fresh ones. A process that died counts no more after
    :data:`LIVE_STALE`. While Redis is away, the others count as none: each process still
    holds its own clients to the budget (what it did alone)."""

    def __init__(self, client: RedisClient, name: str, stale: float = LIVE_STALE) -> None:
        self.name = name
        self.stale = stale
        self.me = secrets.token_hex(8)
        self._counts: dict[str, int] = {}  # this process's counts, non-zero
        self._dirty: set[str] = set()
        self._writing: asyncio.Task[None] | None = None
        self._refresh: asyncio.Task[None] | None = None
        self._stopped = False
        self._others = client.register_script(_LIVE_OTHERS)
        self._set = client.register_script(_LIVE_SET)

    def key(self, key: str) -> str:
        return global_key(f"live:{self.name}:{{{key}}}")

    async def others(self, key: str) -> int:
        """What the other processes count for ``key`` now (0 while Redis is away)."""
        try:
            with unavailable_as_store_error():
                return int(await self._others(keys=[self.key(key)], args=[self.me, self.ms]))
        except StoreUnavailable:
            return 0

    @property
    def ms(self) -> int:
        return int(self.stale * 1000)

    def set(self, key: str, count: int) -> None:
        """This process counts ``count`` for ``key`` now (written soon, in the background)."""
        if self._stopped:
            return
        if count > 0:
            self._counts[key] = count
        else:
            self._counts.pop(key, None)
        self._dirty.add(key)
        if self._writing is None:
            self._writing = asyncio.get_running_loop().create_task(self._write())

    async def _write(self) -> None:
        try:
            while self._dirty:
                keys, self._dirty = sorted(self._dirty), set()
                await self._put(keys)
        finally:
            self._writing = None

    async def _put(self, keys: list[str]) -> None:
        # one call per key: on a Redis Cluster each key may be in a slot of its own
        for key in keys:
            count = self._counts.get(key, 0)
            try:
                with unavailable_as_store_error():
                    await self._set(keys=[self.key(key)], args=[self.me, self.ms, count])
            except StoreUnavailable:
                return  # written again by the refresh once Redis is back

    def start(self) -> None:
        self._refresh = asyncio.get_running_loop().create_task(self._refreshing())

    async def _refreshing(self) -> None:
        while True:
            await asyncio.sleep(self.stale / 3)
            await self._put(sorted(self._counts))

    async def stop(self) -> None:
        """Stop counting here: every count of this process is taken out of Redis."""
        self._stopped = True
        for task in (self._refresh, self._writing):  # nothing of it runs past the store's close
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        gone, self._counts = sorted(self._counts), {}
        await self._put(gone)
