"""What a game writes down to be dealt again: its deal record (:meth:`Game.deal_record`,
stored in the hand history) and Shithead's whole position (:meth:`Shithead.snapshot`), as
``TypedDict``s. Plain dicts at run time; a stored record read back from JSON is one of these
(its tuples come back as lists)."""

from __future__ import annotations

from typing import NotRequired, Required, TypedDict


class ShitheadPosition(TypedDict):
    """The whole state of a Shithead game, hidden cards included (for tests and storage)."""

    phase: str
    turn: int
    source: int
    need: int
    hands: list[list[str]]
    face_up: list[list[str]]
    face_down: list[list[str | None]]
    known: list[list[str]]
    stock: list[str]
    pile: list[str]
    burned: list[str]
    ready: list[bool]
    out: list[int]
    plays: NotRequired[int]  # absent in records written before SH-6.6
    log: list[tuple[int, str]]


class DealRecord(TypedDict, total=False):
    """What :meth:`~server.rules.base.Game.new` needs to deal a game again: the deck (top
    first) and options, or, for a game not dealt by ``new``, its starting ``position``."""

    game: Required[str]
    players: Required[int]
    dealer: Required[int]
    deck: list[str]
    options: dict[str, object]
    multiplier: int  # Sheepshead: the stakes the match carried in (SS-10.3); absent: 1
    position: ShitheadPosition
