"""What one seat (or a spectator) may see of a Shithead game: the only road to the wire.

Fields of :func:`build_view` (cards as wire codes; those the same for every seat first, in
:func:`shared_view`, then the seat's own, in :func:`own_view`: ``seat``, ``hand``, ``legal``,
``play_sets``)::

    game, phase, seat, players, dealer, starter, to_act
    turn, source    the seat to play and where it plays from (hand, face_up, face_down)
    pile            the pile, bottom first;  stock, burned: counts only
    to_beat         the card to beat (SH-4.1): the pile's top, or with glass 3s the topmost
                    card that is not a 3 (SH-7.4); None on an empty pile
    options         the house rules in force (SH-7.5), every option named
    seats           per seat: hand_count, known_in_hand (public cards known to be in that
                    hand: picked up from the pile, or taken from the face-up cards),
                    face_up, face_down (which slots still hold a card; never the cards),
                    ready, out, place
    hand            own cards (None for a spectator), ordinary ranks low to high, then 2s, 10s
    legal           this seat's legal actions ([] otherwise), exact except for plays: every
                    ``ready``, every swap pair (hand card, face-up card), every ``pickup`` (plain,
                    or one entry per face-up card it may add, SH-5.2), every ``flip`` slot; plays
                    as one representative per rank and count
    play_sets       lists of card codes, one per rank the seat may play now (from the place it
                    must play from): ANY non-empty subset of ONE list is a legal ``play``.
                    [] when the seat cannot play cards now (and for spectators)
    outcome         the outcome once over, else None

Clients read ``legal`` and ``play_sets`` and never re-implement a rule.

>>> from server.rules.shithead import Shithead
>>> v = Shithead.new(3, dealer=0, seed=2).view(None)
>>> v["hand"], v["seats"][0]["face_down"], v["stock"]
(None, [True, True, True], 25)
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import Protocol, cast

from protocol import views as v
from protocol.cards import CODES, TEN, TWO, card_codes
from protocol.messages import ShitheadOptions
from server.rules.base import Action, Game


class Outcome(Protocol):
    """A finished game's outcome as the view reads it (``shithead.ShitheadOutcome`` is one)."""

    def to_json(self) -> v.ShitheadOutcome: ...


class Table(Game):
    """What a view reads of a Shithead game: :class:`server.rules.shithead.Shithead` is the one
    subclass. The view's two halves are this class's methods, defined here so that the view
    needs nothing of the game's module, and so that ``game.own_view`` is the view's function
    itself: one call per seat's view, interpreted or compiled (mypyc takes methods, not
    functions stored on a class)."""

    __slots__ = ()

    @property
    @abstractmethod
    def phase(self) -> v.ShitheadPhase: ...
    @property
    @abstractmethod
    def hands(self) -> Sequence[Sequence[int]]: ...
    @property
    @abstractmethod
    def known(self) -> Sequence[Sequence[int]]: ...
    @property
    @abstractmethod
    def face_up(self) -> Sequence[Sequence[int]]: ...
    @property
    @abstractmethod
    def face_down(self) -> Sequence[Sequence[int | None]]: ...
    @property
    @abstractmethod
    def ready(self) -> Sequence[bool]: ...
    @property
    @abstractmethod
    def out(self) -> Sequence[int]: ...
    @property
    @abstractmethod
    def starter(self) -> int: ...
    @property
    @abstractmethod
    def turn(self) -> int: ...
    @property
    @abstractmethod
    def source(self) -> v.Source: ...
    @property
    @abstractmethod
    def pile(self) -> Sequence[int]: ...
    @property
    @abstractmethod
    def stock(self) -> Sequence[int]: ...
    @property
    @abstractmethod
    def burned(self) -> Sequence[int]: ...
    @property
    @abstractmethod
    def to_beat(self) -> int | None: ...
    @property
    @abstractmethod
    def options(self) -> ShitheadOptions: ...

    @abstractmethod
    def outcome(self) -> Outcome | None: ...
    @abstractmethod
    def exact_legal_actions(self, seat: int) -> list[Action]: ...
    @abstractmethod
    def play_sets(self, seat: int) -> list[list[int]]: ...

    def shared_view(self) -> v.ShitheadSharedView:
        """The fields of :func:`build_view` that are the same for every seat and spectator."""
        g = self
        seats: list[v.ShitheadSeat] = []
        for s in range(g.num_players):
            place = g.out.index(s) + 1 if s in g.out else None
            seats.append(
                {
                    "hand_count": len(g.hands[s]),
                    "known_in_hand": card_codes(g.known[s]),
                    "face_up": card_codes(g.face_up[s]),
                    "face_down": [c is not None for c in g.face_down[s]],
                    "ready": g.ready[s],
                    "out": place is not None,
                    "place": place,
                }
            )
        outcome = g.outcome()
        playing = g.phase == "play"
        return {
            "game": "shithead",
            "phase": g.phase,
            "players": g.num_players,
            "dealer": g.dealer,
            "starter": g.starter,
            "turn": g.turn if playing else None,
            "to_act": list(g.to_act()),
            "source": g.source if playing else None,
            "pile": card_codes(g.pile),
            "stock": len(g.stock),
            "burned": len(g.burned),
            "to_beat": None if (beat := g.to_beat) is None else CODES[beat],
            "options": cast(v.ShitheadRules, g.options.model_dump()),
            "seats": seats,
            "outcome": outcome.to_json() if outcome else None,
        }

    def own_view(self, seat: int | None) -> v.ShitheadOwnView:
        """The fields of :func:`build_view` that are ``seat``'s own (``None``: a spectator's)."""
        g = self
        return {
            "seat": seat,
            "hand": card_codes(sorted(g.hands[seat], key=_hand_order))
            if seat is not None
            else None,
            "legal": [a.to_json() for a in g.exact_legal_actions(seat)] if seat is not None else [],
            "play_sets": [card_codes(cs) for cs in g.play_sets(seat)] if seat is not None else [],
        }


def _hand_order(c: int) -> tuple[int, int]:
    """Sort a hand for people: ordinary ranks low to high, then 2s, then 10s."""
    r = c >> 2
    return (13 if r == TWO else 14 if r == TEN else r, c & 3)


def build_view(
    game: Table, seat: int | None, shared: Mapping[str, object] | None = None
) -> v.ShitheadView:
    """The view of ``game`` for ``seat`` (``None``: spectator). See the module docstring.
    ``shared``: :func:`shared_view` of this state (or stand-ins for its values), if built.
    The shared fields come first, then the seat's own (:func:`own_view`)."""
    if shared is None:
        return {**game.shared_view(), **game.own_view(seat)}
    # the caller vouches that ``shared`` stands for this state's shared view
    return cast(v.ShitheadView, {**shared, **game.own_view(seat)})
