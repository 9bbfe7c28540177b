"""``/api/rooms/CODE/history?steps=1``: a finished game step by step, every seat's cards open,
each step the rules core's own views after that action (a client replays it knowing no rule)."""

from __future__ import annotations

from typing import Any

import pytest

from server.net.server import CardroomServer
from server.rules.base import Action, Game
from server.rules.sheepshead import Sheepshead
from server.rules.shithead import Shithead
from server.store.history import ReplayStep, history_item, replay_steps
from tests.support.games import play_out
from tests.support.results_api import ANN, client, get
from tests.support.server import play_until_over


def check_steps(item: dict[str, Any], steps: list[ReplayStep]) -> None:
    """Each step is the table after that many actions, as each seat's own view shows it."""
    assert len(steps) == len(item["log"]) + 1
    assert steps[0]["seat"] is None and steps[0]["action"] is None
    game = type_of(item).from_deal_record(item["deal"])
    for k, step in enumerate(steps):
        if k:
            seat, text = item["log"][k - 1]
            assert (step["seat"], step["action"]) == (seat, Action.from_str(text).to_json())
            events = game.apply(seat, Action.from_str(text))
            assert step["events"] == [e.to_json() for e in events]
        view = step["view"]
        assert view["hands"] == [game.view(s)["hand"] for s in range(game.num_players)]
        assert view["phase"] == game.phase and view["to_act"] == list(game.to_act())
        assert "legal" not in view  # a replay offers no moves
    assert steps[-1]["view"]["phase"] == "over"


def type_of(item: dict[str, Any]) -> type[Game]:
    return Shithead if item["game"] == "shithead" else Sheepshead


@pytest.mark.slow
def test_shithead_steps_show_every_card() -> None:
    item = history_item(0, play_out(Shithead.new(4, seed=7), 1), ["A", "B", "C", "D"])
    steps = replay_steps(item)
    check_steps(item, steps)
    first = steps[0]["view"]
    assert first["game"] == "shithead"
    # the whole deck is on the table at the deal: hands, face-up, face-down (open), stock
    seen = [c for h in first["hands"] for c in h]
    for s in first["seats"]:
        seen += s["face_up"] + [c for c in s["face_down_cards"] if c]
    assert len(set(seen)) == len(seen) == 4 * 9
    assert len(seen) + first["stock"] == 52
    # a face-down card turned over leaves its slot empty (None) in the next steps
    end = steps[-1]["view"]
    assert end["game"] == "shithead"
    last = end["seats"]
    assert all(len(s["face_down_cards"]) == len(s["face_down"]) for s in last)
    assert all(
        (c is None) == (not down)
        for s in last
        for c, down in zip(s["face_down_cards"], s["face_down"], strict=True)
    )


def test_sheepshead_steps_open_the_pickers_secrets() -> None:
    game = Sheepshead.new(5, dealer=4, seed=11)
    play_out(game, 3)
    item = history_item(0, game, [f"P{i}" for i in range(5)])
    steps = replay_steps(item)
    check_steps(item, steps)
    views = [step["view"] for step in steps]
    hands = [v for v in views if v["game"] == "sheepshead"]
    assert len(hands) == len(views)
    if game.picker is not None:  # the blind and the buried cards, from the picker's own view
        picked = next(i for i, v in enumerate(hands) if v["picker"] is not None)
        assert hands[picked]["blind"] is not None
        assert hands[-1]["buried"] is not None


async def test_history_steps_through_the_server(server: CardroomServer) -> None:
    me = await client(server, ANN)
    await me.create("shithead", seats=3, name="Ann")
    await me.host("start")
    await play_until_over(me)
    code, token = me.room, me.token
    # while the room is open, steps are the players' alone, like the rest of the history
    assert (await get(server, f"/api/rooms/{code}/history?game=0&steps=1"))[0] == 404
    status, body = await get(server, f"/api/rooms/{code}/history?game=0&steps=1", token)
    assert status == 200
    (item,) = body["games"]
    check_steps(item, item["steps"])
    plain = (await get(server, f"/api/rooms/{code}/history", token))[1]
    assert "steps" not in plain["games"][0]  # only when asked: a history stays small
    old = (await get(server, f"/api/rooms/{code}/history?g=0&steps=1", token))[1]
    assert old["games"] == body["games"]  # ``g`` still names the game, as before
    none = (await get(server, f"/api/rooms/{code}/history?game=1&steps=1", token))[1]
    assert none["games"] == []
    await me.close()
