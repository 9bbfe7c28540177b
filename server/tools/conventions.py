"""Table conventions, classified from the full state of a game before each play: how often a
bot keeps the conventions players judge a partner by.

A bot sees only its seat's view; this module sees everything (who the partner is, who holds
what), so it lives with the tools, not with the bots. :func:`chances` looks at one decision
before it is applied and returns the conventions it was a chance for: each :class:`Chance` says
which convention, the facets of the moment (the actor's role, whether the partner is known, the
trick; for Shithead the stage and the source) and whether the play happened (``hit``). The rate
of a convention is its hits over its chances, so every denominator counts only the decisions
where the play was possible: "the partner on lead leads trump" counts only leads by the seat
that is the partner.

Sheepshead (every role from the full state; the house rules decide what exists):

- ``lead_trump``: every lead, hit when it is a trump (the face-down unknown card, SS-6.4, is
  not); ``lead_trump_choice``: the leads where the leader held both a trump and a fail card;
- ``lead_called``: a lead while the called suit has not been led (SS-6) by a seat that may lead
  a card of it or another, hit when it leads that suit; no called suit under the jack of
  diamonds (SS-10.2), alone (SS-4.4) or in a leaster (SS-8.1);
- ``schmear``: a play (not a lead) while a seat of the actor's own side wins the trick so far,
  by a seat that may play a card of 10 or 11 points or a card of fewer, hit when it plays
  the points; no sides in a leaster. Facet ``sure``: no seat of the other side still to play
  holds a card it may play (of the led suit if it holds one, SS-5.2) that beats the trick's
  winner, so the trick is the actor's side's whatever comes.

A chance is a choice: the plays the rules force (one legal card; SS-6.2's called card) are no
chance of ``lead_called``, ``schmear`` or ``lead_trump_choice``; ``lead_trump`` counts every
lead.

Roles: ``picker``, ``partner`` (the called card's holder, or the jack of diamonds'), ``defender``,
``leaster``; an alone picker (declared, or holding the jack of diamonds) has no partner and every
chance of that hand has the facet ``alone``. ``known``/``hidden``: whether the table knows the
picker's side (the partner card played, or the picker alone and known to be).

Shithead (plays from the hand or the face-up cards; a turned face-down card is no choice):

- ``waste_two``, ``waste_ten``, ``waste_glass`` (SH-7.4's 3), ``waste_special``: a decision where
  an ordinary card plays and the seat may play that special card (any special, for the last),
  hit when it plays it;
- ``pickup_with_play``: a decision with a pile and a legal play, hit when the seat picks up
  (facet ``ordinary_plays`` when an ordinary card is among the plays, not only 2s and 10s);
  ``pickup_forced``: every pick-up, hit when no play was legal;
- ``overplay``: an ordinary play when two or more ordinary ranks play, hit when it is not the
  lowest; ``special_doubled``: a play of 2s or 10s by a seat that may play two or more of them,
  hit when it plays more than one (one does the job).

>>> from server.rules.base import Action
>>> g = Sheepshead.new(5, dealer=0, seed=3)
>>> chances(g, 1, Action("pick"))
[]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from protocol.cards import TEN, THREE, TWO
from server.rules.base import Action, Game
from server.rules.sheepshead import PLAYERS, Sheepshead
from server.rules.sheepshead_cards import POINTS, SUIT_CLASS, TRUMP, trick_winner_index
from server.rules.shithead import Shithead

#: A card worth schmearing: an ace or a ten, of any suit (SS-1.4).
SCHMEAR_POINTS = 10


class Convention(StrEnum):
    """What a chance is a chance for."""

    LEAD_TRUMP = "lead_trump"
    LEAD_TRUMP_CHOICE = "lead_trump_choice"
    LEAD_CALLED = "lead_called"
    SCHMEAR = "schmear"
    WASTE_TWO = "waste_two"
    WASTE_TEN = "waste_ten"
    WASTE_GLASS = "waste_glass"
    WASTE_SPECIAL = "waste_special"
    PICKUP_WITH_PLAY = "pickup_with_play"
    PICKUP_FORCED = "pickup_forced"
    OVERPLAY = "overplay"
    SPECIAL_DOUBLED = "special_doubled"


class Facet(StrEnum):
    """A property of the moment of a chance; report lines select chances by facets."""

    PICKER = "picker"
    PARTNER = "partner"
    DEFENDER = "defender"
    LEASTER = "leaster"
    ALONE = "alone"
    KNOWN = "known"
    HIDDEN = "hidden"
    TRICK1 = "trick1"
    LATER = "later"
    STOCK = "stock"  # Shithead: the stock still lasts
    NO_STOCK = "no_stock"
    HAND = "hand"
    FACE_UP = "face_up"
    ORDINARY_PLAYS = "ordinary_plays"  # Shithead: an ordinary card plays (not only specials)
    SURE = "sure"  # Sheepshead: the trick is the actor's side's whatever the others play


@dataclass(frozen=True, slots=True)
class Chance:
    """One decision that could have followed (or broken) ``convention``; ``hit``: it did the
    play the convention is about."""

    convention: Convention
    facets: tuple[Facet, ...]
    hit: bool

    @property
    def key(self) -> str:
        """``convention|facet|…``: the counting key (a plain string, for JSON and pickling)."""
        return "|".join((self.convention, *self.facets))


def chances(game: Game, seat: int, action: Action) -> list[Chance]:
    """The conventions ``action`` by ``seat`` is a chance for, read from the full state of
    ``game`` before the action is applied ([] for anything but a play-phase decision)."""
    if isinstance(game, Sheepshead):
        return sheepshead_chances(game, seat, action)
    if isinstance(game, Shithead):
        return shithead_chances(game, seat, action)
    return []


def _role(g: Sheepshead, seat: int) -> Facet:
    if g.leaster:
        return Facet.LEASTER
    if seat == g.picker:
        return Facet.PICKER
    if seat == g.partner:
        return Facet.PARTNER
    return Facet.DEFENDER


def _side(g: Sheepshead, seat: int) -> bool:
    """Whether ``seat`` is on the picker's side."""
    return seat in (g.picker, g.partner)


