"""The bot interface: ``choose(view) -> Action``, where ``view`` is the JSON view of one seat.

>>> from server.rules.shithead import Shithead
>>> game = Shithead.new(3, 0, seed=1)
>>> bot = make_bot("random", "shithead", seed=4)
>>> bot.choose(game.view(0)).kind
'ready'
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol, runtime_checkable

from protocol.views import View
from server.bots.advice import Advice
from server.rules.base import Action
from server.rules.registry import game_spec

#: The levels a host may choose, weakest first; the one the server offers by default is
#: ``DEFAULT_LEVEL``.
BOT_LEVELS = ("random", "basic", "strong", "expert")
DEFAULT_LEVEL = "basic"
#: Levels that think for a time budget (seconds per decision) rather than a fixed amount of
#: work; ``make_bot(..., seconds=S)`` overrides their default.
TIMED_LEVELS = frozenset({"expert"})
#: The expert's default time budget per decision (seconds).
EXPERT_SECONDS = 1.0
#: ``strong`` works to a fixed sample budget (the same seed, the same decisions) but stops
#: after this long whatever: a ceiling a quiet machine never reaches.
SAFETY_SECONDS = 2.0


#: The clock deadlines read: wall time, except in ``cardroom arena --cpu`` (:func:`cpu_clock`).
_clock = time.perf_counter


def rated_id(level: str) -> str:
    """A house bot's identity in the ratings, one per level, so "two strong bots" is a number.

    >>> rated_id("strong")
    'bot:strong'
    """
    return f"bot:{level}"


@contextmanager
def cpu_clock(on: bool = True) -> Iterator[None]:
    """Within it (``on``), this process's deadlines count its own CPU time, not wall time: on a
    busy machine the wall clock cuts searches short (``strong``'s safety ceiling, ``expert``'s
    budget), so an arena's results would depend on the load. Wall time again on exit."""
    global _clock
    _clock = time.process_time if on else time.perf_counter
    try:
        yield
    finally:
        _clock = time.perf_counter


class Deadline:
    """When a search must answer: ``seconds`` from now (``None``: never). Searches check it
    between playouts and drop a sample left half done, so every candidate is compared on the
    same samples and a decision overruns by one playout at most."""

    __slots__ = ("at",)

    def __init__(self, seconds: float | None) -> None:
        self.at = None if seconds is None else _clock() + seconds

    def passed(self) -> bool:
        return self.at is not None and _clock() > self.at

    def shares(self, parts: int) -> list[Deadline]:
        """``parts`` deadlines that split the time left into equal shares, the last one this
        deadline (each one never, if this one is never)."""
        if self.at is None:
            return [Deadline(None) for _ in range(parts)]
        now = _clock()
        step = (self.at - now) / parts
        out = []
        for k in range(1, parts + 1):
            d = Deadline(None)
            d.at = self.at if k == parts else now + k * step
            out.append(d)
        return out


def seat_of(view: View) -> int:
    """The seat whose view this is (``ValueError`` for a spectator's: a bot plays a seat)."""
    seat = view["seat"]
    if seat is None:
        raise ValueError("a spectator's view has no seat to play")
    return seat


def hand_of(view: View) -> list[str]:
    """The hand in a seat's own view (``ValueError`` for a spectator's)."""
    hand = view["hand"]
    if hand is None:
        raise ValueError("a spectator's view has no hand")
    return hand


class Bot(Protocol):
    """A policy for one seat. ``view`` is that seat's view; the result must be one of its legal
    actions (``view["legal"]``)."""

    def choose(self, view: View) -> Action: ...


@runtime_checkable
class Advisor(Protocol):
    """A bot that can also give a hint with what its search found (``strong`` Shithead)."""

    def advise(self, view: View) -> tuple[Action, Advice | None]: ...


class RandomBot:
    """A uniformly random legal action (in Shithead's swap phase: ready at once)."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: View) -> Action:
        legal = view["legal"]
        if not legal:
            raise ValueError("this view has no legal action: it is not this seat's turn")
        if view["phase"] == "swap":
            return Action("ready")
        return Action.from_json(legal[self.rng.randrange(len(legal))])


#: ``factory(seed)``, or for a timed level ``factory(seed, seconds=S)`` too.
BotFactory = Callable[..., Bot]
_FACTORIES: dict[tuple[str, str], BotFactory] = {}


def register(level: str, game: str, factory: BotFactory) -> None:
    """Make ``factory(seed)`` the bot of ``level`` for ``game``."""
    _FACTORIES[(level, game)] = factory


def make_bot(
    level: str, game: str, seed: int | None = None, *, seconds: float | None = None
) -> Bot:
    """A bot of ``level`` for ``game``; levels without a registered bot fall back to the
    strongest level below them that has one, and finally to :class:`RandomBot`. ``seconds``
    sets the time budget of a timed level (ignored for the others)."""
    if level not in BOT_LEVELS:
        raise ValueError(f"no bot level {level!r}; levels are {', '.join(BOT_LEVELS)}")
    game_spec(game)  # ValueError for a game the registry does not have
    for candidate in reversed(BOT_LEVELS[: BOT_LEVELS.index(level) + 1]):
        factory = _FACTORIES.get((candidate, game))
        if factory is not None:
            if seconds is not None and candidate in TIMED_LEVELS:
                return factory(seed, seconds=seconds)
            return factory(seed)
    return RandomBot(seed)
