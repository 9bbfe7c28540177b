"""Hand history: a finished game stored in Redis and read back replays through its rules core
to the same result, move by move."""

from __future__ import annotations

import pytest

from server.rules.base import Game
from server.rules.sheepshead import Sheepshead
from server.rules.shithead import Shithead
from server.store.history import history_item, replay
from server.store.redis_store import RedisStore
from tests.support.games import play_out


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "players"), [(Shithead, 2), (Shithead, 4), (Sheepshead, 5), (Sheepshead, 5)]
)
async def test_history_round_trip_replays_to_the_same_result(
    redis_store: RedisStore, game: type[Game], players: int
) -> None:
    played = [play_out(game.new(players, dealer=g % players, seed=100 + g), g) for g in range(3)]
    names = [f"P{i}" for i in range(players)]
    assert await redis_store.create("HISTX", {"version": 0})
    for g, finished in enumerate(played):
        await redis_store.add_history("HISTX", history_item(g, finished, names))
    await redis_store.delete("HISTX")  # the room closed; its history stays

    stored = await redis_store.history("HISTX")
    assert [item["g"] for item in stored] == [0, 1, 2]
    for item, original in zip(stored, played, strict=True):
        again = replay(item)
        assert again.is_over()
        assert again.outcome() == original.outcome()
        assert item["result"] == original.outcome().to_json()
        assert again.log == original.log
        for seat in [None, *range(players)]:
            assert again.view(seat) == original.view(seat)
        assert item["names"] == names


def test_an_unfinished_game_is_not_history() -> None:
    with pytest.raises(ValueError, match="finished"):
        history_item(0, Shithead.new(3, seed=1), ["a", "b", "c"])
