"""Shithead (Palace) for 2–5 players, exactly as docs/rules.md SH-1 … SH-7 (the house rules of
SH-7 are the game's :class:`~protocol.messages.ShitheadOptions`, all off by default).

>>> from server.rules.base import Action
>>> from protocol.cards import parse_cards
>>> game = Shithead.new(2, dealer=1, seed=3)
>>> game.phase, game.to_act()
('swap', (0, 1))
>>> _ = game.apply(0, Action.from_str("ready")); _ = game.apply(1, Action.from_str("ready"))
>>> game.phase
'play'
>>> seat = game.turn
>>> [e.kind for e in game.apply(seat, game.legal_actions(seat)[0])][:2]
['played', 'drew']

The deal (SH-2.2) takes an explicit deck top card first: one card at a time clockwise from the
dealer's left, three rounds face down (slots 0, 1, 2), three rounds face up, three rounds into the
hand; the rest is the stock, drawn from the top.

Actions. Suits never matter, so ``legal_actions`` (cheap, for bots and search) lists one
representative per choice: one play per rank and count, one swap per pair of ranks, one face-up
card per rank for an SH-5.2 pick-up; ``apply`` accepts any cards of that rank the seat holds.
:meth:`Shithead.exact_legal_actions` and :meth:`Shithead.play_sets` (what the view shows) spell
out every choice, and :meth:`~server.rules.base.Game.is_legal` answers for any one action:

- ``swap H U``: swap hand card H with face-up card U (swap phase, SH-2.3);
- ``ready``: end your swap phase;
- ``play C [C…]``: one or several cards of one rank, from the hand or (SH-5.1) the face-up cards;
- ``pickup``: take the pile (SH-4.6); ``pickup U`` first adds face-up card U (SH-5.2);
- ``flip #S``: turn face-down slot S (SH-5.4).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from protocol import views as v
from protocol.cards import EIGHT, SEVEN, TEN, THREE, TWO, card_code, card_codes, parse_cards
from protocol.errors import ErrorCode
from protocol.messages import ShitheadOptions
from server.rules.base import (
    Action,
    Event,
    IllegalAction,
    dealt_again,
    frozen_reduce,
    parse_deck,
)
from server.rules.records import DealRecord, ShitheadPosition
from server.rules.shithead_deal import deal
from server.rules.shithead_view import Table, build_view

HAND, FACE_UP, FACE_DOWN = 0, 1, 2
SOURCE_NAMES: tuple[v.Source, v.Source, v.Source] = ("hand", "face_up", "face_down")
_new_event = tuple.__new__  # builds an Event without the NamedTuple constructor (hot path)
#: SH-6.6: a game ends after this many play-phase actions (plays, pick-ups, turned cards).
MAX_PLAY_ACTIONS = 1000


class Phase(StrEnum):
    SWAP = "swap"
    PLAY = "play"
    OVER = "over"


#: Each phase's name on the wire (its value, typed for the views).
PHASE_NAMES: dict[Phase, v.ShitheadPhase] = {
    Phase.SWAP: "swap",
    Phase.PLAY: "play",
    Phase.OVER: "over",
}


READY = Action("ready")
PICKUP = Action("pickup")
_FLIPS = tuple(Action("flip", (), i) for i in range(3))
_PICKUP_WITH = tuple(Action("pickup", (c,)) for c in range(52))
# Play order: ordinary ranks low to high (SH-1.1) as 0..10, then the 2 as 11 and the 10 as 12.
# What may go on the pile now is a bit set of play orders, "allowed": every order at least the
# card to beat's (SH-4.1), all of them on an empty pile or a 2 (SH-1.3); as 2s and 10s order
# above every ordinary rank they are always in it (SH-4.2). The house rules change the set:
# a 7 allows 3 to 7, 2 and 10 (SH-7.2); glass 3s are always allowed and the card to beat is
# the topmost that is not a 3 (SH-7.4). A card goes on the pile when its order's bit is set.
_ORDER_OF_RANK = (11, 0, 1, 2, 3, 4, 5, 6, 12, 7, 8, 9, 10)
_RANK_OF_ORDER = tuple(_ORDER_OF_RANK.index(o) for o in range(13))
_ORDER = tuple(_ORDER_OF_RANK[c >> 2] for c in range(52))  # by card
_ALL = (1 << 13) - 1
_AT_LEAST = tuple(_ALL & ~((1 << o) - 1) for o in range(13))  # allowed on an order o
# allowed once c is the card to beat
_ALLOWED = tuple(_ALL if c >> 2 == TWO else _AT_LEAST[_ORDER[c]] for c in range(52))
_GLASS = 1 << _ORDER_OF_RANK[THREE]
_UNDER_SEVEN = sum(1 << _ORDER_OF_RANK[r] for r in (*range(THREE, SEVEN + 1), TWO, TEN))  # SH-7.2
_BIT = tuple(1 << (c & 3) for c in range(52))
_LOWEST_SUIT = tuple((m & -m).bit_length() - 1 for m in range(16))
# For each play order and set of suits held (a 4-bit mask): the plays of 1, 2, … of them.
_PREFIX_PLAYS: tuple[tuple[Action, ...], ...] = tuple(
    tuple(
        Action("play", tuple(_RANK_OF_ORDER[o] * 4 + s for s in range(4) if m >> s & 1)[:k])
        for k in range(1, m.bit_count() + 1)
    )
    for o in range(13)
    for m in range(16)
)


class Ending(StrEnum):
    """Why a game ended."""

    LAST_PLAYER = "last_player"  # SH-6.4: one player still holds cards
    LENGTH_CAP = "length_cap"  # SH-6.6: the play phase reached MAX_PLAY_ACTIONS


@dataclass(frozen=True, slots=True)
class ShitheadOutcome:
    """The result of a finished game (SH-6.4, SH-6.6): one loser, no draw."""

    loser: int
    out_order: tuple[int, ...]
    num_players: int
    ended: Ending = Ending.LAST_PLAYER

    def __reduce__(self) -> tuple[Any, tuple[object, ...]]:
        return frozen_reduce(self)

    @property
    def scores(self) -> tuple[int, ...]:
        """Losses this game adds to each seat's series total (SH-6.5)."""
        return tuple(int(s == self.loser) for s in range(self.num_players))

    def to_json(self) -> v.ShitheadOutcome:
        return {
            "loser": self.loser,
            "out_order": list(self.out_order),
            "losses": list(self.scores),
            "ended": self.ended.value,
        }


