"""Ratings in Redis, shared by every process of one service.

Keys (all under one hash tag, ``{rt}``, so that recording a game is one script in one slot on
a Redis Cluster too: ratings are written once per finished rated game, far less than rooms):

- ``{rt}:p:PLAYER:GAME``: a hash per player and game: ``mu``, ``sigma``, ``games``, ``name``
  and ``rev``, a revision the recording script checks;
- ``{rt}:h:PLAYER``: the player's ratings after each rated game, newest first
  (:data:`~server.store.ratings.MAX_HISTORY`), for the plot;
- ``{rt}:r:PLAYER``: their recent rated games with replay links
  (:data:`~server.store.ratings.MAX_RECENT`);
- ``{rt}:done:KEY``: a recorded game's changes, its idempotency key (:data:`DONE_TTL`);
- ``{rt}:wait:PLAYER``: until when a leaver waits before queueing (expires then);
- ``{rt}:lb:POOL``: a ladder pool's identities scored by their shown rating (at most
  :data:`~server.store.ratings.MAX_LADDER`), and ``{rt}:lg:POOL`` its last games.

A player's keys expire :data:`KEEP_TTL` after their last rated game.

Recording is optimistic: the ratings are read, the update is computed here by the library, and
one script writes it only if no rating it read has changed since (by ``rev``) and the game was
not recorded before; else it reads again (another process recorded a game of one of its
players meanwhile) or answers the first recording's changes. A process records one game at a
time, so only other processes' recordings make it read again. So two processes recording one
game, or a process recording it again after a restart, apply it exactly once.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from typing import Any, cast

import orjson

from server.store.base import StoreUnavailable
from server.store.leaderboard import GameName
from server.store.ratings import (
    MAX_HISTORY,
    MAX_LADDER,
    MAX_LADDER_GAMES,
    MAX_RECENT,
    POOLS,
    LadderRow,
    LadderTable,
    PlayerPage,
    RatedGame,
    Rating,
    RatingChange,
    Ratings,
    expected_changes,
    history_entry,
    ladder_game,
    pool,
    recent_entry,
)
from server.store.redis_client import (
    RedisClient,
    connect,
    global_key,
    unavailable_as_store_error,
)

#: Seconds a recorded game's key is kept (a repeat comes within a room's life).
DONE_TTL = 30 * 24 * 3600
#: Seconds a player's ratings are kept after their last rated game.
KEEP_TTL = 400 * 24 * 3600
#: Times a recording reads again when another process's update came first.
MAX_TRIES = 50

# KEYS: done, the ladder pool's board and games (unused by a people's game), then per player:
# rating hash, history list, recent list.
# ARGV: done value, done ttl ms, keep ttl ms, max history, max recent, the ladder game's line
# ('' for a people's game), max ladder games, max ladder players, then per player nine:
# expected rev, mu, sigma, games, name, history entry, recent entry, score, player id.
RATE = """
local done = redis.call('GET', KEYS[1])
if done then return {0, done} end
local n = (#KEYS - 3) / 3
for i = 0, n - 1 do
  local rev = redis.call('HGET', KEYS[4 + 3 * i], 'rev') or '0'
  if rev ~= ARGV[9 + 9 * i] then return {-1, ''} end
end
local ladder = ARGV[6] ~= ''
for i = 0, n - 1 do
  local h, hist, rec, a = KEYS[4 + 3 * i], KEYS[5 + 3 * i], KEYS[6 + 3 * i], 9 + 9 * i
  redis.call('HSET', h, 'mu', ARGV[a + 1], 'sigma', ARGV[a + 2], 'games', ARGV[a + 3])
  if ARGV[a + 4] ~= '' then redis.call('HSET', h, 'name', ARGV[a + 4]) end
  redis.call('HINCRBY', h, 'rev', 1)
  redis.call('PEXPIRE', h, ARGV[3])
  redis.call('LPUSH', hist, ARGV[a + 5])
  redis.call('LTRIM', hist, 0, tonumber(ARGV[4]) - 1)
  redis.call('PEXPIRE', hist, ARGV[3])
  redis.call('LPUSH', rec, ARGV[a + 6])
  redis.call('LTRIM', rec, 0, tonumber(ARGV[5]) - 1)
  redis.call('PEXPIRE', rec, ARGV[3])
  if ladder then redis.call('ZADD', KEYS[2], ARGV[a + 7], ARGV[a + 8]) end
end
if ladder then
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -tonumber(ARGV[8]) - 1)
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
  redis.call('LPUSH', KEYS[3], ARGV[6])
  redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[7]) - 1)
  redis.call('PEXPIRE', KEYS[3], ARGV[3])
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {1, ''}
"""


def _key(name: str) -> str:
    return global_key(f"{{rt}}:{name}")


class RedisRatings(Ratings):
    def __init__(
        self,
        url: str | None = None,
        *,
        client: RedisClient | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(clock)
        if client is None:
            if url is None:
                raise ValueError("RedisRatings needs a url or a client")
            client = connect(url)
        self.redis = client
        self._rate = client.register_script(RATE)
        # one recording at a time in a process: the house bots sit at many tables, and games
        # ending together would otherwise read the same bot's rating and retry each other out
        self._one_at_a_time = asyncio.Lock()

    async def _read(self, game: str, players: list[str]) -> dict[str, tuple[Rating, str]]:
        """Each player's rating in ``game`` and its revision."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for player in players:
                pipe.hmget(_key(f"p:{player}:{game}"), ["mu", "sigma", "games", "rev"])
            rows = await pipe.execute()
        out = {}
        for player, (mu, sigma, games, rev) in zip(players, rows, strict=True):
            rating = Rating() if mu is None else Rating(float(mu), float(sigma), int(games or 0))
            out[player] = (rating, rev.decode() if rev is not None else "0")
        return out

    async def record(self, game: RatedGame, leaver_wait: float = 0.0) -> list[RatingChange]:
        players = list(dict.fromkeys(p.player for p in game.places))  # a bot seated twice: once
        done = _key(f"done:{game.key}")
        async with self._one_at_a_time:
            return await self._record(game, players, done, leaver_wait)

    async def _record(
        self, game: RatedGame, players: list[str], done: str, leaver_wait: float
    ) -> list[RatingChange]:
        with unavailable_as_store_error():
            for attempt in range(MAX_TRIES):
                read = await self._read(game.pool, players)
                changes = expected_changes(game, {p: r for p, (r, _) in read.items()})
                first = {c.player: c for c in reversed(changes)}  # each player's first seat
                keys = [done, _key(f"lb:{game.pool}"), _key(f"lg:{game.pool}")]
                args: list[Any] = [
                    orjson.dumps([c.to_json() for c in changes]),
                    DONE_TTL * 1000,
                    KEEP_TTL * 1000,
                    MAX_HISTORY,
                    MAX_RECENT,
                    orjson.dumps(ladder_game(game, changes)) if game.ladder else "",
                    MAX_LADDER_GAMES,
                    MAX_LADDER,
                ]
                for player in players:
                    change = first[player]
                    keys += [_key(f"p:{player}:{game.pool}")]
                    keys += [_key(f"h:{player}"), _key(f"r:{player}")]
                    after = change.after
                    args += [
                        read[player][1],
                        repr(after.mu),
                        repr(after.sigma),
                        after.games,
                        change.name,
                        orjson.dumps(history_entry(game, change)),
                        orjson.dumps(recent_entry(game, change)),
                        repr(after.conservative),
                        player,
                    ]
                status, stored = cast(list[Any], await self._rate(keys=keys, args=args))
                if int(status) == 0:  # recorded before: its changes then
                    changes = [RatingChange.from_json(c) for c in orjson.loads(stored)]
                    return changes
                if int(status) == 1:
                    await self._wait(game, leaver_wait)
                    return changes
                await asyncio.sleep(random.uniform(0, 0.001 * min(attempt + 1, 20)))
        raise StoreUnavailable(f"ratings of {game.key}: too many games ending at once")

    async def _wait(self, game: RatedGame, seconds: float) -> None:
        if seconds <= 0:
            return
        until = self.clock() + seconds
        async with self.redis.pipeline(transaction=False) as pipe:
            for place in game.places:
                if place.left:
                    pipe.set(_key(f"wait:{place.player}"), repr(until), px=int(seconds * 1000))
            await pipe.execute()

    async def rating(self, game: str, player: str) -> Rating:
        with unavailable_as_store_error():
            return (await self._read(game, [player]))[player][0]

    async def page(self, player: str) -> PlayerPage:
        with unavailable_as_store_error():
            async with self.redis.pipeline(transaction=False) as pipe:
                for game in POOLS:
                    pipe.hmget(_key(f"p:{player}:{game}"), ["mu", "sigma", "games", "name"])
                pipe.lrange(_key(f"h:{player}"), 0, MAX_HISTORY - 1)
                pipe.lrange(_key(f"r:{player}"), 0, MAX_RECENT - 1)
                *rows, history, recent = await pipe.execute()
        ratings: dict[str, Rating] = {}
        name = None
        for game, (mu, sigma, games, named) in zip(POOLS, rows, strict=True):
            if mu is not None:
                ratings[game] = Rating(float(mu), float(sigma), int(games or 0))
                name = name or (named.decode() if named else None)
        return PlayerPage(
            player,
            name,
            ratings,
            [orjson.loads(h) for h in history],
            [orjson.loads(r) for r in recent],
        )

    async def ladder(self, game: GameName, limit: int) -> LadderTable:
        key = pool(game, True)
        with unavailable_as_store_error():
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.zrevrange(_key(f"lb:{key}"), 0, limit - 1)
                pipe.zcard(_key(f"lb:{key}"))
                pipe.lrange(_key(f"lg:{key}"), 0, MAX_LADDER_GAMES - 1)
                top, size, games = await pipe.execute()
            players = [p.decode() for p in top]
            async with self.redis.pipeline(transaction=False) as pipe:
                for player in players:
                    pipe.hmget(_key(f"p:{player}:{key}"), ["mu", "sigma", "games", "name"])
                rows = await pipe.execute()
        found = [
            LadderRow(
                player,
                named.decode() if named else "",
                Rating(float(mu), float(sigma), int(games_played or 0)),
            )
            for player, (mu, sigma, games_played, named) in zip(players, rows, strict=True)
            if mu is not None  # (its rating expired before its place on the board)
        ]
        return LadderTable(found, int(size), [orjson.loads(g) for g in games])

    async def wait_before_queue(self, player: str) -> float:
        with unavailable_as_store_error():
            until = await self.redis.get(_key(f"wait:{player}"))
        return 0.0 if until is None else max(0.0, float(until) - self.clock())

    async def close(self) -> None:
        await self.redis.aclose()
