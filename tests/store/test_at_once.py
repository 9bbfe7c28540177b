"""Which stores complete their calls at once: only with those does the room actor handle an
input in its caller's turn (server/runtime/actor.py); Redis calls wait on the server."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, TypeVar

from server.store.leaderboard import Board, MemoryLeaderboards, Player
from server.store.memory import MemoryStore
from server.store.redis_leaderboard import RedisLeaderboards
from server.store.redis_store import RedisStore
from server.tools.bench.redis_server import RedisServer

T = TypeVar("T")
ANN = Player("device-Ann", "Ann")


def at_once(call: Coroutine[Any, Any, T]) -> T:
    """``call``'s result, run without a turn of the event loop (a failure if it has to wait)."""
    try:
        call.send(None)
    except StopIteration as done:
        result: T = done.value
        return result
    call.close()
    raise AssertionError(f"{call!r} waited")


def test_the_in_memory_store_says_so_and_does() -> None:
    store = MemoryStore()
    assert store.completes_at_once
    record = {"code": "ABCDE", "version": 1, "seats": []}
    assert at_once(store.create("ABCDE", record))
    at_once(store.append("ABCDE", {"v": 2, "g": 0, "s": 0, "a": "ready"}))
    at_once(store.save("ABCDE", {**record, "version": 2}))
    at_once(store.add_history("ABCDE", {"g": 0}))
    stored = at_once(store.load("ABCDE"))
    assert stored is not None and stored.record["version"] == 2 and len(stored.actions) == 1
    assert at_once(store.history("ABCDE")) == [{"g": 0}]
    at_once(store.delete("ABCDE"))
    assert at_once(store.list()) == []


def test_the_in_memory_leaderboards_say_so_and_do() -> None:
    boards = MemoryLeaderboards()
    assert boards.completes_at_once
    assert at_once(boards.record(Board.alltime("shithead"), ANN, 1))
    (top,) = at_once(boards.top(Board.alltime("shithead")))
    assert at_once(boards.entry(Board.alltime("shithead"), ANN.id)) == top


async def test_the_redis_ones_do_not(redis_server: RedisServer) -> None:
    store, boards = RedisStore(redis_server.url), RedisLeaderboards(redis_server.url)
    assert not store.completes_at_once and not boards.completes_at_once
    # (real stores on a running server: the same calls work through the event loop)
    assert await store.create("ABCDE", {"code": "ABCDE", "version": 1, "seats": []})
    assert await boards.record(Board.alltime("shithead"), ANN, 1)
    await store.close()
    await boards.close()