def sheepshead_chances(g: Sheepshead, seat: int, action: Action) -> list[Chance]:
    """See the module docstring."""
    if g.phase != "play" or action.kind != "play" or not action.cards:
        return []
    card = action.cards[0]
    unknown = g.unknown_card if g.unknown_pending and seat == g.picker else None
    face_down = card == unknown  # SS-6.4: face down, no suit, no points shown
    legal = [c for c in g.legal_cards(seat) if c != unknown]
    role = _role(g, seat)
    facets = [role]
    if role is not Facet.LEASTER:
        if g.partner is None:  # SS-4.4, SS-10.2: no partner, nothing to find
            facets.append(Facet.ALONE)
        facets.append(Facet.KNOWN if g.revealed or g.alone else Facet.HIDDEN)
    facets.append(Facet.TRICK1 if g.trick_number == 0 else Facet.LATER)
    at = tuple(facets)
    out: list[Chance] = []
    if not g.trick_cards:  # a lead
        trump = not face_down and SUIT_CLASS[card] == TRUMP
        out.append(Chance(Convention.LEAD_TRUMP, at, trump))
        classes = {SUIT_CLASS[c] == TRUMP for c in legal}
        if classes == {True, False}:
            out.append(Chance(Convention.LEAD_TRUMP_CHOICE, at, trump))
        called = g.called  # None under the jack of diamonds, alone or in a leaster
        if called is not None and not g.called_suit_led:
            suit = SUIT_CLASS[called]
            holds = {SUIT_CLASS[c] == suit for c in legal}  # SS-6.1: a hold card may lead
            if holds == {True, False}:
                led = not face_down and SUIT_CLASS[card] == suit
                out.append(Chance(Convention.LEAD_CALLED, at, led))
        return out
    if role is Facet.LEASTER:  # SS-8.1: everyone for themselves
        return out
    best = trick_winner_index(g.trick_cards, g.trick_face_down)
    mate_wins = best >= 0 and _side(g, g.trick_seats[best]) == _side(g, seat)
    if mate_wins and {POINTS[c] >= SCHMEAR_POINTS for c in legal} == {True, False}:
        hit = not face_down and POINTS[card] >= SCHMEAR_POINTS
        sure = _sure(g, seat, best)
        out.append(Chance(Convention.SCHMEAR, (*at, Facet.SURE) if sure else at, hit))
    return out


def _sure(g: Sheepshead, seat: int, best: int) -> bool:
    """Whether no seat of the other side after ``seat`` can beat the trick's card at ``best``
    with a card it may play (SS-5.2: a card of the led suit if it holds one; the rules' further
    limits, SS-6.1, only shrink what it may play, so this errs towards "not sure")."""
    cards = list(g.trick_cards)
    face_up = [c for i, c in enumerate(cards) if i != g.trick_face_down]
    led = SUIT_CLASS[face_up[0]] if face_up else -1
    side = _side(g, seat)
    for k in range(1, PLAYERS - len(cards)):
        other = (seat + k) % PLAYERS
        if _side(g, other) == side:
            continue
        hand = g.hand(other)
        follow = [c for c in hand if SUIT_CLASS[c] == led]
        for c in follow or hand:
            if trick_winner_index([*cards, c], g.trick_face_down) != best:
                return False
    return True


_WASTE = {TWO: Convention.WASTE_TWO, TEN: Convention.WASTE_TEN, THREE: Convention.WASTE_GLASS}


def _specials(g: Shithead) -> frozenset[int]:
    """The ranks that play on anything (SH-1.2, SH-7.4 glass 3s)."""
    return frozenset((TWO, TEN, THREE) if g.options.three_invisible else (TWO, TEN))


def shithead_chances(g: Shithead, seat: int, action: Action) -> list[Chance]:
    """See the module docstring."""
    if g.phase != "play" or g.source == "face_down" or action.kind not in ("play", "pickup"):
        return []
    specials = _specials(g)
    sets: Sequence[list[int]] = g.play_sets(seat)
    ordinary = [s for s in sets if s[0] >> 2 not in specials]
    special = {s[0] >> 2: len(s) for s in sets if s[0] >> 2 in specials}
    at = (
        Facet.STOCK if g.stock else Facet.NO_STOCK,
        Facet.HAND if g.source == "hand" else Facet.FACE_UP,
    )
    rank = action.cards[0] >> 2 if action.kind == "play" else -1
    out: list[Chance] = []
    if ordinary and special:
        for r in sorted(special):
            out.append(Chance(_WASTE[r], at, rank == r))
        out.append(Chance(Convention.WASTE_SPECIAL, at, rank in specials))
    if sets and g.pile:
        with_ordinary = (*at, Facet.ORDINARY_PLAYS) if ordinary else at
        out.append(Chance(Convention.PICKUP_WITH_PLAY, with_ordinary, action.kind == "pickup"))
    if action.kind == "pickup":
        out.append(Chance(Convention.PICKUP_FORCED, at, not sets))
        return out
    if rank not in specials and len(ordinary) >= 2:  # play sets come lowest first
        out.append(Chance(Convention.OVERPLAY, at, rank != ordinary[0][0] >> 2))
    if rank in (TWO, TEN) and special.get(rank, 0) >= 2:
        out.append(Chance(Convention.SPECIAL_DOUBLED, at, len(action.cards) >= 2))
    return out
