"""The TypedDicts of ``protocol/views.py`` say exactly what the rules cores send: every view of
played games of both games (each seat and the spectator, every phase), every event and every
replay step has exactly the declared keys, in the declared order, with values of the declared
types (checked strictly by pydantic), and the docs' example views are views too."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from protocol import views as v
from server.rules.base import Game
from server.rules.registry import GAMES
from server.store.history import history_item, replay_steps

VIEWS: dict[str, Any] = {"shithead": v.ShitheadView, "sheepshead": v.SheepsheadView}
REPLAYS: dict[str, Any] = {"shithead": v.ShitheadReplayView, "sheepshead": v.SheepsheadReplayView}
EVENT = TypeAdapter(v.EventWire)
DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


@cache
def _adapter(form: Any) -> TypeAdapter[Any]:
    return TypeAdapter(form)


def _check(value: Mapping[str, object], form: Any) -> None:
    """``value`` has the keys of TypedDict ``form`` (all required), in its order, and its
    values pass pydantic's strict validation of that form."""
    assert list(value) == list(form.__annotations__), (list(value), form.__name__)
    assert form.__required_keys__ == frozenset(form.__annotations__)
    _adapter(form).validate_python(value, strict=True)


def _played(name: str, seed: int) -> Game:
    spec = GAMES[name]
    game = spec.game.new(spec.max_players if seed % 2 else spec.min_players, seed=seed)
    rng = random.Random(seed)
    phases: set[str] = set()
    steps = 0
    while not game.is_over() and steps < 1200:  # SH-6.6 ends a Shithead game by then
        phases.add(game.phase)
        for seat in [None, *range(game.num_players)]:
            _check(game.view(seat), VIEWS[name])
        seat = rng.choice(game.to_act())
        legal = game.legal_actions(seat)
        for event in game.apply(seat, legal[rng.randrange(len(legal))]):
            wire = event.to_json()
            EVENT.validate_python(wire, strict=True)
            assert set(wire) <= set(v.EventWire.__annotations__), wire
        steps += 1
    return game


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_view_and_event_of_a_played_game_is_its_declared_form(name: str, seed: int) -> None:
    game = _played(name, seed)
    assert game.is_over()
    for seat in [None, *range(game.num_players)]:
        _check(game.view(seat), VIEWS[name])
    outcome = game.outcome()
    assert outcome is not None
    form = v.ShitheadOutcome if name == "shithead" else v.SheepsheadResult
    _check(outcome.to_json(), form)
    item = history_item(0, game, ["P"] * game.num_players)
    for step in replay_steps(item):
        _check(step["view"], REPLAYS[name])


def test_a_view_validates_as_the_state_frames_union_by_its_game() -> None:
    spec = GAMES["sheepshead"]
    view = spec.game.new(5, seed=4).view(2)
    adapter: TypeAdapter[v.View] = TypeAdapter(v.View)
    assert adapter.validate_python(view, strict=True) == view
    with pytest.raises(ValueError):
        v.shithead_view(view)
    assert v.sheepshead_view(view) is view


def test_the_documented_example_views_are_views() -> None:
    blocks = re.findall(r"```json\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)
    examples = [json.loads(b) for b in blocks]
    views = [e for e in examples if isinstance(e, dict) and "type" not in e and "game" in e]
    views += [e["view"] for e in examples if isinstance(e, dict) and e.get("type") == "state"]
    assert {view["game"] for view in views} == set(VIEWS)
    for view in views:
        form = VIEWS[view["game"]]
        assert set(view) == set(form.__annotations__), view["game"]
        _adapter(form).validate_python(view, strict=True)
