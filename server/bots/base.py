"""The bot interface: ``choose(view) -> Action``, where ``view`` is the JSON view of one seat.

>>> from server.rules.shithead import Shithead
>>> game = Shithead.new(3, 0, seed=1)
>>> bot = make_bot("random", "shithead", seed=4)
>>> bot.choose(game.view(0)).kind
'ready'
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Protocol

from server.rules.base import Action
from server.rules.registry import game_spec

#: The levels a host may choose, weakest first; the first one the server offers by default is
#: ``DEFAULT_LEVEL``.
BOT_LEVELS = ("random", "basic", "strong")
DEFAULT_LEVEL = "basic"


class Bot(Protocol):
    """A policy for one seat. ``view`` is that seat's view; the result must be one of its legal
    actions (``view["legal"]``)."""

    def choose(self, view: dict[str, Any]) -> Action: ...


class RandomBot:
    """A uniformly random legal action (in Shithead's swap phase: ready at once)."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: dict[str, Any]) -> Action:
        legal = view["legal"]
        if not legal:
            raise ValueError("this view has no legal action: it is not this seat's turn")
        if view.get("phase") == "swap":
            return Action("ready")
        return Action.from_json(legal[self.rng.randrange(len(legal))])


_FACTORIES: dict[tuple[str, str], Callable[[int | None], Bot]] = {}


def register(level: str, game: str, factory: Callable[[int | None], Bot]) -> None:
    """Make ``factory(seed)`` the bot of ``level`` for ``game``."""
    _FACTORIES[(level, game)] = factory


def make_bot(level: str, game: str, seed: int | None = None) -> Bot:
    """A bot of ``level`` for ``game``; levels without a registered bot fall back to the
    strongest level below them that has one, and finally to :class:`RandomBot`."""
    if level not in BOT_LEVELS:
        raise ValueError(f"no bot level {level!r}; levels are {', '.join(BOT_LEVELS)}")
    game_spec(game)  # ValueError for a game the registry does not have
    for candidate in reversed(BOT_LEVELS[: BOT_LEVELS.index(level) + 1]):
        factory = _FACTORIES.get((candidate, game))
        if factory is not None:
            return factory(seed)
    return RandomBot(seed)
