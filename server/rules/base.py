"""The interface every game implements, and the values that cross it.

A game is a mutable state object, in the manner of python-chess's ``Board`` and OpenSpiel's
``State``: create it from a seat count, a dealer seat, options and a seed (or an explicit deck,
top card first), ask it for a seat's legal actions, apply one, and read the events it produced,
a seat's (or a spectator's) view, and the outcome once the game is over.

>>> from server.rules.shithead import Shithead
>>> game = Shithead.new(4, dealer=0, seed=7)
>>> game.phase
'swap'
>>> for seat in range(4):
...     _ = game.apply(seat, Action.from_str("ready"))
>>> game.phase
'play'
>>> seat = game.to_act()[0]
>>> action = game.legal_actions(seat)[0]
>>> events = game.apply(seat, action)
>>> events[0].kind
'played'

Refusals raise :class:`IllegalAction` (the only exception a caller's bad input produces) with a
stable machine-readable ``code`` and a human ``message``; a refused action changes nothing.

Exceptions::

    RulesError                  root of everything the rules core raises
     └── IllegalAction          an action refused: code, message, seat, action, phase

Speed: :meth:`Game.apply` is the checked path used by the server; it mutates the state in place
(no per-action copies). Search takes :meth:`Game.clone` once per simulation and plays on the copy.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Any, ClassVar, NamedTuple, TypeVar

from protocol.cards import CardError, card_codes, parse_card, parse_cards
from protocol.errors import ErrorCode
from protocol.views import (
    ActionWire,
    EventData,
    EventWire,
    SheepsheadOwnView,
    SheepsheadSharedView,
    ShitheadOwnView,
    ShitheadSharedView,
    View,
)
from server.rules.records import DealRecord

G = TypeVar("G", bound="Game")
#: The part of a view the same for every seat, and the part that is one seat's own.
SharedView = ShitheadSharedView | SheepsheadSharedView
OwnView = ShitheadOwnView | SheepsheadOwnView


class RulesError(Exception):
    """Root of every exception raised by the rules core."""


class IllegalAction(RulesError):
    """An action the rules refuse. ``code`` is stable and machine-readable; ``message`` is for
    people. The state that refused it is unchanged."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        seat: int | None = None,
        action: Action | None = None,
        phase: str | None = None,
    ) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message
        self.seat = seat
        self.action = action
        self.phase = phase

    def __str__(self) -> str:
        where = []
        if self.seat is not None:
            where.append(f"seat {self.seat}")
        if self.phase is not None:
            where.append(f"phase {self.phase}")
        if self.action is not None:
            where.append(f"action {self.action.to_str()!r}")
        suffix = f" ({', '.join(where)})" if where else ""
        return f"{self.code}: {self.message}{suffix}"


class Action(NamedTuple):
    """One move: a ``kind`` word, the cards it names, and a face-down ``slot`` where one matters.

    The string form round-trips: ``kind`` then card codes, then ``#slot`` if any.

    >>> a = Action.from_str("play 7D 7S")
    >>> a
    Action.from_str('play 7D 7S')
    >>> a.to_json()
    {'kind': 'play', 'cards': ['7D', '7S']}
    >>> Action.from_json({"kind": "flip", "slot": 2}).to_str()
    'flip #2'
    """

    kind: str
    cards: tuple[int, ...] = ()
    slot: int = -1

    def to_str(self) -> str:
        parts = [self.kind, *card_codes(self.cards)]
        if self.slot >= 0:
            parts.append(f"#{self.slot}")
        return " ".join(parts)

    def __repr__(self) -> str:
        return f"Action.from_str({self.to_str()!r})"

    def to_json(self) -> ActionWire:
        out: ActionWire = {"kind": self.kind}
        if self.cards:
            out["cards"] = card_codes(self.cards)
        if self.slot >= 0:
            out["slot"] = self.slot
        return out

    @classmethod
    def from_str(cls, text: str) -> Action:
        """Parse ``"play 7D 7S"``, ``"flip #1"``, ``"ready"``; raise ``malformed_action``."""
        words = text.split()
        if not words:
            raise IllegalAction(ErrorCode.MALFORMED_ACTION, "an action needs a kind")
        slot = -1
        codes = []
        for word in words[1:]:
            if word.startswith("#"):
                slot = _slot(word[1:])
            else:
                codes.append(word)
        return cls(words[0].lower(), _cards(codes), slot)

    @classmethod
    def from_json(cls, data: object) -> Action:
        """Build an action from its JSON form; raise ``malformed_action`` on anything else."""
        if not isinstance(data, Mapping):
            raise IllegalAction(ErrorCode.MALFORMED_ACTION, "an action is an object with a 'kind'")
        kind = data.get("kind")
        if not isinstance(kind, str) or not kind:
            raise IllegalAction(ErrorCode.MALFORMED_ACTION, "an action needs a string 'kind'")
        extra = set(data) - {"kind", "cards", "slot"}
        if extra:
            raise IllegalAction(
                ErrorCode.MALFORMED_ACTION, f"unknown action fields: {sorted(extra)}"
            )
        cards = data.get("cards", [])
        if not isinstance(cards, Sequence) or isinstance(cards, str):
            raise IllegalAction(ErrorCode.MALFORMED_ACTION, "'cards' is a list of card codes")
        slot = data.get("slot", -1)
        if isinstance(slot, bool) or not isinstance(slot, int):
            raise IllegalAction(ErrorCode.MALFORMED_ACTION, "'slot' is an integer")
        if slot != -1 and slot < 0:
            raise IllegalAction(ErrorCode.MALFORMED_ACTION, "'slot' is not negative")
        return cls(kind, _cards(cards), slot)


