"""Every refusal of the rules cores carries a ``protocol.errors.ErrorCode`` member, never a bare
string: checked on the source (no code literal reaches a refusal) and on the running games
(random states of both games, each refusing a pool of wrong actions from every seat)."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from protocol.errors import ErrorCode
from server.rules.base import Action, Game, IllegalAction
from server.rules.registry import GAMES

RULES = Path(__file__).resolve().parents[2] / "server" / "rules"
# the callables in server/rules whose first argument is a refusal code
REFUSERS = {"IllegalAction", "_refuse", "no"}


def test_no_refusal_in_the_rules_names_its_code_as_a_string() -> None:
    found = []
    for path in sorted(RULES.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            strings: list[ast.expr] = []
            if isinstance(node, ast.Call) and node.args:
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name in REFUSERS:
                    strings.append(node.args[0])
            if isinstance(node, ast.Assign):  # code = "..." / code, message = "...", "..."
                for target in node.targets:
                    names = target.elts if isinstance(target, ast.Tuple) else [target]
                    values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
                    for n, value in zip(names, values, strict=False):
                        if isinstance(n, ast.Name) and n.id == "code":
                            strings.append(value)
            for arg in strings:
                for sub in ast.walk(arg):
                    if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                        found.append(f"{path.name}:{getattr(node, 'lineno', 0)}: {sub.value!r}")
    assert not found, found


def _wrong_actions(game: Game, rng: random.Random) -> list[Action]:
    """Actions of every kind both games know, mostly wrong here: cards held by nobody in
    particular, bad slots, a kind no game has."""
    cards = tuple(rng.sample(range(52), 3))
    kinds = ["ready", "pickup", "flip", "play", "swap", "pick", "pass", "bury", "call"]
    kinds += ["call_unknown", "alone", "bogus"]
    out = [Action(kind) for kind in kinds]
    out += [Action(kind, cards[:n]) for kind in kinds for n in (1, 2, 3)]
    out += [Action("flip", (), slot) for slot in (0, 2, 5)] + [Action("play", cards[:1], 1)]
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_refusal_of_a_played_game_is_an_error_code(name: str) -> None:
    spec = GAMES[name]
    rng = random.Random(11)
    seen: set[ErrorCode] = set()
    for seed in range(3):
        game = spec.game.new(spec.min_players if seed % 2 else spec.max_players, seed=seed)
        for _ in range(120):  # into the play phase of both games, and to the end of most hands
            for seat in range(game.num_players):
                for action in _wrong_actions(game, rng):
                    try:
                        game.clone().apply(seat, action)
                    except IllegalAction as exc:
                        assert type(exc.code) is ErrorCode, (exc.code, action)
                        seen.add(exc.code)
            if game.is_over():
                break
            seat = game.to_act()[0]
            legal = game.legal_actions(seat)
            game.apply(seat, legal[rng.randrange(len(legal))])
    assert len(seen) >= 8, seen  # the pool reaches refusals of every phase


@pytest.mark.parametrize(
    "data", [5, {}, {"kind": 3}, {"kind": "play", "cards": "7D"}, {"kind": "flip", "slot": "x"}]
)
def test_a_malformed_action_is_refused_with_its_error_code(data: object) -> None:
    with pytest.raises(IllegalAction) as refused:
        Action.from_json(data)
    assert refused.value.code is ErrorCode.MALFORMED_ACTION
