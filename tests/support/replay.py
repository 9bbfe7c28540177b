"""A room's first game rebuilt from its stored record, version by version."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from server.rooms.matches import DealSource, Match
from server.rules.base import Action
from server.rules.sheepshead import Sheepshead
from server.rules.shithead import Shithead


def replayed(
    record: dict[str, Any], source: DealSource
) -> Iterator[tuple[int, Shithead | Sheepshead]]:
    """The first game of a room at each version: version 1 is the deal, each action adds 1
    (``source``: the room's deal source, the server's keys)."""
    match = record["match"]
    cls = Shithead if match["game"] == "shithead" else Sheepshead
    first = Match.from_record({**match, "logs": [[]], "games": 1}, source).current
    game = cls.from_deal_record(first.deal_record())
    yield 1, game
    for version, (seat, text) in enumerate(match["logs"][0], start=2):
        game.apply(seat, Action.from_str(text))
        yield version, game
