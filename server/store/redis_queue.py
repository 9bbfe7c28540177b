"""Play now's waiting line in Redis, shared by every process of the service: the rules of
:mod:`server.store.queue`, each step one Lua script, so it is atomic however many processes
call at once (``take``: a whole table's people leave the line together or none does).

Two keys in one slot (``{queue}``): ``entries``, a hash of each waiting player's entry (JSON),
and ``counts``, a hash of the entries of each game (for the bound on a game's line).
"""

from __future__ import annotations

from typing import Any

import orjson

from server.store.queue import AlreadyQueued, Entry, QueueFull
from server.store.redis_client import PREFIX, RedisClient, unavailable_as_store_error

ENTRIES = f"{PREFIX}:{{queue}}:entries"
COUNTS = f"{PREFIX}:{{queue}}:counts"

# KEYS: entries, counts. ARGV: player, entry, now, stale, most.
_JOIN = """
local new = cjson.decode(ARGV[2])
local now, stale, most = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local old = redis.call('HGET', KEYS[1], ARGV[1])
local function room_for(game)
  return tonumber(redis.call('HGET', KEYS[2], game) or '0') < most
end
if old then
  local e = cjson.decode(old)
  if (e.w == new.w and e.c == new.c) or now - e.s < stale then return {'queued', old} end
  if e.g == new.g then
    new.t = e.t  -- its connection is gone: the place is kept
  else
    if not room_for(new.g) then return {'full', ''} end
    redis.call('HINCRBY', KEYS[2], e.g, -1)
    redis.call('HINCRBY', KEYS[2], new.g, 1)
  end
else
  if not room_for(new.g) then return {'full', ''} end
  redis.call('HINCRBY', KEYS[2], new.g, 1)
end
local text = cjson.encode(new)
redis.call('HSET', KEYS[1], ARGV[1], text)
return {'ok', text}
"""

# KEYS: entries, counts. ARGV: player, owner, conn.
_LEAVE = """
local old = redis.call('HGET', KEYS[1], ARGV[1])
if not old then return 0 end
local e = cjson.decode(old)
if e.w ~= ARGV[2] or tostring(e.c) ~= ARGV[3] then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HINCRBY', KEYS[2], e.g, -1)
return 1
"""

# KEYS: entries, counts. ARGV: game, now, stale, players...
_TAKE = """
local now, stale = tonumber(ARGV[2]), tonumber(ARGV[3])
local found = {}
for i = 4, #ARGV do
  local text = redis.call('HGET', KEYS[1], ARGV[i])
  if not text then return {} end
  local e = cjson.decode(text)
  if e.g ~= ARGV[1] or now - e.s >= stale then return {} end
  found[#found + 1] = text
end
for i = 4, #ARGV do redis.call('HDEL', KEYS[1], ARGV[i]) end
redis.call('HINCRBY', KEYS[2], ARGV[1], 3 - #ARGV)
return found
"""

# KEYS: entries. ARGV: owner, now, then player, conn pairs.
_TOUCH = """
for i = 3, #ARGV, 2 do
  local text = redis.call('HGET', KEYS[1], ARGV[i])
  if text then
    local e = cjson.decode(text)
    if e.w == ARGV[1] and tostring(e.c) == ARGV[i + 1] then
      e.s = tonumber(ARGV[2])
      redis.call('HSET', KEYS[1], ARGV[i], cjson.encode(e))
    end
  end
end
return 0
"""

# KEYS: entries, counts. ARGV: now, keep.
_PURGE = """
local now, keep = tonumber(ARGV[1]), tonumber(ARGV[2])
local all = redis.call('HGETALL', KEYS[1])
local gone = 0
for i = 1, #all, 2 do
  local e = cjson.decode(all[i + 1])
  if now - e.s >= keep then
    redis.call('HDEL', KEYS[1], all[i])
    redis.call('HINCRBY', KEYS[2], e.g, -1)
    gone = gone + 1
  end
end
return gone
"""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class RedisQueue:
    """The queue of every process on one Redis (see :class:`server.store.queue.QueueStore`)."""

    def __init__(self, client: RedisClient) -> None:
        self.redis = client
        self._join = client.register_script(_JOIN)
        self._leave = client.register_script(_LEAVE)
        self._take = client.register_script(_TAKE)
        self._touch = client.register_script(_TOUCH)
        self._purge = client.register_script(_PURGE)

    async def join(self, entry: Entry, *, now: float, stale: float, most: int) -> Entry:
        data = orjson.dumps(entry.to_json()).decode()
        with unavailable_as_store_error():
            status, text = await self._join(
                keys=[ENTRIES, COUNTS], args=[entry.player, data, now, stale, most]
            )
        if _text(status) == "queued":
            raise AlreadyQueued(entry.player)
        if _text(status) == "full":
            raise QueueFull(entry.game)
        return Entry.from_json(orjson.loads(text))

    async def leave(self, player: str, owner: str, conn: int) -> bool:
        with unavailable_as_store_error():
            gone = await self._leave(keys=[ENTRIES, COUNTS], args=[player, owner, conn])
        return bool(gone)

    async def entries(self, game: str) -> list[Entry]:
        with unavailable_as_store_error():
            values = await self.redis.hvals(ENTRIES)
        found = (Entry.from_json(orjson.loads(v)) for v in values)
        return [e for e in found if e.game == game]

    async def take(self, game: str, players: list[str], *, now: float, stale: float) -> list[Entry]:
        with unavailable_as_store_error():
            found = await self._take(keys=[ENTRIES, COUNTS], args=[game, now, stale, *players])
        return [Entry.from_json(orjson.loads(v)) for v in found]

    async def touch(self, held: list[tuple[str, int]], owner: str, now: float) -> None:
        args: list[str | int | float] = [owner, now]
        for player, conn in held:
            args += [player, conn]
        with unavailable_as_store_error():
            await self._touch(keys=[ENTRIES], args=args)

    async def purge(self, now: float, keep: float) -> int:
        with unavailable_as_store_error():
            gone = await self._purge(keys=[ENTRIES, COUNTS], args=[now, keep])
        return int(gone)
