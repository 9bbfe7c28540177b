"""Random Shithead games, and the card codes a value holds or a seat may see."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from protocol.cards import CODES, card_codes
from protocol.messages import ShitheadOptions
from server.rules.base import Action, IllegalAction
from server.rules.shithead import Shithead
from server.tools.sim.shithead import lowest_policy

MAX_ACTIONS = 3000


def choose(game: Shithead, seat: int, rng: random.Random) -> Action:
    """Random play that prefers playing to picking up (games stay short), swaps a little."""
    legal = game.legal_actions(seat)
    if game.phase == "swap":
        return legal[rng.randrange(len(legal))] if rng.random() < 0.3 else Action("ready")
    if rng.random() < 0.7:
        return lowest_policy(game, seat, legal)
    return legal[rng.randrange(len(legal))]


def random_game(
    players: int, seed: int, options: ShitheadOptions | None = None
) -> Iterator[Shithead]:
    """Yield the state after every action of a random game (with the house rules ``options``)."""
    rng = random.Random(seed)
    game = Shithead.new(players, rng.randrange(players), seed=seed, options=options)
    yield game
    for _ in range(MAX_ACTIONS):
        if game.is_over():
            return
        acting = game.to_act()
        seat = acting[rng.randrange(len(acting))]
        game.apply(seat, choose(game, seat, rng))
        yield game


def codes_in(data: Any) -> set[str]:
    """Every card code anywhere in a JSON-like value."""
    found: set[str] = set()
    stack = [data]
    codes = set(CODES)
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if item in codes:
                found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
            stack.extend(item.keys())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return found


def visible_to(game: Shithead, seat: int | None) -> set[str]:
    cards = list(game.pile)
    for s in range(game.num_players):
        cards += game.face_up[s] + game.known[s]
    if seat is not None:
        cards += game.hands[seat]
    return set(card_codes(cards))


def legal_or_unchanged(game: Shithead, seat: int, action: Action) -> None:
    """Apply ``action``: accepted only if it has the shape of one of ``legal_actions`` (same
    kind, ranks and slot), else refused with a code and a message, the state as it was."""
    before = game.snapshot()
    legal = game.legal_actions(seat) if 0 <= seat < game.num_players else []
    shapes = {(a.kind, tuple(sorted(c >> 2 for c in a.cards)), a.slot) for a in legal}
    try:
        game.apply(seat, action)
    except IllegalAction as exc:
        assert exc.code and exc.message
        assert game.snapshot() == before
    else:
        shape = (action.kind, tuple(sorted(c >> 2 for c in action.cards)), action.slot)
        assert shape in shapes