def _cards(codes: Sequence[object]) -> tuple[int, ...]:
    try:
        return tuple(parse_cards(codes))
    except CardError as exc:
        raise IllegalAction(ErrorCode.MALFORMED_ACTION, str(exc)) from None


# ``object``: it checks every entry itself (a compiled build would refuse a wrong type first)
def parse_deck(deck: Sequence[object], cards: Sequence[int], game: str) -> list[int]:
    """An explicit deck (card codes or integers, top first) as integers, checked to hold each
    of ``cards`` exactly once.

    >>> parse_deck(["7D", 5], [5, 21], "test")
    [21, 5]
    >>> parse_deck(["7D", "7d"], [5, 21], "test")
    Traceback (most recent call last):
    ValueError: a test deck holds each of its 2 cards once: 2 given; missing 3D; twice 7D
    """
    if isinstance(deck, str | bytes):
        raise ValueError(f"a {game} deck is a list of card codes, not one string")
    out: list[int] = []
    for i, c in enumerate(deck):
        if isinstance(c, bool) or not isinstance(c, int | str):
            raise ValueError(f"deck position {i}: {c!r} is not a card code like '7D'")
        if isinstance(c, int):
            if not 0 <= c < 52:
                raise ValueError(f"deck position {i}: no card integer {c} (0..51)")
            out.append(c)
            continue
        try:
            out.append(parse_card(c))
        except CardError as exc:
            raise ValueError(f"deck position {i}: {exc}") from None
    if len(out) != len(cards) or set(out) != set(cards):
        wanted = set(cards)
        problems = [f"{len(out)} given"]
        missing = [c for c in cards if c not in out]
        if missing:
            problems.append("missing " + " ".join(card_codes(missing)))
        twice = sorted({c for c in out if out.count(c) > 1})
        if twice:
            problems.append("twice " + " ".join(card_codes(twice)))
        foreign = [c for c in out if c not in wanted]
        if foreign:
            problems.append("not in this deck " + " ".join(card_codes(foreign)))
        raise ValueError(
            f"a {game} deck holds each of its {len(cards)} cards once: {'; '.join(problems)}"
        )
    return out


def frozen_reduce(value: Any) -> tuple[Any, tuple[object, ...]]:
    """How ``copy`` and ``pickle`` rebuild a frozen dataclass of the rules: its class called
    with its fields, in order (a ``__reduce__``). Compiled by mypyc, such a class refuses the
    field-by-field assignment they use otherwise (``FrozenInstanceError``)."""
    return type(value), tuple(getattr(value, f.name) for f in fields(value))


def _slot(text: str) -> int:
    if not text.isdigit():
        raise IllegalAction(ErrorCode.MALFORMED_ACTION, f"bad slot {text!r}: expected #0, #1, …")
    return int(text)


class Event(NamedTuple):
    """Something that happened, public to everyone at the table (events never carry hidden cards).

    ``data`` holds small game-specific extras (counts, reasons, scores).
    """

    kind: str
    seat: int | None = None
    cards: tuple[int, ...] = ()
    data: EventData | None = None

    def to_json(self) -> EventWire:
        out: EventWire = {"kind": self.kind}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.cards:
            out["cards"] = card_codes(self.cards)
        if self.data:
            out = {**out, **self.data}
        return out


