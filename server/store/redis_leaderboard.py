"""Leaderboards in Redis: one sorted set per board (score: units or games), a hash of games
played per board, and one hash of display names by player id; and per daily board and device
origin, a sorted set of the players who claimed an entry (by the time of their first claim)."""

from __future__ import annotations

import time
from typing import cast

from redis.asyncio import Redis

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
from server.store.redis_client import connect, global_key, unavailable_as_store_error

#: Seconds a recorded result's name is remembered (longer than any room lives).
SEEN_TTL = 7 * 24 * 3600


class RedisLeaderboards(Leaderboards):
    def __init__(self, url: str | None = None, *, client: Redis | None = None) -> None:
        if client is None:
            if url is None:
                raise ValueError("RedisLeaderboards needs a url or a client")
            client = connect(url)
        self.redis = client
        self._names = global_key("lb:names")
        self._record = client.register_script(lua.RECORD)

    @staticmethod
    def _board(board: Board) -> str:
        return global_key(f"lb:{board.key}")

    async def record(
        self, board: Board, player: Player, score: int, *, event: str | None = None
    ) -> bool:
        key = self._board(board)
        ttl = DAILY_TTL * 1000 if board.once_per_player else 0
        once = 1 if board.once_per_player else 0
        seen = key if event is None else global_key(f"lb:seen:{event}:{board.key}:{player.id}")
        with unavailable_as_store_error():
            added = await self._record(
                keys=[key, f"{key}:games", self._names, seen],
                args=[player.id, score, player.name, once, ttl, SEEN_TTL * 1000],
            )
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

    async def close(self) -> None:
        await self.redis.aclose()
