"""The Lua scripts that make each Redis write one atomic, checked step.

Every room script takes the same keys, ``[room, log, fence, hist, lease, index]``
(see :func:`server.store.redis_client.room_key`; on a Redis Cluster without ``index``, so that
every key is in the room's slot: :mod:`server.store.redis_cluster`), and answers
``{status, number}``: ``ok``, ``taken`` (create: the code is in use), ``gone`` (no such room),
``fenced`` (the number is the room's fence now) or ``conflict`` (the number is the stored
version).

A room's keys: ``room`` is a hash with the record (``rec``) and the version (``v``); ``log`` the
list of action entries; ``fence`` the fencing token of the room's owner (absent: no lease was
ever taken, fence 0); ``hist`` a hash of finished games by index; ``lease`` who owns the room
now. ``index`` is one sorted set of every room code scored by when it expires, for listing.
Scripts read the clock with ``TIME`` so every process agrees on expiry times.
"""

from __future__ import annotations

_PRELUDE = """
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function fence_now()
  return tonumber(redis.call('GET', KEYS[3]) or '0')
end
-- every write keeps the room's keys alive for another ttl milliseconds (and its entry in the
-- room index: on one Redis only, where the index is KEYS[6]; a cluster lists rooms by SCAN)
local function touch(ttl, code)
  for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ttl) end
  if KEYS[6] then redis.call('ZADD', KEYS[6], now_ms() + ttl, code) end
end
-- nil when the room exists and the writer's fence is current, else the refusal
local function refuse(fence)
  if redis.call('EXISTS', KEYS[1]) == 0 then return {'gone', 0} end
  local current = fence_now()
  if tonumber(fence) ~= current then return {'fenced', current} end
  return nil
end
"""

# ARGV: fence, version, record, ttl, code
CREATE = (
    _PRELUDE
    + """
if redis.call('EXISTS', KEYS[1]) == 1 then
  -- the same record by the same writer: a retry of this create whose reply was lost
  if redis.call('HGET', KEYS[1], 'rec') == ARGV[3] and fence_now() == tonumber(ARGV[1])
      and redis.call('LLEN', KEYS[2]) == 0 then
    return {'ok', tonumber(ARGV[2])}
  end
  return {'taken', 0}
end
-- a code used again: nothing of an earlier room with it survives
redis.call('DEL', KEYS[2], KEYS[4])
if tonumber(ARGV[1]) > 0 then
  redis.call('SET', KEYS[3], ARGV[1])
else
  redis.call('DEL', KEYS[3], KEYS[5])
end
redis.call('HSET', KEYS[1], 'rec', ARGV[3], 'v', ARGV[2])
touch(tonumber(ARGV[4]), ARGV[5])
-- the index keeps no code of an expired room for long: a service that never lists its rooms
-- (every process on Redis) would otherwise grow it by every room ever opened; creates are
-- budgeted, so this bounds it by the rooms alive plus those expired since the last create
if KEYS[6] then redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now_ms()) end
return {'ok', tonumber(ARGV[2])}
"""
)

# ARGV: fence, version, record, ttl, code
SAVE = (
    _PRELUDE
    + """
local no = refuse(ARGV[1])
if no then return no end
local stored = tonumber(redis.call('HGET', KEYS[1], 'v'))
if tonumber(ARGV[2]) < stored then return {'conflict', stored} end
redis.call('HSET', KEYS[1], 'rec', ARGV[3], 'v', ARGV[2])
touch(tonumber(ARGV[4]), ARGV[5])
return {'ok', tonumber(ARGV[2])}
"""
)