class Shithead(Table):
    """A game of Shithead. Mutable; :meth:`apply` checks, :meth:`clone` copies for search."""

    name = "shithead"
    seat_counts = (2, 3, 4, 5)

    __slots__ = (
        "_allowed",
        "_burned",
        "_deck",
        "_down_left",
        "_face_down",
        "_face_up",
        "_glass",
        "_hands",
        "_known",
        "_log",
        "_loser",
        "_options",
        "_origin",
        "_out",
        "_phase",
        "_pile",
        "_plays",
        "_ready",
        "_seven",
        "_skips",
        "_source",
        "_starter",
        "_stock",
        "_turn",
        "dealer",
        "num_players",
    )

    def __init__(self, rules: ShitheadOptions | None = None) -> None:
        """A game before its deal, under the house rules ``rules``: use :meth:`new` or
        :meth:`from_position`, which deal. Without ``rules``, a blank that :meth:`clone` fills
        field by field."""
        if rules is None:
            return
        self.num_players = 0
        self.dealer = 0
        self._hands: list[list[int]] = []
        self._face_up: list[list[int]] = []
        self._face_down: list[list[int | None]] = []
        self._down_left: list[int] = []  # face-down cards each seat still has
        self._known: list[list[int]] = []  # public cards known to be in each hand
        self._stock: list[int] = []  # top of the stock is the END of the list
        self._pile: list[int] = []
        self._burned: list[int] = []
        self._ready: list[bool] = []
        self._out: list[int] = []  # seats in the order they went out
        self._turn = -1
        self._starter = -1
        self._phase = Phase.SWAP
        self._source = HAND
        self._allowed = _ALL  # orders that may go on the pile now, as bits
        self._set_options(rules)  # and the house rules read on the hot path
        self._deck: tuple[int, ...] = ()
        self._log: list[tuple[int, Action]] = []
        self._origin: ShitheadPosition | None = (
            None  # the starting position, for games not dealt by new()
        )
        self._plays = 0  # play-phase actions so far (SH-6.6)
        self._loser = -1  # set when the game ends by SH-6.6

    # ------------------------------------------------------------------ creation

    @classmethod
    def new(
        cls,
        num_players: int,
        dealer: int = 0,
        *,
        seed: int | None = None,
        deck: Sequence[int | str] | None = None,
        options: ShitheadOptions | Mapping[str, Any] | None = None,
    ) -> Shithead:
        """Deal a game (SH-2.2) from ``seed`` or an explicit ``deck`` (the 52 cards as codes or
        integers, top first), with the house rules ``options`` (SH-7; a model or its dump).

        >>> Shithead.new(2, seed=1, options={"eight_skips": True}).options.eight_skips
        True

        Raises:
            ValueError: a seat count, dealer, deck or option Shithead does not have.
        """
        if num_players not in cls.seat_counts:
            raise ValueError(f"Shithead is played by 2 to 5 players, not {num_players}")
        if not 0 <= dealer < num_players:
            raise ValueError(f"dealer {dealer} is not a seat of {num_players}")
        rules = house_rules(options)
        if deck is None:
            cards = list(range(52))
            random.Random(seed).shuffle(cards)
        else:
            cards = parse_deck(deck, range(52), "shithead")
        g = cls(rules)
        n = g.num_players = num_players
        g.dealer = dealer
        g._deck = tuple(cards)
        dealt = deal(cards, n, dealer, glass=rules.three_invisible)
        face_down: list[list[int | None]] = [list(d) for d in dealt.face_down]
        g._face_down = face_down
        g._face_up = dealt.face_up
        g._hands = dealt.hands
        g._known = [[] for _ in range(n)]
        g._down_left = [3] * n
        g._stock = dealt.stock
        g._ready = [False] * n
        g._starter = dealt.starter
        return g

    @classmethod
    def from_position(
        cls,
        *,
        hands: Sequence[str],
        face_up: Sequence[str],
        face_down: Sequence[str],
        turn: int,
        pile: str = "",
        stock: str = "",
        burned: str = "",
        out: Sequence[int] = (),
        known: Sequence[str] | None = None,
        dealer: int = 0,
        plays: int = 0,
        options: ShitheadOptions | Mapping[str, Any] | None = None,
    ) -> Shithead:
        """A game in its play phase at a given position, for tests, puzzles and search.

        Each per-seat entry is a string of card codes (``face_down`` uses ``-`` for an empty
        slot); ``pile`` is bottom first, ``stock`` top first. Cards named nowhere count as burned
        unless ``burned`` is given, in which case all 52 cards must be placed exactly once.
        ``plays``: play-phase actions already made (SH-6.6 ends the game at
        :data:`MAX_PLAY_ACTIONS`). ``options``: the house rules (SH-7).

        >>> g = Shithead.from_position(hands=["", "5C"], face_up=["", ""],
        ...                            face_down=["4C", "- 9D"], pile="QH", turn=0)
        >>> g.source, [a.to_str() for a in g.legal_actions(0)]
        ('face_down', ['flip #0'])
        """
        n = len(hands)
        g = cls(house_rules(options))
        g.num_players = n
        g.dealer = dealer
        g._hands = [parse_cards(h) for h in hands]
        g._face_up = [parse_cards(u) for u in face_up]
        g._face_down = [
            [None if w == "-" else parse_cards(w)[0] for w in d.split()] for d in face_down
        ]
        g._down_left = [sum(c is not None for c in d) for d in g._face_down]
        g._known = [parse_cards(k) for k in known] if known is not None else [[] for _ in range(n)]
        g._stock = parse_cards(stock)[::-1]
        g._pile = parse_cards(pile)
        placed = [*g._stock, *g._pile]
        for s in range(n):
            placed += g._hands[s] + g._face_up[s] + [c for c in g._face_down[s] if c is not None]
        if len(set(placed)) != len(placed):
            raise ValueError("a card is placed twice")
        g._burned = parse_cards(burned) if burned else [c for c in range(52) if c not in placed]
        if sorted(placed + g._burned) != list(range(52)):
            raise ValueError("with 'burned' given, every card must be placed exactly once")
        g._ready = [True] * n
        g._out = list(out)
        g._starter = turn
        g._phase = Phase.PLAY
        g._plays = plays
        g._origin = g.snapshot()
        g._start_turn(turn)
        return g

    # Read API for views, bots, sims and tests. Lists returned are the state's own: read, never
    # change them (the game checks nothing done behind its back).

    @property
    def hands(self) -> list[list[int]]:
        """Each seat's hand (hidden information)."""
        return self._hands

    @property
    def face_up(self) -> list[list[int]]:
        """Each seat's face-up cards."""
        return self._face_up

    @property
    def face_down(self) -> list[list[int | None]]:
        """Each seat's face-down slots 0-2 (``None``: played); hidden information."""
        return self._face_down

    @property
    def known(self) -> list[list[int]]:
        """Cards everyone knows to be in each hand (picked up from the pile or the table)."""
        return self._known

    @property
    def stock(self) -> list[int]:
        """The stock; its top is the END of the list (hidden information)."""
        return self._stock

    @property
    def pile(self) -> list[int]:
        """The pile, bottom first."""
        return self._pile

    @property
    def burned(self) -> list[int]:
        """Cards burned so far (SH-4.3, SH-4.4)."""
        return self._burned

    @property
    def ready(self) -> list[bool]:
        """Which seats declared themselves ready in the swap phase."""
        return self._ready

    @property
    def out(self) -> list[int]:
        """Seats that went out, in order."""
        return self._out

    @property
    def turn(self) -> int:
        """The seat to play in the play phase, else -1."""
        return self._turn

    @property
    def starter(self) -> int:
        """The seat that starts the play phase (SH-3)."""
        return self._starter

    @property
    def options(self) -> ShitheadOptions:
        """The house rules in force (SH-7)."""
        return self._options

    @property
    def to_beat(self) -> int | None:
        """The card to beat (SH-4.1): the top of the pile, or with glass 3s the topmost card
        that is not a 3 (SH-7.4); ``None`` on an empty pile (or only 3s)."""
        pile = self._pile
        i = len(pile) - 1
        if self._glass:
            while i >= 0 and pile[i] >> 2 == THREE:
                i -= 1
        return pile[i] if i >= 0 else None

    def _set_options(self, rules: ShitheadOptions) -> None:
        self._options = rules
        self._seven = rules.seven_lower
        self._skips = rules.eight_skips
        self._glass = rules.three_invisible

    # ------------------------------------------------------------------ queries

    @property
    def phase(self) -> v.ShitheadPhase:
        return PHASE_NAMES[self._phase]

    @property
    def log(self) -> list[tuple[int, Action]]:
        return self._log

    def is_over(self) -> bool:
        return self._phase is Phase.OVER

    def to_act(self) -> tuple[int, ...]:
        if self._phase is Phase.PLAY:
            return (self._turn,)
        if self._phase is Phase.SWAP:
            return tuple(s for s in range(self.num_players) if not self._ready[s])
        return ()

    def outcome(self) -> ShitheadOutcome | None:
        if self._phase is not Phase.OVER:
            return None
        if self._loser >= 0:  # SH-6.6
            return ShitheadOutcome(
                self._loser, tuple(self._out), self.num_players, Ending.LENGTH_CAP
            )
        loser = next(s for s in range(self.num_players) if s not in self._out)
        return ShitheadOutcome(loser, tuple(self._out), self.num_players)

    @property
    def source(self) -> v.Source:
        """Where the seat to play must play from this turn (SH-4.8, SH-5.1, SH-5.4)."""
        return SOURCE_NAMES[self._source]

    def holds_cards(self, seat: int) -> bool:
        return bool(self._hands[seat] or self._face_up[seat] or self._down_left[seat])

    def legal_actions(self, seat: int) -> list[Action]:
        if self._phase is Phase.PLAY:
            if seat != self._turn:
                return []
            return self._legal_plays()
        if self._phase is Phase.SWAP and not self._ready[seat]:
            return self._legal_swaps(seat)
        return []

    def _legal_swaps(self, seat: int) -> list[Action]:
        actions = [READY]
        seen: set[tuple[int, int]] = set()
        for h in self._hands[seat]:
            for u in self._face_up[seat]:
                key = (h >> 2, u >> 2)
                if key[0] != key[1] and key not in seen:
                    seen.add(key)
                    actions.append(Action("swap", (h, u)))
        return actions

    def _legal_plays(self) -> list[Action]:
        seat = self._turn
        src = self._source
        if src == FACE_DOWN:
            return [_FLIPS[i] for i, c in enumerate(self._face_down[seat]) if c is not None]
        cards = self._hands[seat] if src == HAND else self._face_up[seat]
        allowed = self._allowed
        masks: dict[int, int] = {}  # play order -> suits held, as bits
        for c in cards:
            o = _ORDER[c]
            masks[o] = masks.get(o, 0) | _BIT[c]
        actions: list[Action] = []
        for o in sorted(masks):
            if allowed >> o & 1:
                actions += _PREFIX_PLAYS[o * 16 + masks[o]]
        if self._pile:
            if src == FACE_UP and actions:
                # SH-5.2: picking up instead of a legal face-up play costs one face-up card.
                for o, m in masks.items():
                    actions.append(_PICKUP_WITH[_RANK_OF_ORDER[o] * 4 + _LOWEST_SUIT[m]])
            else:
                actions.append(PICKUP)
        return actions

    def play_sets(self, seat: int) -> list[list[int]]:
        """The cards ``seat`` may play now, one list per rank (play order low to high, suits
        in order); any non-empty subset of one list is a legal ``play`` (SH-4.1, SH-5.1).
        Empty when the seat cannot play cards now (not its turn, swap phase, face-down cards).
        """
        if self._phase is not Phase.PLAY or seat != self._turn or self._source == FACE_DOWN:
            return []
        cards = self._hands[seat] if self._source == HAND else self._face_up[seat]
        allowed = self._allowed
        by_order: dict[int, list[int]] = {}
        for c in cards:
            if allowed >> _ORDER[c] & 1:
                by_order.setdefault(_ORDER[c], []).append(c)
        return [sorted(by_order[o]) for o in sorted(by_order)]

    def exact_legal_actions(self, seat: int) -> list[Action]:
        """:meth:`legal_actions` with every choice spelled out except multi-card plays: every
        swap pair (SH-2.3), every face-up card a pick-up may add (SH-5.2), every flip slot.
        Plays stay one representative per rank and count; :meth:`play_sets` lists them all.
        Slower than :meth:`legal_actions`: for views, not for search."""
        if self._phase is Phase.SWAP:
            if self._ready[seat]:
                return []
            return [
                READY,
                *(Action("swap", (h, u)) for h in self._hands[seat] for u in self._face_up[seat]),
            ]
        actions = self.legal_actions(seat)
        if self._source == FACE_UP and self._pile and actions and actions[0].kind == "play":
            # SH-5.2: legal_actions lists one face-up card per rank; any of them may be added.
            actions = [a for a in actions if a.kind == "play"]
            actions += [_PICKUP_WITH[u] for u in sorted(self._face_up[seat])]
        return actions

    # ------------------------------------------------------------------ apply

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Check and apply ``action`` for ``seat``; see the module docstring for the kinds.

        Raises:
            IllegalAction: refused; the state is unchanged.
        """
        if not 0 <= seat < self.num_players:
            raise self._refuse(ErrorCode.BAD_SEAT, f"there is no seat {seat}", seat, action)
        kind = action.kind
        if self._phase is Phase.PLAY:
            if seat != self._turn:
                raise self._refuse(
                    ErrorCode.NOT_YOUR_TURN, f"it is seat {self._turn}'s turn", seat, action
                )
            if kind == "play":
                events = self._play(seat, action)
            elif kind == "pickup":
                events = self._pickup(seat, action)
            elif kind == "flip":
                events = self._flip(seat, action)
            elif kind in ("swap", "ready"):
                raise self._refuse(ErrorCode.WRONG_PHASE, "the swap phase is over", seat, action)
            else:
                raise self._refuse(
                    ErrorCode.UNKNOWN_ACTION, f"no action {kind!r} in Shithead", seat, action
                )
            self._plays += 1
            if self._plays >= MAX_PLAY_ACTIONS and self._phase is Phase.PLAY:
                self._end_by_length(events)
        elif self._phase is Phase.SWAP:
            if kind == "swap":
                events = self._swap(seat, action)
            elif kind == "ready":
                events = self._declare_ready(seat, action)
            elif kind in ("play", "pickup", "flip"):
                raise self._refuse(
                    ErrorCode.WRONG_PHASE, "play starts when every seat is ready", seat, action
                )
            else:
                raise self._refuse(
                    ErrorCode.UNKNOWN_ACTION, f"no action {kind!r} in Shithead", seat, action
                )
        else:
            raise self._refuse(ErrorCode.GAME_OVER, "the game is over", seat, action)
        self._log.append((seat, action))
        return events

    # swap phase (SH-2.3)

    def _swap(self, seat: int, action: Action) -> list[Event]:
        if self._ready[seat]:
            raise self._refuse(ErrorCode.ALREADY_READY, "you declared yourself ready", seat, action)
        if len(action.cards) != 2 or action.slot != -1:
            raise self._refuse(
                ErrorCode.MALFORMED_ACTION,
                "swap names a hand card then a face-up card",
                seat,
                action,
            )
        h, u = action.cards
        hand, up = self._hands[seat], self._face_up[seat]
        if h not in hand or u not in up:
            raise self._refuse(
                ErrorCode.CARDS_NOT_HELD,
                "swap a card of your hand with one of your face-up cards",
                seat,
                action,
            )
        hand[hand.index(h)] = u
        up[up.index(u)] = h
        known = self._known[seat]
        if h in known:
            known.remove(h)
        known.append(u)  # it lay face up: everyone saw it go into the hand
        return [Event("swapped", seat, (h, u))]

    def _declare_ready(self, seat: int, action: Action) -> list[Event]:
        if self._ready[seat]:
            raise self._refuse(ErrorCode.ALREADY_READY, "you declared yourself ready", seat, action)
        if action.cards or action.slot != -1:
            raise self._refuse(ErrorCode.MALFORMED_ACTION, "ready takes no cards", seat, action)
        self._ready[seat] = True
        events = [Event("ready", seat)]
        if all(self._ready):
            self._phase = Phase.PLAY
            self._start_turn(self._starter)
            events.append(Event("started", self._starter))
        return events

    # play phase (SH-4, SH-5)

    def _start_turn(self, seat: int) -> None:
        self._turn = seat
        if self._hands[seat]:
            self._source = HAND
        elif self._face_up[seat]:
            self._source = FACE_UP
        else:
            self._source = FACE_DOWN
        beat = self.to_beat if self._glass else self._pile[-1] if self._pile else None
        if beat is None:
            allowed = _ALL
        elif self._seven and beat >> 2 == SEVEN:
            allowed = _UNDER_SEVEN  # SH-7.2
        else:
            allowed = _ALLOWED[beat]
        self._allowed = allowed | _GLASS if self._glass else allowed  # SH-7.4

    def _play(self, seat: int, action: Action) -> list[Event]:
        cards = action.cards
        src = self._source
        held = self._hands[seat] if src == HAND else self._face_up[seat]
        # Fast check of the common case; _play_refusal says why when it fails.
        ok = False
        if cards and src != FACE_DOWN and action.slot == -1:
            rank = cards[0] >> 2
            if self._allowed >> _ORDER[cards[0]] & 1:
                if len(cards) == 1:
                    ok = cards[0] in held
                else:
                    ok = all(c >> 2 == rank and c in held for c in cards) and len(
                        set(cards)
                    ) == len(cards)
        if not ok:
            raise self._play_refusal(seat, action)
        for c in cards:
            held.remove(c)
        if src == HAND:
            known = self._known[seat]
            if known:
                for c in cards:
                    if c in known:
                        known.remove(c)
        self._pile.extend(cards)
        # a dict of its own (an Event's data is a dict; compiled, mypyc checks that it is one)
        events = [_new_event(Event, ("played", seat, cards, {"source": SOURCE_NAMES[src]}))]
        self._after_play(seat, rank, events)
        return events

    def _play_refusal(self, seat: int, action: Action) -> IllegalAction:
        """The reason a play is refused, most basic first."""
        cards = action.cards
        if not cards or action.slot != -1:
            return self._refuse(
                ErrorCode.MALFORMED_ACTION, "play names one or more cards", seat, action
            )
        rank = cards[0] >> 2
        if any(c >> 2 != rank for c in cards):
            return self._refuse(
                ErrorCode.MIXED_RANKS, "cards played together share one rank", seat, action
            )
        if len(set(cards)) != len(cards):
            return self._refuse(ErrorCode.MALFORMED_ACTION, "a card is named twice", seat, action)
        src = self._source
        if src == FACE_DOWN:
            return self._refuse(
                ErrorCode.MUST_FLIP, "turn over one of your face-down cards", seat, action
            )
        held = self._hands[seat] if src == HAND else self._face_up[seat]
        for c in cards:
            if c not in held:
                if src == HAND and c in self._face_up[seat]:
                    return self._refuse(
                        ErrorCode.MUST_PLAY_FROM_HAND,
                        "you began this turn with cards in hand: play from the hand",
                        seat,
                        action,
                    )
                return self._refuse(
                    ErrorCode.CARDS_NOT_HELD, f"you do not hold {card_code(c)} there", seat, action
                )
        beat = self.to_beat
        assert beat is not None  # an empty pile (or glass alone) takes anything
        why = (
            " (7 plays lower: a 3 to 7, a 2 or a 10)" if self._seven and beat >> 2 == SEVEN else ""
        )
        return self._refuse(
            ErrorCode.ILLEGAL_CARD,
            f"{card_code(cards[0])} does not go on {card_code(beat)}{why}",
            seat,
            action,
        )

    def _after_play(self, seat: int, rank: int, events: list[Event]) -> None:
        """SH-4.5 draw, then SH-4.3/4.4 burn, SH-6 going out, and the next turn."""
        hand = self._hands[seat]
        stock = self._stock
        if stock and len(hand) < 3:
            take = min(3 - len(hand), len(stock))
            for _ in range(take):
                hand.append(stock.pop())
            events.append(_new_event(Event, ("drew", seat, (), {"count": take})))
        pile = self._pile
        burn = ""
        if rank == TEN:
            burn = "ten"
        elif len(pile) >= 4 and (
            pile[-2] >> 2 == rank and pile[-3] >> 2 == rank and pile[-4] >> 2 == rank
        ):
            burn = "four"
        if burn:
            events.append(Event("burned", seat, (), {"count": len(pile), "reason": burn}))
            self._burned.extend(pile)
            pile.clear()
        if not (hand or self._face_up[seat] or self._down_left[seat]):
            self._go_out(seat, events)
            if self._phase is Phase.OVER:
                return
        elif burn:
            self._start_turn(seat)  # SH-4.3: the same player plays again
            return
        nxt = self._next_active(seat)
        if self._skips and rank == EIGHT and not burn:
            # SH-7.3: k eights skip the next k active players (round the table if need be)
            for _ in range(len(events[0].cards)):
                events.append(Event("skipped", nxt))
                nxt = self._next_active(nxt)
        self._start_turn(nxt)

    def _go_out(self, seat: int, events: list[Event]) -> None:
        self._out.append(seat)
        events.append(Event("went_out", seat, (), {"place": len(self._out)}))
        if len(self._out) == self.num_players - 1:
            self._phase = Phase.OVER
            self._turn = -1
            loser = next(s for s in range(self.num_players) if s not in self._out)
            events.append(
                Event("game_over", loser, (), {"loser": loser, "ended": Ending.LAST_PLAYER.value})
            )

    def _end_by_length(self, events: list[Event]) -> None:
        """SH-6.6: the loser is the active seat holding most cards, ties going to the first
        clockwise from the seat whose turn it would have been."""
        n = self.num_players
        order = [(self._turn + i) % n for i in range(n)]
        active = [s for s in order if s not in self._out]
        held = [len(self._hands[s]) + len(self._face_up[s]) + self._down_left[s] for s in active]
        loser = active[held.index(max(held))]
        self._loser = loser
        self._phase = Phase.OVER
        self._turn = -1
        events.append(
            Event("game_over", loser, (), {"loser": loser, "ended": Ending.LENGTH_CAP.value})
        )

    def _next_active(self, seat: int) -> int:
        n = self.num_players
        s = (seat + 1) % n
        while s in self._out:
            s = (s + 1) % n
        return s

    def _pickup(self, seat: int, action: Action) -> list[Event]:
        if action.slot != -1 or len(action.cards) > 1:
            raise self._refuse(
                ErrorCode.MALFORMED_ACTION, "pickup names at most one face-up card", seat, action
            )
        if self._source == FACE_DOWN:
            raise self._refuse(
                ErrorCode.MUST_FLIP,
                "with only face-down cards left you must turn one over",
                seat,
                action,
            )
        pile = self._pile
        if not pile:
            raise self._refuse(
                ErrorCode.EMPTY_PILE, "an empty pile cannot be picked up: play a card", seat, action
            )
        up = self._face_up[seat]
        must_add = self._source == FACE_UP and any(self._allowed >> _ORDER[c] & 1 for c in up)
        if must_add:
            if not action.cards:
                raise self._refuse(
                    ErrorCode.MUST_ADD_FACE_UP,
                    "a face-up card could be played: add one face-up card to the "
                    "pile before picking it up",
                    seat,
                    action,
                )
            added = action.cards[0]
            if added not in up:
                raise self._refuse(
                    ErrorCode.CARDS_NOT_HELD,
                    f"{card_code(added)} is not one of your face-up cards",
                    seat,
                    action,
                )
            up.remove(added)
            pile.append(added)
        elif action.cards:
            raise self._refuse(
                ErrorCode.UNEXPECTED_CARD, "this pick-up takes the pile alone", seat, action
            )
        taken = tuple(pile)
        self._hands[seat].extend(taken)
        self._known[seat].extend(taken)  # every card of the pile was face up (SH-5.4 reveals too)
        pile.clear()
        events = [_new_event(Event, ("picked_up", seat, taken, None))]
        self._start_turn(self._next_active(seat))
        return events

    def _flip(self, seat: int, action: Action) -> list[Event]:
        if self._source != FACE_DOWN:
            code = (
                ErrorCode.MUST_PLAY_FROM_HAND
                if self._source == HAND
                else ErrorCode.MUST_PLAY_FACE_UP
            )
            raise self._refuse(code, "face-down cards come last (SH-5.4)", seat, action)
        slot = action.slot
        down = self._face_down[seat]
        if action.cards or not 0 <= slot < len(down) or down[slot] is None:
            raise self._refuse(
                ErrorCode.BAD_SLOT, "choose one of your remaining face-down slots", seat, action
            )
        c = down[slot]
        assert c is not None
        down[slot] = None
        self._down_left[seat] -= 1
        rank = c >> 2
        self._pile.append(c)
        if self._allowed >> _ORDER[c] & 1:
            events = [Event("played", seat, (c,), {"source": "face_down", "slot": slot})]
            self._after_play(seat, rank, events)
            return events
        # SH-5.4, SH-6.2: an unplayable blind card goes into the hand with the whole pile.
        taken = tuple(self._pile)
        self._hands[seat].extend(taken)
        self._known[seat].extend(taken)
        self._pile.clear()
        events = [
            Event("flipped", seat, (c,), {"slot": slot, "legal": False}),
            Event("picked_up", seat, taken),
        ]
        self._start_turn(self._next_active(seat))
        return events

    # ------------------------------------------------------------------ views & copies

    def view(self, seat: int | None, shared: Mapping[str, object] | None = None) -> v.ShitheadView:
        """What ``seat`` sees (``None``: a spectator); see :mod:`server.rules.shithead_view`."""
        return build_view(self, seat, shared)

    def clone(self) -> Shithead:
        # no __init__ runs interpreted; compiled (mypyc), __new__ is Shithead(): a blank either way
        g = Shithead.__new__(Shithead)
        g.num_players = self.num_players
        g.dealer = self.dealer
        g._hands = [list(h) for h in self._hands]
        g._face_up = [list(u) for u in self._face_up]
        g._face_down = [list(d) for d in self._face_down]
        g._down_left = list(self._down_left)
        g._known = [list(k) for k in self._known]
        g._stock = list(self._stock)
        g._pile = list(self._pile)
        g._burned = list(self._burned)
        g._ready = list(self._ready)
        g._out = list(self._out)
        g._turn = self._turn
        g._starter = self._starter
        g._phase = self._phase
        g._source = self._source
        g._allowed = self._allowed
        g._options = self._options
        g._seven = self._seven
        g._skips = self._skips
        g._glass = self._glass
        g._deck = self._deck
        g._log = list(self._log)
        g._origin = self._origin
        g._plays = self._plays
        g._loser = self._loser
        return g

    def deal_record(self) -> DealRecord:
        # the house rules as set (defaults left out: a book game's record is as before SH-7)
        options: dict[str, object] = self._options.model_dump(exclude_defaults=True)
        if self._origin is not None:
            record: DealRecord = {
                "game": self.name,
                "players": self.num_players,
                "dealer": self.dealer,
                "position": self._origin,
            }
            if options:  # a position's record is as before house rules without them
                record["options"] = options
            return record
        return {
            "game": self.name,
            "players": self.num_players,
            "dealer": self.dealer,
            "deck": card_codes(self._deck),
            "options": options,
        }

    @classmethod
    def from_deal_record(cls, record: DealRecord) -> Shithead:
        position = record.get("position")
        if position is None:
            return dealt_again(cls, record)
        return cls.from_position(
            hands=[" ".join(h) for h in position["hands"]],
            face_up=[" ".join(u) for u in position["face_up"]],
            face_down=[" ".join(c or "-" for c in d) for d in position["face_down"]],
            known=[" ".join(k) for k in position["known"]],
            stock=" ".join(position["stock"]),
            pile=" ".join(position["pile"]),
            burned=" ".join(position["burned"]),
            out=position["out"],
            turn=position["turn"],
            dealer=record["dealer"],
            plays=position.get("plays", 0),
            options=record.get("options"),
        )

    def snapshot(self) -> ShitheadPosition:
        """The whole state as plain data (all hidden cards included): for tests and storage."""
        return {
            "phase": self._phase.value,
            "turn": self._turn,
            "source": self._source,
            "need": self._allowed,
            "hands": [card_codes(h) for h in self._hands],
            "face_up": [card_codes(u) for u in self._face_up],
            "face_down": [
                [card_code(c) if c is not None else None for c in d] for d in self._face_down
            ],
            "known": [card_codes(k) for k in self._known],
            "stock": card_codes(self._stock),
            "pile": card_codes(self._pile),
            "burned": card_codes(self._burned),
            "ready": list(self._ready),
            "out": list(self._out),
            "plays": self._plays,
            "log": [(s, a.to_str()) for s, a in self._log],
        }


def house_rules(options: ShitheadOptions | Mapping[str, Any] | None) -> ShitheadOptions:
    """The house rules (SH-7) from the model, its dump (a stored record's) or nothing (none).

    Raises:
        ValueError: an option Shithead does not have, or a value it does not take.
    """
    if options is None:
        return ShitheadOptions()
    if isinstance(options, ShitheadOptions):
        return options
    return ShitheadOptions.model_validate(dict(options))  # pydantic's error is a ValueError
