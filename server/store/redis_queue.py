"""Play now's waiting line in Redis, shared by every process of the service: the rules of
:mod:`server.store.queue`, each step one Lua script, so it is atomic however many processes
call at once (``take``: a whole table's people leave the line together or none does).

Four keys in one slot (``{queue}``): ``entries``, a hash of each waiting player's entry
(JSON), ``counts``, a hash of the entries of each game (for the bound on a game's line),
``tables``, a hash of the tables open to arrivals (by room code), and ``seated``, a hash of
the seats given and not resumed yet (by player).
"""

from __future__ import annotations

from typing import Any

import orjson

from server.store.queue import AlreadyQueued, Assignment, Entry, OpenTable, QueueFull
from server.store.redis_client import PREFIX, RedisClient, unavailable_as_store_error

ENTRIES = f"{PREFIX}:{{queue}}:entries"
COUNTS = f"{PREFIX}:{{queue}}:counts"
TABLES = f"{PREFIX}:{{queue}}:tables"
SEATED = f"{PREFIX}:{{queue}}:seated"

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

# KEYS: entries, counts, tables, seated. ARGV: now, keep.
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
for k = 3, 4 do
  all = redis.call('HGETALL', KEYS[k])
  for i = 1, #all, 2 do
    if now >= cjson.decode(all[i + 1]).u then redis.call('HDEL', KEYS[k], all[i]) end
  end
end
return gone
"""

# KEYS: entries, counts, tables. ARGV: player, owner, conn, now.
# The entry leaves the line and a bot seat goes to it in one step: of two arrivals for one
# seat (on any processes) one gets it, and a player is never both grouped and given a seat.
_TAKE_SEAT = """
local text = redis.call('HGET', KEYS[1], ARGV[1])
if not text then return false end
local e = cjson.decode(text)
if e.w ~= ARGV[2] or tostring(e.c) ~= ARGV[3] then return false end
local now = tonumber(ARGV[4])
local origin = e.o
if origin == cjson.null then origin = nil end
local all = redis.call('HGETALL', KEYS[3])
for i = 1, #all, 2 do
  local t = cjson.decode(all[i + 1])
  if now >= t.u or #t.s == 0 then
    redis.call('HDEL', KEYS[3], all[i])
  elseif t.g == e.g then
    local clash = false
    if origin then
      for _, o in ipairs(t.o) do
        if o == origin then clash = true end
      end
    end
    if not clash then
      local seat = table.remove(t.s, 1)
      if origin then t.o[#t.o + 1] = origin end
      if #t.s == 0 then
        redis.call('HDEL', KEYS[3], all[i])
      else
        redis.call('HSET', KEYS[3], all[i], cjson.encode(t))
      end
      redis.call('HDEL', KEYS[1], ARGV[1])
      redis.call('HINCRBY', KEYS[2], e.g, -1)
      return {all[i], seat}
    end
  end
end
return false
"""

# KEYS: seated. ARGV: player, room.
_CONFIRM = """
local text = redis.call('HGET', KEYS[1], ARGV[1])
if text and cjson.decode(text).r == ARGV[2] then redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
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
        self._take_seat = client.register_script(_TAKE_SEAT)
        self._confirm = client.register_script(_CONFIRM)

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
            gone = await self._purge(keys=[ENTRIES, COUNTS, TABLES, SEATED], args=[now, keep])
        return int(gone)

    async def offer(self, table: OpenTable) -> None:
        with unavailable_as_store_error():
            await self.redis.hset(TABLES, table.room, orjson.dumps(table.to_json()).decode())

    async def take_seat(
        self, player: str, owner: str, conn: int, now: float
    ) -> tuple[str, int] | None:
        with unavailable_as_store_error():
            got = await self._take_seat(
                keys=[ENTRIES, COUNTS, TABLES], args=[player, owner, conn, now]
            )
        if not got:
            return None
        room, seat = got
        return _text(room), int(seat)

    async def tables(self) -> list[OpenTable]:
        """Every table open to arrivals (for tests and the operator)."""
        with unavailable_as_store_error():
            values = await self.redis.hvals(TABLES)
        return [OpenTable.from_json(orjson.loads(v)) for v in values]

    async def assign(self, player: str, assignment: Assignment) -> None:
        with unavailable_as_store_error():
            await self.redis.hset(SEATED, player, orjson.dumps(assignment.to_json()).decode())

    async def assigned(self, player: str, now: float) -> Assignment | None:
        with unavailable_as_store_error():
            text = await self.redis.hget(SEATED, player)
        if text is None:
            return None
        found = Assignment.from_json(orjson.loads(text))
        return found if now < found.until else None

    async def confirm(self, player: str, room: str) -> None:
        with unavailable_as_store_error():
            await self._confirm(keys=[SEATED], args=[player, room])
