"""Leaderboards in Redis: one sorted set per board (score: units or games), a hash of games
played per board, and one hash of display names by player id; and per daily board and device
origin, a sorted set of the players who claimed an entry (by the time of their first claim).

On a Redis Cluster a board's keys share one hash tag, ``{lb:BOARD}``, so recording a result is
one script in one slot: one board lives on one master (a board is written once per finished
game, far less than a room), and the boards spread over the masters. The names hash, shared by
every board, is in a slot of its own there, written after the script (a name is only shown).
One Redis keeps the key names it always had.
"""

from __future__ import annotations

import time
from typing import cast

from redis.asyncio.cluster import RedisCluster

from server.store import redis_scripts as lua
from server.store.leaderboard import (
    CLAIM_TTL,
    DAILY_TTL,
    Board,
    Entry,
    Leaderboards,
    Player,
    ranked,
)
from server.store.redis_client import (
    RedisClient,
    connect,
    global_key,
    unavailable_as_store_error,
)

#: Seconds a recorded result's name is remembered (longer than any room lives).
SEEN_TTL = 7 * 24 * 3600


class RedisLeaderboards(Leaderboards):
    def __init__(self, url: str | None = None, *, client: RedisClient | None = None) -> None:
        if client is None:
            if url is None:
                raise ValueError("RedisLeaderboards needs a url or a client")
            client = connect(url)
        self.redis = client
        self._cluster = isinstance(client, RedisCluster)
        self._names = global_key("lb:names")
        self._record = client.register_script(lua.RECORD)

    def _board(self, board: Board) -> str:
        if self._cluster:  # every key of the board in the board's slot
            return global_key(f"{{lb:{board.key}}}")
        return global_key(f"lb:{board.key}")

    def _seen(self, board: Board, event: str, player: str) -> str:
        if self._cluster:
            return f"{self._board(board)}:seen:{event}:{player}"
        return global_key(f"lb:seen:{event}:{board.key}:{player}")

    async def record(
        self, board: Board, player: Player, score: int, *, event: str | None = None
    ) -> bool:
        key = self._board(board)
        ttl = DAILY_TTL * 1000 if board.once_per_player else 0
        once = 1 if board.once_per_player else 0
        seen = key if event is None else self._seen(board, event, player.id)
        names = key if self._cluster else self._names  # the board: no names in the script
        with unavailable_as_store_error():
            added = await self._record(
                keys=[key, f"{key}:games", names, seen],
                args=[player.id, score, player.name, once, ttl, SEEN_TTL * 1000],
            )
            if added and self._cluster:
                await self.redis.hset(self._names, player.id, player.name)
        return bool(added)

    async def claim(self, board: Board, origin: str, player_id: str, limit: int) -> bool:
        key = global_key(f"lb:claims:{board.key}:{origin}")
        with unavailable_as_store_error():
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.zadd(key, {player_id: time.time()}, nx=True)  # the first claim's time
                pipe.expire(key, CLAIM_TTL)
                pipe.zrank(key, player_id)
                _, _, rank = await pipe.execute()
        return rank is not None and int(rank) < limit

    async def first_daily(self, board: Board, player_id: str, match: str) -> bool:
        key = global_key(f"lb:first:{board.key}:{player_id}")
        with unavailable_as_store_error():
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.set(key, match, nx=True, ex=CLAIM_TTL)  # the first match started keeps it
                pipe.get(key)
                _, first = await pipe.execute()
        return first is not None and bytes(first).decode() == match

    async def top(self, board: Board, limit: int = 20) -> list[Entry]:
        key = self._board(board)
        with unavailable_as_store_error():
            rows = cast(
                list[tuple[bytes, float]],
                await self.redis.zrevrange(key, 0, limit - 1, withscores=True),
            )
            ids = [pid.decode() for pid, _ in rows]
            if not ids:
                return []
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.hmget(self._names, ids)
                pipe.hmget(f"{key}:games", ids)
                names, games = await pipe.execute()
        return ranked(
            [(pid, int(score)) for pid, (_, score) in zip(ids, rows, strict=True)],
            {pid: n.decode() for pid, n in zip(ids, names, strict=True) if n is not None},
            {pid: int(g) for pid, g in zip(ids, games, strict=True) if g is not None},
        )

    async def entry(self, board: Board, player_id: str) -> Entry | None:
        key = self._board(board)
        with unavailable_as_store_error():
            score = await self.redis.zscore(key, player_id)
            if score is None:
                return None
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.zcount(key, f"({score}", "+inf")
                pipe.hget(self._names, player_id)
                pipe.hget(f"{key}:games", player_id)
                better, name, games = await pipe.execute()
        return Entry(
            int(better) + 1,
            player_id,
            name.decode() if name else "?",
            int(score),
            int(games or 0),
        )

    async def size(self, board: Board) -> int:
        with unavailable_as_store_error():
            return int(await self.redis.zcard(self._board(board)))

    async def close(self) -> None:
        await self.redis.aclose()