class Game(ABC):
    """A game in progress. Subclasses: :class:`~server.rules.shithead.Shithead`,
    :class:`~server.rules.sheepshead.Sheepshead`.

    Seats are numbered ``0 .. num_players - 1`` clockwise; "left" is the next seat clockwise.

    Conventions both games follow: the state lives in private attributes (``__slots__``; the
    phase as a ``Phase`` enum), read through public properties and methods; :meth:`clone` copies
    field by field; every refusal is built by :meth:`_refuse`.
    """

    __slots__ = ()

    #: Short name used on the wire and in the CLI.
    name: ClassVar[str]
    #: Seat counts this game can be played with.
    seat_counts: ClassVar[tuple[int, ...]]

    num_players: int
    dealer: int

    @classmethod
    @abstractmethod
    def new(
        cls: type[G],
        num_players: int,
        dealer: int = 0,
        *,
        seed: int | None = None,
        deck: Sequence[int | str] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> G:
        """Deal a new game from ``seed`` or from an explicit ``deck`` (top card first), given
        as card codes (``"7D"``) or card integers.

        Raises:
            ValueError: a seat count, dealer, deck or option the game does not have.
        """

    @property
    @abstractmethod
    def phase(self) -> str:
        """The current phase's name (``"over"`` once the game has ended)."""

    @abstractmethod
    def to_act(self) -> tuple[int, ...]:
        """Seats that may act now (several during a simultaneous phase, none once over)."""

    def simultaneous(self) -> bool:
        """Whether several seats may act now, in any order (Shithead's swap phase)."""
        return len(self.to_act()) > 1

    @abstractmethod
    def legal_actions(self, seat: int) -> list[Action]:
        """The legal actions of ``seat`` now, cheaply, for bots and search. Each game's docstring
        says where this is one representative per choice (Shithead: one play per rank and
        count, one swap per pair of ranks, one face-up card per rank for SH-5.2's pick-up) rather
        than every accepted action; :meth:`is_legal` answers for any one action, and
        :meth:`view` lists every choice exactly."""

    def is_legal(self, seat: int, action: Action) -> bool:
        """Whether :meth:`apply` would accept ``action`` from ``seat`` now (nothing changes)."""
        try:
            self.clone().apply(seat, action)
        except IllegalAction:
            return False
        return True

    @abstractmethod
    def apply(self, seat: int, action: Action) -> list[Event]:
        """Check and apply ``action`` for ``seat``; return the events it produced.

        Raises:
            IllegalAction: the action is refused; the state is unchanged.
        """

    @abstractmethod
    def is_over(self) -> bool:
        """Whether the game has ended."""

    @abstractmethod
    def outcome(self) -> Any:
        """The result once over (a game-specific value with ``to_json()``), else ``None``."""

    @abstractmethod
    def view(self, seat: int | None, shared: Mapping[str, object] | None = None) -> View:
        """What ``seat`` may see (``None``: a spectator), as plain JSON-able data, including that
        seat's legal actions. The only road from state to the wire.

        ``shared``: :meth:`shared_view` of this same state (or values standing for its fields,
        such as their serialised text), so that a state's views for several seats build the
        part they have in common once; without it the view is built whole and owns its lists.
        """

    @abstractmethod
    def shared_view(self) -> SharedView:
        """The fields of :meth:`view` that are the same for every seat and spectator."""

    @abstractmethod
    def own_view(self, seat: int | None) -> OwnView:
        """The rest of :meth:`view` for ``seat``: the view is :meth:`shared_view`'s fields
        followed by these, in this order (so a state's frames can write its shared part
        serialised once, then each recipient's own fields)."""

    def _refuse(
        self, code: ErrorCode, message: str, seat: int, action: Action | None
    ) -> IllegalAction:
        """The refusal of ``action`` by ``seat`` in the current phase (raise it)."""
        return IllegalAction(code, message, seat=seat, action=action, phase=self.phase)

    @abstractmethod
    def clone(self: G) -> G:
        """An independent copy, for search."""

    @property
    @abstractmethod
    def log(self) -> list[tuple[int, Action]]:
        """Every accepted ``(seat, action)`` in order; with the deal it rebuilds the game."""

    @abstractmethod
    def deal_record(self) -> DealRecord:
        """What :meth:`new` needs to deal this game again: players, dealer, deck, options."""

    @classmethod
    def from_deal_record(cls: type[G], record: DealRecord) -> G:
        """Deal again the game that :meth:`deal_record` describes."""
        return dealt_again(cls, record)

    @classmethod
    def replay(cls: type[G], record: DealRecord, log: Sequence[tuple[int, Action]]) -> G:
        """Rebuild a game from its :meth:`deal_record` and its action log."""
        game = cls.from_deal_record(record)
        for seat, action in log:
            game.apply(seat, action)
        return game


def dealt_again(game: type[G], record: DealRecord) -> G:
    """:meth:`Game.from_deal_record` of ``game``, for an override that adds to it (compiled by
    mypyc, ``super()`` in a classmethod looks the method up on the metaclass, not the class)."""
    return game.new(
        record["players"],
        record["dealer"],
        deck=record["deck"],
        options=record.get("options"),
    )
