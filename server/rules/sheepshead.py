"""Sheepshead, five-handed called ace: the rules core (docs/rules.md, SS-1 … SS-8).

One :class:`Sheepshead` object is one hand: pick or pass, bury, call, six tricks, scoring.
A match of ten hands is :class:`~server.rules.sheepshead_match.SheepsheadMatch`.

Deal order. A deck (shuffled from ``seed`` with ``random.Random(seed)``, or given explicitly)
lists the 32 cards top first and is dealt in blocks: the first six cards are the hand of the
seat at the dealer's left, the next six the hand of the seat after it, and so on clockwise
round to the dealer, whose hand is cards 24–29; the last two cards (30, 31) are the blind.

Actions (``slot`` is never used)::

    pick / pass                     SS-3.1, in turn from the dealer's left
    bury C1 C2                      SS-3.2, the picker buries two cards it holds
    call AH                         SS-4.1 / SS-4.2, the called ace (or ten)
    call_unknown AH C               SS-4.3, the called ace and the card set aside as unknown
    alone                           SS-4.4
    jd_partner                      SS-10.2, ``partner: jack_of_diamonds``: the JD holder partners
    crack / no_crack                SS-10.4, ``crack: true``: each defender in turn from the
                                    picker's left (the first crack ends the asking)
    recrack / no_crack              SS-10.4, the picker, after a crack
    play C                          SS-5, one card; the unknown card is played with its own code

House rules (SS-10) come as one frozen :class:`~protocol.messages.SheepsheadOptions`; the
defaults are the book's game. ``multiplier`` is what the match carries into this hand (SS-10.3
doubler); a crack and a re-crack double it again (SS-10.4, SS-10.5), and the hand's payments
are the SS-7 (or SS-8) table times it. With the jack of diamonds (SS-10.2) the JD holder is the
partner; a picker who holds it plays alone without a word: nothing public tells (no event, no
view field, no legal-action difference) until JD is played or the hand ends.

``legal_actions`` lists every legal action exactly (a bury pair once, its cards in increasing
order; ``apply`` takes them in either order).

The unknown card (SS-6.4) is kept apart from the picker's hand. On the first trick in which the
called suit is led, or on the last trick if it never is, the picker's only legal action is
``play`` of the unknown card; before that, playing it is refused (``unknown_card_locked``). It is
announced face down (the event and the views never show it until the hand is over), it never
wins and never sets the led suit (if the picker leads it to the last trick, the next card does).
The picker's own view shows it (``unknown_card``: they chose it); nobody else's does.

Events (public only)::

    passed S · leaster · thrown_in (SS-10.3 doubler) · picked S · buried S (no cards)
    called S [card] {alone, unknown} · cracked S · recracked S · no_crack S (SS-10.4)
    played S card  (the unknown card: no card, {face_down: True}) · partner_revealed S card
    trick S(winner) {number, points of the face-up cards, face_down} · hand_over {result}

Refusal codes (:class:`~server.rules.base.IllegalAction`; the state is left unchanged)::

    game_over  unknown_action  wrong_phase  not_your_turn  malformed_action
    must_bury_two  cards_not_held  cannot_call
    must_follow_suit  must_keep_called_card  called_suit_hold  must_play_called_card
    unknown_card_locked  must_pick (SS-10.3 forced)  cannot_crack (SS-10.4)

Speed: :meth:`Sheepshead.apply` checks every action; a legal ``play`` takes a short path that
reuses the legal-card list computed by :meth:`Sheepshead.legal_actions`. ``clone`` copies lists.

>>> from server.rules.base import Action
>>> game = Sheepshead.new(5, dealer=0, seed=3)
>>> game.phase, game.to_act()
('pick', (1,))
>>> events = game.apply(1, Action("pick"))
>>> game.phase
'bury'
>>> events = game.apply(1, game.legal_actions(1)[0])
>>> game.phase
'call'
>>> while not game.is_over():
...     seat = game.to_act()[0]
...     _ = game.apply(seat, game.legal_actions(seat)[-1])
>>> sum(game.outcome().units)
0
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from enum import StrEnum
from itertools import combinations
from typing import Any, NamedTuple

from protocol import views as v
from protocol.cards import card_code, card_codes
from protocol.errors import ErrorCode
from protocol.messages import SheepsheadOptions
from server.rules.base import Action, Event, IllegalAction, parse_deck
from server.rules.records import DealRecord
from server.rules.sheepshead_cards import (
    DECK32,
    FAIL_ACES,
    FAIL_SUITS,
    FAIL_TENS,
    JD,
    POINTS,
    SUIT_CLASS,
    trick_winner_index,
)
from server.rules.sheepshead_scoring import HandResult, score_hand, thrown_in
from server.rules.sheepshead_view import Hand, build_view

PLAYERS = 5
HAND_SIZE = 6
TRICKS = 6
_new_tuple = tuple.__new__  # builds an Event without the NamedTuple constructor (hot path)
_NEXT = tuple((s + 1) % PLAYERS for s in range(PLAYERS))

PICK = Action("pick")
PASS = Action("pass")
ALONE = Action("alone")
JD_PARTNER = Action("jd_partner")
CRACK = Action("crack")
NO_CRACK = Action("no_crack")
RECRACK = Action("recrack")
#: SS-10.3: the doubler's carried multiplier never goes above this.
DOUBLER_CAP = 8
#: The default house rules (SS-1 … SS-9).
DEFAULT_OPTIONS = SheepsheadOptions()
#: One ``play`` action per card integer, built once.
PLAY: tuple[Action, ...] = tuple(Action("play", (c,)) for c in range(52))


class Phase(StrEnum):
    """The phases of a hand."""

    PICK = "pick"
    BURY = "bury"
    CALL = "call"
    CRACK = "crack"
    PLAY = "play"
    OVER = "over"


#: Each phase's name on the wire (its value, typed for the views).
PHASE_NAMES: dict[Phase, v.SheepsheadPhase] = {
    Phase.PICK: "pick",
    Phase.BURY: "bury",
    Phase.CALL: "call",
    Phase.CRACK: "crack",
    Phase.PLAY: "play",
    Phase.OVER: "over",
}


#: The phase each action kind belongs to.
_KINDS = {
    "pick": Phase.PICK,
    "pass": Phase.PICK,
    "bury": Phase.BURY,
    "call": Phase.CALL,
    "call_unknown": Phase.CALL,
    "alone": Phase.CALL,
    "jd_partner": Phase.CALL,
    "crack": Phase.CRACK,
    "no_crack": Phase.CRACK,
    "recrack": Phase.CRACK,
    "play": Phase.PLAY,
}


# Module-level aliases of the members: the hot path compares with ``is`` against a global.
_PICK = Phase.PICK
_BURY = Phase.BURY
_CALL = Phase.CALL
_CRACK = Phase.CRACK
_PLAY = Phase.PLAY
_OVER = Phase.OVER


class Trick(NamedTuple):
    """A completed trick: who played what, in order, and who won it.

    ``face_down`` is the index in ``seats``/``cards`` of the unknown card, or -1.
    """

    number: int
    leader: int
    seats: tuple[int, ...]
    cards: tuple[int, ...]
    face_down: int
    winner: int
    points: int


def deal(deck: Sequence[int], dealer: int) -> tuple[list[list[int]], tuple[int, int]]:
    """Split a 32-card deck (top first) into five hands and the blind (see the module doc)."""
    hands: list[list[int]] = [[] for _ in range(PLAYERS)]
    for i in range(PLAYERS):
        hands[(dealer + 1 + i) % PLAYERS] = list(deck[HAND_SIZE * i : HAND_SIZE * (i + 1)])
    return hands, (deck[30], deck[31])


class Sheepshead(Hand):
    """One hand of five-handed Sheepshead (called ace, or the house rules of SS-10). See the
    module docstring."""

    name = "sheepshead"
    seat_counts = (PLAYERS,)

    __slots__ = (
        "_alone",
        "_base",
        "_blind",
        "_buried",
        "_called",
        "_called_led_trick",
        "_called_suit",
        "_crack",
        "_crack_asked",
        "_cracked",
        "_deck",
        "_hands",
        "_jd",
        "_jd_called",
        "_leader",
        "_led",
        "_legal_cache",
        "_log",
        "_multiplier",
        "_no_pick",
        "_options",
        "_partner",
        "_partner_card",
        "_passes",
        "_phase",
        "_picker",
        "_played",
        "_points",
        "_recracked",
        "_result",
        "_revealed",
        "_trick_cards",
        "_trick_face_down",
        "_trick_no",
        "_trick_seats",
        "_tricks",
        "_turn",
        "_unknown",
        "_unknown_pending",
        "_won",
        "dealer",
        "num_players",
    )

    def __init__(
        self,
        deck: Sequence[int] | None = None,
        dealer: int = 0,
        *,
        options: SheepsheadOptions = DEFAULT_OPTIONS,
        multiplier: int = 1,
    ) -> None:
        """Deal ``deck`` (32 card integers, top first; unchecked: use :meth:`new`) under the
        house rules ``options``, the stakes starting at ``multiplier`` (SS-10.3). Without a
        deck, a blank that :meth:`clone` fills field by field."""
        if deck is None:
            return
        self.num_players = PLAYERS
        self._options = options
        self._jd = options.partner == "jack_of_diamonds"
        self._no_pick = options.no_pick
        self._crack = options.crack
        self._base = multiplier
        self._multiplier = multiplier
        self._jd_called = False
        self._partner_card = -1
        self._crack_asked = 0
        self._cracked = -1
        self._recracked = -1
        self.dealer = dealer
        self._deck = tuple(deck)
        self._hands, self._blind = deal(self._deck, dealer)
        self._phase: Phase = _PICK
        self._turn = (dealer + 1) % PLAYERS
        self._passes = 0
        self._picker = -1
        self._buried: tuple[int, ...] = ()
        self._called = -1
        self._called_suit = -1
        self._alone = False
        self._unknown = -1
        self._unknown_pending = False
        self._partner = -1
        self._revealed = False
        self._called_led_trick = -1
        self._trick_no = 0
        self._leader = (dealer + 1) % PLAYERS
        self._led = -1
        self._trick_seats: list[int] = []
        self._trick_cards: list[int] = []
        self._trick_face_down = -1
        self._tricks: list[Trick] = []
        self._points = [0] * PLAYERS
        self._won = [0] * PLAYERS
        self._played = [0] * PLAYERS
        self._log: list[tuple[int, Action]] = []
        self._result: HandResult | None = None
        self._legal_cache: list[int] | None = None
        self.tricks_memo = None  # Hand's memo of the completed tricks' views

    # ----------------------------------------------------------------------------- construction

    @classmethod
    def new(
        cls,
        num_players: int = PLAYERS,
        dealer: int = 0,
        *,
        seed: int | None = None,
        deck: Sequence[int | str] | None = None,
        options: SheepsheadOptions | Mapping[str, Any] | None = None,
        multiplier: int = 1,
    ) -> Sheepshead:
        """Deal a hand from ``seed`` (``random.Random(seed)`` shuffles the sorted 32 cards) or
        from an explicit ``deck`` of the 32 cards as codes or integers, top first (deal order:
        module docstring), under the house rules ``options`` (the model, or its JSON form; none:
        the defaults) with the stakes at ``multiplier`` (SS-10.3: 1, 2, 4 or 8).

        Raises:
            ValueError: not five players, a bad dealer, a bad deck, an unknown option or
                value, or a bad multiplier.
        """
        if num_players != PLAYERS:
            raise ValueError("sheepshead is played by exactly 5 players")
        if not 0 <= dealer < PLAYERS:
            raise ValueError(f"dealer must be a seat 0..{PLAYERS - 1}")
        if multiplier not in (1, 2, 4, DOUBLER_CAP):
            raise ValueError(f"a hand's starting multiplier is 1, 2, 4 or 8, not {multiplier}")
        if options is None:
            options = DEFAULT_OPTIONS
        elif not isinstance(options, SheepsheadOptions):
            try:
                options = SheepsheadOptions.model_validate(dict(options))
            except ValueError as e:  # pydantic's ValidationError
                raise ValueError(f"bad sheepshead options (SS-10): {dict(options)}") from e
        if multiplier != 1 and options.no_pick != "doubler":
            raise ValueError("only the doubler (SS-10.3) carries a multiplier into a hand")
        if deck is None:
            cards = list(DECK32)
            random.Random(seed).shuffle(cards)
        else:
            cards = parse_deck(deck, DECK32, "sheepshead (7 to A of each suit)")
        return cls(cards, dealer, options=options, multiplier=multiplier)

    @classmethod
    def from_deal_record(cls, record: DealRecord) -> Sheepshead:
        """Deal again the hand that :meth:`deal_record` describes (its options and multiplier
        included; absent in an old record: the defaults)."""
        return cls.new(
            record["players"],
            record["dealer"],
            deck=record["deck"],
            options=record.get("options"),
            multiplier=record.get("multiplier", 1),
        )

    def clone(self) -> Sheepshead:
        """An independent copy (lists copied, immutable values shared)."""
        # no __init__ runs interpreted; compiled (mypyc), __new__ is Sheepshead(): a blank both ways
        g = Sheepshead.__new__(Sheepshead)
        g.num_players = self.num_players
        g.dealer = self.dealer
        g._deck = self._deck
        g._options = self._options
        g._jd = self._jd
        g._no_pick = self._no_pick
        g._crack = self._crack
        g._base = self._base
        g._multiplier = self._multiplier
        g._jd_called = self._jd_called
        g._partner_card = self._partner_card
        g._crack_asked = self._crack_asked
        g._cracked = self._cracked
        g._recracked = self._recracked
        g._hands = [list(h) for h in self._hands]
        g._blind = self._blind
        g._phase = self._phase
        g._turn = self._turn
        g._passes = self._passes
        g._picker = self._picker
        g._buried = self._buried
        g._called = self._called
        g._called_suit = self._called_suit
        g._alone = self._alone
        g._unknown = self._unknown
        g._unknown_pending = self._unknown_pending
        g._partner = self._partner
        g._revealed = self._revealed
        g._called_led_trick = self._called_led_trick
        g._trick_no = self._trick_no
        g._leader = self._leader
        g._led = self._led
        g._trick_seats = list(self._trick_seats)
        g._trick_cards = list(self._trick_cards)
        g._trick_face_down = self._trick_face_down
        g._tricks = list(self._tricks)
        g._points = list(self._points)
        g._won = list(self._won)
        g._played = list(self._played)
        g._log = list(self._log)
        g._result = self._result
        g._legal_cache = None
        g.tricks_memo = None
        return g

    def deal_record(self) -> DealRecord:
        """What :meth:`new` needs to deal this hand again: the options that differ from the
        defaults (so a default hand's record is what it was before house rules) and the carried
        multiplier when it is not 1."""
        record: DealRecord = {
            "game": self.name,
            "players": PLAYERS,
            "dealer": self.dealer,
            "deck": card_codes(self._deck),
            "options": self._options.model_dump(exclude_defaults=True),
        }
        if self._base != 1:
            record["multiplier"] = self._base
        return record

    # ----------------------------------------------------------------------------- queries

    @property
    def phase(self) -> v.SheepsheadPhase:
        return PHASE_NAMES[self._phase]

    @property
    def log(self) -> list[tuple[int, Action]]:
        return self._log

    @property
    def picker(self) -> int | None:
        """The picker's seat, or ``None`` (nobody yet, or a leaster)."""
        return None if self._picker < 0 else self._picker

    @property
    def called(self) -> int | None:
        """The called card, or ``None`` (no call yet, alone, or a leaster)."""
        return None if self._called < 0 else self._called

    # Read API for views, bots and tools. Lists returned are the state's own: read, never change.

    @property
    def turn(self) -> int:
        """The seat to act, or -1 once over."""
        return -1 if self._phase is _OVER else self._turn

    @property
    def partner(self) -> int | None:
        """The partner's seat: hidden information until revealed (see :attr:`revealed`)."""
        return None if self._partner < 0 else self._partner

    @property
    def revealed(self) -> bool:
        """Whether the called card has been played, showing the partner to everyone."""
        return self._revealed

    @property
    def alone(self) -> bool:
        """Whether the picker is known to play alone: declared (SS-4.4), or, with the jack of
        diamonds, holding JD once it is played or the hand is over (SS-10.2)."""
        return self._alone or (
            self._jd_called and self._partner < 0 and (self._revealed or self._phase is _OVER)
        )

    @property
    def options(self) -> SheepsheadOptions:
        """The house rules in force (SS-10)."""
        return self._options

    @property
    def options_json(self) -> v.SheepsheadOptionsWire:
        """The options as the views show them (a fresh dict: views own theirs)."""
        return {
            "partner": self._options.partner,
            "no_pick": self._options.no_pick,
            "crack": self._options.crack,
        }

    @property
    def multiplier(self) -> int:
        """The hand's multiplier so far (SS-10.3 carried, times 2 per crack and re-crack)."""
        return self._multiplier

    @property
    def base_multiplier(self) -> int:
        """The multiplier the match carried into this hand (SS-10.3)."""
        return self._base

    @property
    def cracked(self) -> int | None:
        """The seat that cracked (SS-10.4), or ``None``."""
        return None if self._cracked < 0 else self._cracked

    @property
    def recracked(self) -> int | None:
        """The seat that re-cracked (the picker), or ``None``."""
        return None if self._recracked < 0 else self._recracked

    @property
    def jd_partner(self) -> bool:
        """Whether the picker chose the jack's partner (SS-10.2; public)."""
        return self._jd_called

    @property
    def thrown_in(self) -> bool:
        """Whether all five passed under the doubler and the hand was thrown in (SS-10.3)."""
        return self._passes == PLAYERS and self._no_pick == "doubler"

    @property
    def passes(self) -> int:
        """How many seats passed (SS-3.1), in turn from the dealer's left."""
        return self._passes

    @property
    def buried(self) -> tuple[int, ...]:
        """The picker's buried cards (hidden from the others until the hand is over)."""
        return self._buried

    @property
    def blind(self) -> tuple[int, int]:
        """The two blind cards as dealt (hidden until picked, or until the hand is over)."""
        return self._blind

    @property
    def unknown_card(self) -> int | None:
        """The card the picker set aside for an unknown call (SS-4.3; hidden), or ``None``."""
        return None if self._unknown < 0 else self._unknown

    @property
    def unknown_pending(self) -> bool:
        """Whether the unknown card is set aside and not yet played."""
        return self._unknown_pending

    @property
    def called_suit_led(self) -> bool:
        """Whether the called suit has been led (SS-6)."""
        return self._called_led_trick >= 0

    @property
    def trick_number(self) -> int:
        """The current trick, 0 … 5 (6 once over)."""
        return self._trick_no

    @property
    def leader(self) -> int:
        """The seat that led (or leads) the current trick."""
        return self._leader

    @property
    def trick_seats(self) -> list[int]:
        """Seats that played to the current trick, in order."""
        return self._trick_seats

    @property
    def trick_cards(self) -> list[int]:
        """Cards of the current trick, in order (see :attr:`trick_face_down`)."""
        return self._trick_cards

    @property
    def trick_face_down(self) -> int:
        """Index in the current trick of the face-down unknown card, or -1."""
        return self._trick_face_down

    @property
    def tricks(self) -> list[Trick]:
        """The completed tricks, in order."""
        return self._tricks

    @property
    def tricks_won(self) -> list[int]:
        """Tricks won per seat."""
        return self._won

    @property
    def points_won(self) -> list[int]:
        """Card points won per seat (the face-down card's included: hidden information)."""
        return self._points

    @property
    def played_counts(self) -> list[int]:
        """Cards each seat has played."""
        return self._played

    def hand_count(self, seat: int) -> int:
        """Cards ``seat`` holds, the picker's unknown card included."""
        n = len(self._hands[seat])
        return n + 1 if self._unknown_pending and seat == self._picker else n

    def legal_cards(self, seat: int) -> list[int]:
        """The cards ``seat`` may play now ([] outside its turn in the play phase); cheap, for
        search: the same list :meth:`legal_actions` is built from."""
        if self._phase is not _PLAY or seat != self._turn:
            return []
        return self._legal_cards(seat)

    @property
    def leaster(self) -> bool:
        """Whether all five passed and a leaster is played (SS-3.3; SS-10.3 ``leaster``)."""
        return self._passes == PLAYERS and self._no_pick == "leaster"

    def is_over(self) -> bool:
        return self._phase is _OVER

    def outcome(self) -> HandResult | None:
        return self._result

    @property
    def scores(self) -> tuple[int, ...] | None:
        """Units this hand adds to each seat's running total, once over."""
        return None if self._result is None else self._result.units

    def to_act(self) -> tuple[int, ...]:
        return () if self._phase is _OVER else (self._turn,)

    def hand(self, seat: int) -> list[int]:
        """A copy of ``seat``'s hand (the picker's unknown card is not in it)."""
        return list(self._hands[seat])

    def card_places(self) -> dict[int, str]:
        """Where every card is: ``hand:S``, ``blind``, ``buried``, ``unknown``, ``trick``,
        ``won:S`` or ``aside`` (the leaster's blind). For tests and tools, not for the wire."""
        places: dict[int, str] = {}

        def put(c: int, where: str) -> None:
            if c in places:
                raise AssertionError(f"{card_code(c)} in {places[c]} and {where}")
            places[c] = where

        for seat, hand in enumerate(self._hands):
            for c in hand:
                put(c, f"hand:{seat}")
        if self._phase is _PICK:
            for c in self._blind:
                put(c, "blind")
        elif self._passes == PLAYERS:
            for c in self._blind:
                put(c, "aside")
        for c in self._buried:
            put(c, "buried")
        if self._unknown_pending:
            put(self._unknown, "unknown")
        for c in self._trick_cards:
            put(c, "trick")
        for t in self._tricks:
            for c in t.cards:
                put(c, f"won:{t.winner}")
        return places

    # ----------------------------------------------------------------------------- legal actions

    def legal_actions(self, seat: int) -> list[Action]:
        phase = self._phase
        if phase is _PLAY and seat == self._turn:
            cache = self._legal_cache
            if cache is None:
                cache = self._legal_cache = self._compute_legal_cards(seat)
            return [PLAY[c] for c in cache]
        if phase is _OVER or seat != self._turn:
            return []
        if phase is _PICK:
            if self._no_pick == "forced" and self._passes == PLAYERS - 1:
                return [PICK]  # SS-10.3: the dealer must pick
            return [PICK, PASS]
        if phase is _BURY:
            return [Action("bury", pair) for pair in combinations(sorted(self._hands[seat]), 2)]
        if phase is _CRACK:
            return self._legal_cracks()
        if self._jd:
            return [JD_PARTNER, ALONE]  # SS-10.2
        return self._legal_calls()

    def _legal_cracks(self) -> list[Action]:
        """SS-10.4: each defender in turn may crack; after a crack the picker may re-crack."""
        if self._cracked < 0:
            return [CRACK, NO_CRACK]
        return [RECRACK, NO_CRACK]

    def _legal_calls(self) -> list[Action]:
        """SS-4: the calls open to the picker, from the six cards in hand after burying."""
        hand = self._hands[self._picker]
        held = set(hand)
        out = set(self._buried) | held
        calls: list[Action] = []
        if all(a in held for a in FAIL_ACES):
            # SS-4.2: a ten of a fail suit (the ace is the hold card), not held or buried.
            calls = [Action("call", (t,)) for t in FAIL_TENS if t not in out]
        else:
            # SS-4.1: the ace of a fail suit with a hold card, not held or buried.
            suits = {SUIT_CLASS[c] for c in hand if SUIT_CLASS[c] in FAIL_SUITS}
            calls = [
                Action("call", (a,)) for a in FAIL_ACES if a not in out and SUIT_CLASS[a] in suits
            ]
            if not calls and all(c in FAIL_ACES for c in hand if SUIT_CLASS[c] in FAIL_SUITS):
                # SS-4.3: the ace of a void fail suit, with one card set aside as unknown.
                calls = [
                    Action("call_unknown", (a, c))
                    for a in FAIL_ACES
                    if a not in out and SUIT_CLASS[a] not in suits
                    for c in sorted(hand)
                ]
        calls.append(ALONE)  # SS-4.4
        return calls

    def _legal_cards(self, seat: int) -> list[int]:
        """SS-5, SS-6: the cards ``seat`` (to play now) may play."""
        cache = self._legal_cache
        if cache is not None:
            return cache
        result = self._compute_legal_cards(seat)
        self._legal_cache = result
        return result

    def _compute_legal_cards(self, seat: int) -> list[int]:
        hand = self._hands[seat]
        trick_no = self._trick_no
        if (
            self._unknown_pending
            and seat == self._picker
            and (trick_no == TRICKS - 1 or self._called_led_trick == trick_no)
        ):
            return [self._unknown]  # SS-6.4
        if trick_no == TRICKS - 1:
            return list(hand)  # SS-6.3
        classes = SUIT_CLASS
        led = self._led
        before = self._called >= 0 and self._called_led_trick < 0
        if led < 0:
            if before and seat == self._partner:
                # SS-6.2: leading the called suit first means leading the called card.
                suit, called = self._called_suit, self._called
                return [c for c in hand if classes[c] != suit or c == called]
            return list(hand)
        follow = [c for c in hand if classes[c] == led]
        if follow:
            if (
                seat == self._partner
                and self._called_led_trick == trick_no
                and not self._revealed
                and self._called in hand
            ):
                return [self._called]  # SS-6.2
            return follow
        if before:
            if seat == self._partner:
                rest = [c for c in hand if c != self._called]  # SS-6.1
                return rest or list(hand)
            if seat == self._picker:
                holds = [c for c in hand if classes[c] == self._called_suit]
                if len(holds) == 1:
                    rest = [c for c in hand if c != holds[0]]  # SS-6.1
                    return rest or list(hand)
        return list(hand)

    def _play_refusal(self, seat: int, c: int) -> IllegalAction:
        """The reason a card outside the legal set is refused (SS-5.2, SS-6)."""
        action = PLAY[c] if 0 <= c < 52 else Action("play", (c,))

        def no(code: ErrorCode, message: str) -> IllegalAction:
            return self._refuse(code, message, seat, action)

        hand = self._hands[seat]
        legal = self._legal_cards(seat)
        if self._unknown_pending and seat == self._picker:
            if c == self._unknown:
                return no(
                    ErrorCode.UNKNOWN_CARD_LOCKED,
                    "the unknown card is played only when the called suit is first led, "
                    "or to the last trick",
                )
            if legal == [self._unknown]:
                return no(
                    ErrorCode.UNKNOWN_CARD_LOCKED, "you must play the unknown card to this trick"
                )
        if c not in hand:
            return no(ErrorCode.CARDS_NOT_HELD, f"you do not hold {card_code(c)}")
        classes = SUIT_CLASS
        if self._led < 0:
            return no(
                ErrorCode.MUST_PLAY_CALLED_CARD,
                "the partner who leads the called suit first must lead the called card",
            )
        if legal == [self._called] and seat == self._partner:
            return no(
                ErrorCode.MUST_PLAY_CALLED_CARD,
                "the called suit is led: the partner plays the called card",
            )
        if any(classes[x] == self._led for x in hand):
            return no(
                ErrorCode.MUST_FOLLOW_SUIT, "you must follow the suit led (all trumps are one suit)"
            )
        if seat == self._partner and c == self._called:
            return no(
                ErrorCode.MUST_KEEP_CALLED_CARD,
                "the partner keeps the called card until the called suit is led",
            )
        return no(
            ErrorCode.CALLED_SUIT_HOLD,
            "the picker keeps a card of the called suit until the called suit is led",
        )

    # ----------------------------------------------------------------------------- apply

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Check and apply ``action`` for ``seat``; return the public events.

        Raises:
            IllegalAction: refused (codes in the module docstring); the state is unchanged.
        """
        kind, cards, slot = action
        phase = self._phase
        if (
            phase is _PLAY
            and kind == "play"
            and seat == self._turn
            and slot == -1
            and len(cards) == 1
            and cards[0] in (self._legal_cache or self._legal_cards(seat))
        ):
            self._log.append((seat, action))  # the fast path: a legal play
            return self._play(seat, cards[0], cards)
        if phase is _OVER:
            raise self._refuse(ErrorCode.GAME_OVER, "the hand is over", seat, action)
        wanted = _KINDS.get(kind)
        if wanted is None:
            raise self._refuse(
                ErrorCode.UNKNOWN_ACTION, f"sheepshead has no action {kind!r}", seat, action
            )
        if wanted is not phase:
            raise self._refuse(
                ErrorCode.WRONG_PHASE,
                f"{kind!r} is not an action of the {phase} phase",
                seat,
                action,
            )
        if seat != self._turn:
            raise self._refuse(
                ErrorCode.NOT_YOUR_TURN, f"it is seat {self._turn}'s turn", seat, action
            )
        if slot != -1:
            raise self._refuse(
                ErrorCode.MALFORMED_ACTION, "sheepshead actions have no slot", seat, action
            )
        if phase is _PLAY:
            if kind != "play" or len(cards) != 1:
                raise self._refuse(
                    ErrorCode.MALFORMED_ACTION, "play exactly one card", seat, action
                )
            c = cards[0]
            if c not in self._legal_cards(seat):
                raise self._play_refusal(seat, c)
            self._log.append((seat, action))
            return self._play(seat, c, cards)
        if phase is _PICK:
            events = self._pick(seat, action)
        elif phase is _BURY:
            events = self._bury(seat, action)
        elif phase is _CRACK:
            events = self._crack_decision(seat, action)
        else:
            events = self._call(seat, action)
        self._log.append((seat, action))
        return events

    def _pick(self, seat: int, action: Action) -> list[Event]:
        if action.cards:
            raise self._refuse(
                ErrorCode.MALFORMED_ACTION, f"{action.kind} names no cards", seat, action
            )
        if action.kind == "pick":  # SS-3.1, SS-3.2
            self._picker = seat
            self._hands[seat].extend(self._blind)
            self._phase = _BURY
            return [Event("picked", seat)]
        if self._no_pick == "forced" and self._passes == PLAYERS - 1:
            raise self._refuse(
                ErrorCode.MUST_PICK,
                "everyone else passed: the dealer must pick (SS-10.3)",
                seat,
                action,
            )
        self._passes += 1
        events = [Event("passed", seat)]
        if self._passes == PLAYERS and self._no_pick == "doubler":  # SS-10.3
            self._phase = _OVER
            self._result = thrown_in(self._blind, self._base)
            events.append(Event("thrown_in"))
            events.append(Event("hand_over", None, (), {"result": self._result.to_json()}))
        elif self._passes == PLAYERS:  # SS-3.3, SS-8.1
            self._phase = _PLAY
            self._turn = self._leader
            events.append(Event("leaster"))
        else:
            self._turn = (seat + 1) % PLAYERS
        return events

    def _bury(self, seat: int, action: Action) -> list[Event]:
        cards = action.cards
        if action.kind != "bury" or len(cards) != 2 or cards[0] == cards[1]:
            raise self._refuse(
                ErrorCode.MUST_BURY_TWO, "bury exactly two different cards", seat, action
            )
        hand = self._hands[seat]
        for c in cards:
            if c not in hand:
                raise self._refuse(
                    ErrorCode.CARDS_NOT_HELD, f"you do not hold {card_code(c)}", seat, action
                )
        for c in cards:
            hand.remove(c)
        self._buried = tuple(cards)
        self._phase = _CALL
        return [Event("buried", seat)]

    def _call(self, seat: int, action: Action) -> list[Event]:
        legal = [JD_PARTNER, ALONE] if self._jd else self._legal_calls()
        if action not in legal:
            code, message = ErrorCode.CANNOT_CALL, "that card cannot be called (SS-4)"
            if action.kind in ("alone", "jd_partner") and action.cards:
                code, message = ErrorCode.MALFORMED_ACTION, f"{action.kind} names no cards"
            elif self._jd:
                code, message = (
                    ErrorCode.CANNOT_CALL,
                    "with the jack of diamonds the picker calls nothing: jd_partner or alone",
                )
            elif action.kind == "call_unknown" and len(action.cards) != 2:
                code, message = (
                    ErrorCode.MALFORMED_ACTION,
                    "call_unknown names the ace and the card",
                )
            elif action.kind == "call" and len(action.cards) != 1:
                code, message = ErrorCode.MALFORMED_ACTION, "call names one card"
            elif action.kind == "call_unknown" and action.cards[1] not in self._hands[seat]:
                code, message = ErrorCode.CARDS_NOT_HELD, "you can set aside only a card you hold"
            raise self._refuse(code, message, seat, action)
        self._start_play()
        if action.kind == "alone":
            self._alone = True
            return [Event("called", seat, (), {"alone": True, "unknown": False})]
        if action.kind == "jd_partner":
            # SS-10.2: the JD holder partners; the picker holding it (in hand or buried) is
            # alone, and nothing here says which (the event is the same either way).
            self._jd_called = True
            self._partner_card = JD
            self._partner = next((s for s in range(PLAYERS) if JD in self._hands[s]), -1)
            if self._partner == seat:
                self._partner = -1
            return [Event("called", seat, (), {"alone": False, "unknown": False})]
        called = action.cards[0]
        self._called = called
        self._partner_card = called
        self._called_suit = SUIT_CLASS[called]
        self._partner = next(s for s in range(PLAYERS) if called in self._hands[s])
        unknown = action.kind == "call_unknown"
        if unknown:
            self._unknown = action.cards[1]
            self._unknown_pending = True
            self._hands[seat].remove(self._unknown)
        return [Event("called", seat, (called,), {"alone": False, "unknown": unknown})]

    def _start_play(self) -> None:
        """After the picker's last decision: the crack round (SS-10.4), else the first lead."""
        if self._crack:
            self._phase = _CRACK
            self._turn = _NEXT[self._picker]
        else:
            self._phase = _PLAY
            self._turn = self._leader

    def _crack_decision(self, seat: int, action: Action) -> list[Event]:
        """SS-10.4: a defender's crack or not, then the picker's re-crack or not."""
        if action.cards:
            raise self._refuse(
                ErrorCode.MALFORMED_ACTION, f"{action.kind} names no cards", seat, action
            )
        if action not in self._legal_cracks():
            raise self._refuse(
                ErrorCode.CANNOT_CRACK,
                "only a defender cracks, and only the picker re-cracks after a crack",
                seat,
                action,
            )
        if action.kind == "crack":
            self._cracked = seat
            self._multiplier *= 2
            self._turn = self._picker
            return [Event("cracked", seat)]
        if action.kind == "recrack":
            self._recracked = seat
            self._multiplier *= 2
            self._phase = _PLAY
            self._turn = self._leader
            return [Event("recracked", seat)]
        events = [Event("no_crack", seat)]
        self._crack_asked += 1
        if self._cracked >= 0 or self._crack_asked == PLAYERS - 1:
            self._phase = _PLAY
            self._turn = self._leader
        else:
            self._turn = _NEXT[seat]
        return events

    def _play(self, seat: int, c: int, one: tuple[int, ...]) -> list[Event]:
        """Play card ``c`` (``one`` is ``(c,)``) for ``seat``; already checked legal."""
        self._legal_cache = None
        trick_cards = self._trick_cards
        if c == self._unknown and self._unknown_pending:
            self._unknown_pending = False
            self._trick_face_down = len(trick_cards)
            events = [Event("played", seat, (), {"face_down": True})]
        else:
            self._hands[seat].remove(c)
            events = [_new_tuple(Event, ("played", seat, one, None))]
            if self._led < 0:
                led = self._led = SUIT_CLASS[c]
                if led == self._called_suit and self._called_led_trick < 0:
                    self._called_led_trick = self._trick_no
            if c == self._partner_card:
                self._revealed = True
                events.append(Event("partner_revealed", seat, one))
        self._played[seat] += 1
        self._trick_seats.append(seat)
        trick_cards.append(c)
        if len(trick_cards) < PLAYERS:
            self._turn = _NEXT[seat]
            return events
        return self._end_trick(events)

    def _end_trick(self, events: list[Event]) -> list[Event]:
        cards = self._trick_cards
        face_down = self._trick_face_down
        i = trick_winner_index(cards, face_down)
        winner = self._trick_seats[i]
        pts = POINTS
        points = pts[cards[0]] + pts[cards[1]] + pts[cards[2]] + pts[cards[3]] + pts[cards[4]]
        visible = points if face_down < 0 else points - pts[cards[face_down]]
        self._tricks.append(
            Trick(
                self._trick_no,
                self._leader,
                tuple(self._trick_seats),
                tuple(cards),
                face_down,
                winner,
                points,
            )
        )
        self._points[winner] += points
        self._won[winner] += 1
        events.append(
            Event(
                "trick",
                winner,
                (),
                {"number": self._trick_no + 1, "points": visible, "face_down": face_down >= 0},
            )
        )
        self._trick_no += 1
        self._trick_seats = []
        self._trick_cards = []
        self._trick_face_down = -1
        self._led = -1
        self._leader = self._turn = winner
        if self._trick_no == TRICKS:
            self._finish(events)
        return events

    def _finish(self, events: list[Event]) -> None:
        leaster = self.leaster
        self._phase = _OVER
        self._result = score_hand(
            picker=None if leaster else self._picker,
            partner=None if self._partner < 0 else self._partner,
            called=None if self._called < 0 else self._called,
            unknown=None if self._unknown < 0 else self._unknown,
            buried=self._buried,
            blind=self._blind,
            seat_points=tuple(self._points),
            seat_tricks=tuple(self._won),
            buried_points=sum(POINTS[c] for c in self._buried),
            multiplier=self._multiplier,
        )
        events.append(Event("hand_over", None, (), {"result": self._result.to_json()}))

    # ----------------------------------------------------------------------------- views

    def view(
        self, seat: int | None, shared: Mapping[str, object] | None = None
    ) -> v.SheepsheadView:
        """What ``seat`` sees (``None``: a spectator). See the module docstring of
        :mod:`server.rules.sheepshead_view` for the fields."""
        return build_view(self, seat, shared)
