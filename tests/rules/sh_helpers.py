"""Helpers for Shithead tests: act by string, and check that a refusal changes nothing."""

from __future__ import annotations

import pytest

from server.rules.base import Action, Event, IllegalAction
from server.rules.shithead import Shithead


def act(game: Shithead, seat: int, text: str) -> list[Event]:
    return game.apply(seat, Action.from_str(text))


def refused(game: Shithead, seat: int, text: str | Action) -> str:
    """Apply an action that must be refused; return its code after checking nothing changed."""
    before = game.snapshot()
    views = [game.view(s) for s in [None, *range(game.num_players)]]
    action = Action.from_str(text) if isinstance(text, str) else text
    with pytest.raises(IllegalAction) as info:
        game.apply(seat, action)
    assert game.snapshot() == before
    assert [game.view(s) for s in [None, *range(game.num_players)]] == views
    assert info.value.message
    return info.value.code


def legal(game: Shithead, seat: int) -> list[str]:
    return [a.to_str() for a in game.legal_actions(seat)]


def all_ready(game: Shithead) -> None:
    for seat in range(game.num_players):
        act(game, seat, "ready")


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]