# ARGV: fence, version, entry, ttl, code
APPEND = (
    _PRELUDE
    + """
local no = refuse(ARGV[1])
if no then return no end
local stored = tonumber(redis.call('HGET', KEYS[1], 'v'))
local v = tonumber(ARGV[2])
if v == stored then
  -- a retry of the append that already landed (its reply was lost): the same action again,
  -- perhaps with a later turn deadline, which replaces the stored one
  local last = redis.call('LINDEX', KEYS[2], -1)
  if last then
    local was, now = cjson.decode(last), cjson.decode(ARGV[3])
    if was.v == now.v and was.g == now.g and was.s == now.s and was.a == now.a then
      redis.call('LSET', KEYS[2], -1, ARGV[3])
      touch(tonumber(ARGV[4]), ARGV[5])
      return {'ok', v}
    end
  end
end
if v ~= stored + 1 then return {'conflict', stored} end
redis.call('RPUSH', KEYS[2], ARGV[3])
redis.call('HSET', KEYS[1], 'v', v)
touch(tonumber(ARGV[4]), ARGV[5])
return {'ok', v}
"""
)

# ARGV: fence, history ttl, code
DELETE = (
    _PRELUDE
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return {'ok', 0} end
local current = fence_now()
if tonumber(ARGV[1]) ~= current then return {'fenced', current} end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[5])
if KEYS[6] then redis.call('ZREM', KEYS[6], ARGV[3]) end
redis.call('PEXPIRE', KEYS[4], tonumber(ARGV[2]))
return {'ok', 0}
"""
)

# ARGV: fence, game index, item, ttl, code
ADD_HISTORY = (
    _PRELUDE
    + """
local no = refuse(ARGV[1])
if no then return no end
redis.call('HSET', KEYS[4], ARGV[2], ARGV[3])
touch(tonumber(ARGV[4]), ARGV[5])
return {'ok', 0}
"""
)

# KEYS: index. Codes of rooms not yet expired (expired ones leave the index here).
LIST = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZRANGE', KEYS[1], 0, -1)
"""

# Leases. KEYS: lease, fence, fence counter, room. The lease's value is "<owner> <fence>".
# The counter is one key for every room on one Redis; on a cluster it is the room's own fence
# key (KEYS[3] == KEYS[2]). A token is never below the clock in milliseconds: a code used again
# after its room (and fence key) went never repeats an old token, nor does a replica promoted
# by Sentinel that had not copied the last increments (a failover takes seconds).
# A fence key outlives its lease only while the room's record exists (CREATE and every write
# keep it for the room's ttl): a lease taken for a code that never became a room (a refused
# create, a join naming no room) leaves nothing behind once released or expired.

_TOKENS = """
-- the next token of a counter, never below the clock in milliseconds (13 digits: exact in
-- Lua's numbers and strings)
local function fresh_fence(counter)
  local fence = redis.call('INCR', counter)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  if fence < now then
    fence = now
    redis.call('SET', counter, fence, 'KEEPTTL')
  end
  return fence
end
"""

# ARGV: owner, lease ttl, room ttl. {1, fence} when held by the caller (taken or renewed),
# {0, fence, owner, ms left} when another owner holds it.
ACQUIRE = (
    _TOKENS
    + """
local held = redis.call('GET', KEYS[1])
if held then
  local owner, fence = string.match(held, '^(.*) (%d+)$')
  if owner == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return {1, tonumber(fence)}
  end
  return {0, tonumber(fence), owner, redis.call('PTTL', KEYS[1])}
end
-- one counter for every room: a token never repeats, even for a code used again
local fence = fresh_fence(KEYS[3])
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. fence, 'PX', ARGV[2])
local keep = ARGV[2]
if redis.call('EXISTS', KEYS[4]) == 1 then keep = ARGV[3] end
redis.call('SET', KEYS[2], fence, 'PX', keep)
return {1, fence}
"""
)

# ARGV: owner, fence, lease ttl. 1 if renewed, 0 if the lease is lost.
RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] .. ' ' .. ARGV[2] then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return 1
end
return 0
"""

# Every lease of one process in one call. KEYS: the leases; ARGV: owner, lease ttl, then each
# lease's fence in KEYS' order. One 1 (renewed) or 0 (lost) per lease.
RENEW_ALL = """
local kept = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] .. ' ' .. ARGV[i + 2] then
    redis.call('PEXPIRE', key, ARGV[2])
    kept[i] = 1
  else
    kept[i] = 0
  end
