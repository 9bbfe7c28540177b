"""What a host chooses for an event (a night of several tables and rounds): the game, the table
size, rounds, hands a round, duplicate deals, how later rounds are reseated and the house rules,
checked against the bounds of a public server before anything is stored.

>>> s = EventSettings("sheepshead", 5, rounds=3, hands=2, duplicate=True).checked()
>>> s.capacity, s.reseat.value
(50, 'standings')
>>> EventSettings("sheepshead", 4, rounds=3, hands=2).checked()
Traceback (most recent call last):
...
server.rooms.refusal.Refusal: ('bad_event', 'sheepshead is played by 5 players, not 4')
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum

from protocol.errors import ErrorCode
from protocol.messages import GameName, GameOptions
from server.rooms.refusal import Refusal
from server.rules.registry import game_spec

#: Tables an event seats at most (a club night: ten to thirty people at tables of five).
MAX_TABLES = 10
#: Rounds an event plays at most.
MAX_ROUNDS = 10
#: Hands (Shithead: games) a round plays at most: a Sheepshead match is ten hands (SS-9.1).
MAX_HANDS = 10
#: How far ahead a start time may be set (seconds: a week; an event waits in the store).
MAX_START_AHEAD = 7 * 24 * 3600.0


class Reseat(StrEnum):
    """How the players of round 2 and later are seated (round 1 is drawn from the event's
    committed seed)."""

    #: By standings: the leaders together at table 1, the next ones at table 2, ...
    STANDINGS = "standings"
    #: So that everyone meets as many others as possible (the fewest pairs seated again).
    ROTATION = "rotation"


@dataclass(frozen=True, slots=True)
class EventSettings:
    """An event's fixed settings (the host's choices)."""

    game: GameName
    table_size: int
    rounds: int
    hands: int
    duplicate: bool = False
    reseat: Reseat = Reseat.STANDINGS
    options: GameOptions | None = None
    #: Tables the event seats at most (the server's bound, at most :data:`MAX_TABLES`).
    max_tables: int = MAX_TABLES
    #: Its tables' games move ratings (the book's rules only: docs/ratings.md).
    rated: bool = False
    #: When it starts by itself (Unix seconds; ``None``: when the host starts it).
    start_at: float | None = None
    #: The house rules as the game's model (set by :meth:`checked`).
    rules: GameOptions | None = field(default=None, compare=False)

    @property
    def capacity(self) -> int:
        """People the event takes at most."""
        return self.table_size * self.max_tables

    def checked(self) -> EventSettings:
        """These settings with the house rules read as the game's own model.

        Raises:
            Refusal: ``bad_event`` (a table size the game is not played with, rounds or hands
                out of bounds, another game's options); ``rated_not_allowed`` (rated with
                house rules).
        """
        try:
            spec = game_spec(self.game)
            spec.check_players(self.table_size)
            rules = spec.check_options(self.options)
        except ValueError as exc:
            raise Refusal(ErrorCode.BAD_EVENT, str(exc)) from None
        for name, value, top in (
            ("rounds", self.rounds, MAX_ROUNDS),
            ("hands a round", self.hands, MAX_HANDS),
            ("tables", self.max_tables, MAX_TABLES),
        ):
            if type(value) is not int or not 1 <= value <= top:
                raise Refusal(ErrorCode.BAD_EVENT, f"{name}: 1 to {top}, not {value}")
        if self.rated and rules != spec.options():
            why = "a rated event plays the book's rules only"
            raise Refusal(ErrorCode.RATED_NOT_ALLOWED, why)
        return replace(self, reseat=Reseat(self.reseat), rules=rules)


@dataclass(frozen=True, slots=True)
class EventLimits:
    """What a public server lets strangers open (``cardroom serve`` flags; refused:
    ``too_many_events``)."""

    events_per_minute: float = 2.0  # events one address may create a minute, on average...
    events_burst: float = 5.0  # ...and at once
    max_events: int = 100  # events open at once that this process created
    max_tables: int = MAX_TABLES  # tables an event seats at most (at most MAX_TABLES)


def check_start(start_at: float | None, now: float) -> None:
    """Refuse a start time that is past or too far ahead (``None``: the host starts it).

    >>> check_start(None, 0.0); check_start(60.0, 0.0)
    >>> check_start(-1.0, 0.0)
    Traceback (most recent call last):
    ...
    server.rooms.refusal.Refusal: ('bad_event', 'the start time must be within a week from now')

    Raises:
        Refusal: ``bad_event``.
    """
    if start_at is not None and not now < start_at <= now + MAX_START_AHEAD:
        raise Refusal(ErrorCode.BAD_EVENT, "the start time must be within a week from now")
