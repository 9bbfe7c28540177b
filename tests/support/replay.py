"""A room's first game rebuilt from its stored record, version by version."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, cast

from protocol.records import MatchRecord
from server.rooms.matches import DealSource, Match
from server.rules.base import Action
from server.rules.sheepshead import Sheepshead
from server.rules.shithead import Shithead


def replayed(
    record: Mapping[str, Any], source: DealSource
) -> Iterator[tuple[int, Shithead | Sheepshead]]:
    """The first game of a room at each version: version 1 is the deal, each action adds 1
    (``source``: the room's deal source, the server's keys)."""
    match = record["match"]
    cls = Shithead if match["game"] == "shithead" else Sheepshead
    dealt = cast(MatchRecord, {**match, "logs": [[]], "games": 1})
    first = Match.from_record(dealt, source).current
    game = cls.from_deal_record(first.deal_record())
    yield 1, game
    for version, (seat, text) in enumerate(match["logs"][0], start=2):
        game.apply(seat, Action.from_str(text))
        yield version, game