end
return kept
"""

# ARGV: owner, fence. 1 if released, 0 if it was not ours any more. The fence key goes too
# when no room was ever stored under the code.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] .. ' ' .. ARGV[2] then
  redis.call('DEL', KEYS[1])
  if redis.call('EXISTS', KEYS[4]) == 0 then redis.call('DEL', KEYS[2]) end
  return 1
end
return 0
"""

# A planned handover: the lease moves from its owner to another process at once, with a fresh
# token (the new owner's writes are fenced from the old owner's). ARGV: owner, fence, new owner,
# lease ttl, room ttl. The new fence, or 0 if the lease was not the caller's any more.
TRANSFER = (
    _TOKENS
    + """
if redis.call('GET', KEYS[1]) ~= ARGV[1] .. ' ' .. ARGV[2] then return 0 end
local fence = fresh_fence(KEYS[3])
redis.call('SET', KEYS[1], ARGV[3] .. ' ' .. fence, 'PX', ARGV[4])
local keep = ARGV[4]
if redis.call('EXISTS', KEYS[4]) == 1 then keep = ARGV[5] end
redis.call('SET', KEYS[2], fence, 'PX', keep)
return fence
"""
)

# TRANSFER for many rooms in one call (a process stopping hands all its rooms to a peer).
# KEYS: four per room, as TRANSFER's; ARGV: owner, new owner, lease ttl, room ttl, then each
# room's fence in KEYS' order. One new fence (0: the lease was not the caller's) per room.
TRANSFER_ALL = (
    _TOKENS
    + """
local moved = {}
for i = 1, #KEYS / 4 do
  local k = (i - 1) * 4
  if redis.call('GET', KEYS[k + 1]) ~= ARGV[1] .. ' ' .. ARGV[i + 4] then
    moved[i] = 0
  else
    local fence = fresh_fence(KEYS[k + 3])
    redis.call('SET', KEYS[k + 1], ARGV[2] .. ' ' .. fence, 'PX', ARGV[3])
    local keep = ARGV[3]
    if redis.call('EXISTS', KEYS[k + 4]) == 1 then keep = ARGV[4] end
    redis.call('SET', KEYS[k + 2], fence, 'PX', keep)
    moved[i] = fence
  end
end
return moved
"""
)

# Leaderboards. KEYS: board (sorted set), games (hash), names (hash, or the board again on a
# cluster, where the names hash is in another slot and written after), seen (this result's
# marker, or the board again when the result has no name).
# ARGV: player id, score, name, once (1: keep the first score), ttl ms (0: keep for ever),
# seen ttl ms. 1 if recorded; 0 if a once-per-player board already had this player, or this
# result was recorded before.
RECORD = """
if KEYS[4] ~= KEYS[1] then
  if not redis.call('SET', KEYS[4], 1, 'NX', 'PX', ARGV[6]) then return 0 end
end
if ARGV[4] == '1' then
  if redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1]) == 0 then return 0 end
else
  redis.call('ZINCRBY', KEYS[1], ARGV[2], ARGV[1])
end
redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
if KEYS[3] ~= KEYS[1] then redis.call('HSET', KEYS[3], ARGV[1], ARGV[3]) end
if tonumber(ARGV[5]) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  redis.call('PEXPIRE', KEYS[2], ARGV[5])
end
return 1
"""

# An event (server/store/events.py): KEYS[1] its hash (``v``: version, ``r``: record as JSON);
# ARGV: version, record, ttl in seconds. Create answers 1, or 0 when the code is taken.
CREATE_EVENT = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'r', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""

# Save answers {status, number}: ``ok``, ``gone`` or ``conflict`` (the stored version).
SAVE_EVENT = """
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return {'gone', 0} end
if tonumber(ARGV[1]) ~= tonumber(v) + 1 then return {'conflict', tonumber(v)} end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'r', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return {'ok', tonumber(ARGV[1])}
"""
