"""Every game the server offers, in one table: its name, seat range, options type, how a room's
series or match is dealt, and the match length. Rooms, the CLI, sims, the arena and the bots
read games from here, in the spirit of OpenSpiel's game registry.

>>> spec = game_spec("sheepshead")
>>> spec.min_players, spec.max_players, spec.match_length
(5, 5, 10)
>>> series = spec.new_series(5, seed=3)
>>> series.current.phase
'pick'
>>> rules = ShitheadOptions(eight_skips=True)
>>> game_spec("shithead").new_series(3, seed=1, options=rules).current.options == rules
True
>>> GAME_NAMES
('shithead', 'sheepshead')
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from protocol.messages import GameOptions, SheepsheadOptions, ShitheadOptions
from server.rules.base import Game
from server.rules.series import Series
from server.rules.sheepshead import Sheepshead
from server.rules.sheepshead_cards import DECK32
from server.rules.sheepshead_match import HANDS, SheepsheadMatch
from server.rules.shithead import Shithead
from server.rules.shithead_series import ShitheadSeries

#: A room's decks: game index -> that game's deck, top first (:mod:`server.rules.deal`).
Decks = Callable[[int], Sequence[int]]
#: ``factory(players, seed, daily, decks, dealer, options)``: the series or match a room plays
#: under its house rules ``options``, dealt from ``decks`` with the first dealer ``dealer``, or
#: from ``seed`` (sims and tests).
SeriesFactory = Callable[
    [int, "int | None", "datetime.date | None", "Decks | None", int, GameOptions], Series
]


@dataclass(frozen=True, slots=True)
class GameSpec:
    """What the server needs to know about one game."""

    name: str
    game: type[Game]
    min_players: int
    max_players: int
    #: The game's house rules: the protocol's frozen model (its defaults are the book's game).
    options: type[ShitheadOptions] | type[SheepsheadOptions]
    #: Games in a match, or ``None`` for an open-ended series.
    match_length: int | None
    #: Whether the game has a daily deal (the same deal everywhere on a UTC date).
    daily: bool
    factory: SeriesFactory
    #: The game's cards in code order: what a fair deal shuffles (:mod:`server.rules.deal`).
    cards: tuple[int, ...]

    @property
    def seat_counts(self) -> range:
        return range(self.min_players, self.max_players + 1)

    def check_players(self, players: int) -> None:
        """Raise ``ValueError`` unless ``players`` can play this game."""
        if players not in self.seat_counts:
            seats = (
                str(self.min_players)
                if self.min_players == self.max_players
                else f"{self.min_players} to {self.max_players}"
            )
            raise ValueError(f"{self.name} is played by {seats} players, not {players}")

    def new_series(
        self,
        players: int,
        *,
        seed: int | None = None,
        daily: datetime.date | None = None,
        decks: Decks | None = None,
        dealer: int = 0,
        options: GameOptions | None = None,
    ) -> Series:
        """The series or match a room of ``players`` plays, dealt from ``decks`` with the
        first dealer ``dealer`` (a room), or from ``seed`` (sims and tests); ``daily``: the
        daily match of that date (its decks given); ``options``: the house rules (this game's
        model; ``None``: the defaults).

        Raises:
            ValueError: a seat count this game does not have, a daily deal it does not offer,
                neither decks nor a seed, another game's options.
        """
        self.check_players(players)
        if daily is not None and not self.daily:
            raise ValueError(f"{self.name} has no daily deal")
        if decks is None and seed is None:
            raise ValueError("a series is dealt from decks or a seed")
        return self.factory(players, seed, daily, decks, dealer, self.check_options(options))

    def check_options(self, options: GameOptions | None) -> GameOptions:
        """``options`` as this game's house rules (``None``: the defaults); ``ValueError`` for
        another game's."""
        if options is None:
            return self.options()
        if not isinstance(options, self.options):
            raise ValueError(f"{self.name} does not take {type(options).__name__}")
        return options


def _shithead_series(
    players: int,
    seed: int | None,
    daily: datetime.date | None,
    decks: Decks | None,
    dealer: int,
    options: GameOptions,
) -> Series:
    assert isinstance(options, ShitheadOptions)  # checked by new_series
    if decks is not None:
        return ShitheadSeries(players, dealer=dealer, decks=decks, options=options)
    return ShitheadSeries(players, seed=seed, options=options)


def _sheepshead_match(
    players: int,
    seed: int | None,
    daily: datetime.date | None,
    decks: Decks | None,
    dealer: int,
    options: GameOptions,
) -> Series:
    assert isinstance(options, SheepsheadOptions)  # checked by new_series
    if decks is not None:
        return SheepsheadMatch(daily=daily, decks=decks, first_dealer=dealer, options=options)
    assert seed is not None  # checked by new_series
    return SheepsheadMatch(seed, daily=daily, first_dealer=seed % players, options=options)


GAMES: Mapping[str, GameSpec] = MappingProxyType(
    {
        spec.name: spec
        for spec in (
            GameSpec(
                name=Shithead.name,
                game=Shithead,
                min_players=min(Shithead.seat_counts),
                max_players=max(Shithead.seat_counts),
                options=ShitheadOptions,
                match_length=None,
                daily=False,
                factory=_shithead_series,
                cards=tuple(range(52)),
            ),
            GameSpec(
                name=Sheepshead.name,
                game=Sheepshead,
                min_players=min(Sheepshead.seat_counts),
                max_players=max(Sheepshead.seat_counts),
                options=SheepsheadOptions,
                match_length=HANDS,
                daily=True,
                factory=_sheepshead_match,
                cards=DECK32,
            ),
        )
    }
)
#: The games' names, in the order the server lists them.
GAME_NAMES: tuple[str, ...] = tuple(GAMES)


def game_spec(name: str) -> GameSpec:
    """The spec of game ``name``; ``ValueError`` for a game the server does not have."""
    spec = GAMES.get(name)
    if spec is None:
        raise ValueError(f"unknown game {name!r}; games are {', '.join(GAME_NAMES)}")
    return spec
