"""What one seat (or a spectator) may see of a Sheepshead hand: the only road to the wire.

Fields of :func:`build_view` (cards as wire codes; those the same for every seat first, in
:func:`shared_view`, then the seat's own, in :func:`own_view`: ``seat``, ``legal``,
``bury_from``, ``hand``, ``you_are_partner``, ``buried``, ``blind``, ``unknown_card``)::

    game, phase, seat, dealer, players, to_act
    legal           this seat's legal actions ([] otherwise), every one listed exactly: pick,
                    pass, every bury pair, every call / call_unknown (ace, card) / alone, and
                    every card it may play
    bury_from       the picker's own view in the bury phase: the cards it may bury (its hand,
                    blind included); any 2 distinct cards of it are a legal ``bury``. Else []
    hand            own cards, sorted (None for a spectator); the unknown card is not in it
    hand_counts     cards each seat still holds (the picker's unknown card included)
    played_counts   cards each seat has played
    passed          seats that passed, in order;  picker: seat or None;  leaster: bool
    called          the called card or None; alone, unknown_call: bools;  called_suit_led: bool
    you_are_partner True only in the partner's own view (they know it from their hand)
    partner         the partner's seat once the called card is played (or the hand is over)
    buried, blind   the picker's own view only (and everyone's once over), else None
    unknown_card    the picker's own view only (they set it aside), everyone's once over
    trick           {number, leader, cards: [{seat, card, face_down}]}; face down: card None
    tricks          completed tricks, same form, with winner and visible points
    tricks_won      tricks per seat;  visible_points: card points of face-up cards won per seat
    result          the full breakdown once over, else None
    options         the house rules in force (SS-10.6)
    multiplier      the hand's multiplier so far (SS-10.3 carried, x2 per crack, SS-10.5)
    jd_partner      the picker chose the jack's partner (SS-10.2); who holds JD shows only as
                    ``partner`` once JD is played (``alone`` if it was the picker), or at the end
    cracked         the seat that cracked, or None;  recracked: the picker once re-cracked

>>> from server.rules.sheepshead import Sheepshead
>>> v = Sheepshead.new(5, dealer=4, seed=1).view(None)
>>> v["hand"], v["to_act"], v["legal"]
(None, [0], [])
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import Protocol, cast

from protocol import views as v
from protocol.cards import CODES
from server.rules.base import Action, Game
from server.rules.sheepshead_cards import POINTS
from server.rules.sheepshead_scoring import HandResult

#: What :func:`_completed_tricks` keeps on the hand: (last trick, number of tricks, hand over,
#: the tricks' JSON, the face-up points won per seat).
TricksMemo = tuple[object | None, int, bool, list[v.DoneTrick], list[int]]


class DoneTrick(Protocol):
    """A completed trick as the view reads it (``sheepshead.Trick`` is one)."""

    @property
    def number(self) -> int: ...
    @property
    def leader(self) -> int: ...
    @property
    def seats(self) -> Sequence[int]: ...
    @property
    def cards(self) -> Sequence[int]: ...
    @property
    def face_down(self) -> int: ...
    @property
    def winner(self) -> int: ...


class Hand(Game):
    """What a view reads of a Sheepshead hand: :class:`server.rules.sheepshead.Sheepshead` is
    the one subclass. The view's two halves are this class's methods, defined here so that the
    view needs nothing of the game's module, and so that ``game.own_view`` is the view's
    function itself: one call per seat's view, interpreted or compiled (mypyc takes methods,
    not functions stored on a class)."""

    __slots__ = ("tricks_memo",)

    #: the completed tricks as views show them, shared by every view of one state (set by
    #: the game's constructor and clone, kept by :func:`_completed_tricks`)
    tricks_memo: TricksMemo | None

    @property
    @abstractmethod
    def phase(self) -> v.SheepsheadPhase: ...
    @property
    @abstractmethod
    def picker(self) -> int | None: ...
    @property
    @abstractmethod
    def called(self) -> int | None: ...
    @property
    @abstractmethod
    def partner(self) -> int | None: ...
    @property
    @abstractmethod
    def revealed(self) -> bool: ...
    @property
    @abstractmethod
    def alone(self) -> bool: ...
    @property
    @abstractmethod
    def passes(self) -> int: ...
    @property
    @abstractmethod
    def buried(self) -> Sequence[int]: ...
    @property
    @abstractmethod
    def blind(self) -> Sequence[int]: ...
    @property
    @abstractmethod
    def unknown_card(self) -> int | None: ...
    @property
    @abstractmethod
    def called_suit_led(self) -> bool: ...
    @property
    @abstractmethod
    def trick_number(self) -> int: ...
    @property
    @abstractmethod
    def leader(self) -> int: ...
    @property
    @abstractmethod
    def trick_seats(self) -> Sequence[int]: ...
    @property
    @abstractmethod
    def trick_cards(self) -> Sequence[int]: ...
    @property
    @abstractmethod
    def trick_face_down(self) -> int: ...
    @property
    @abstractmethod
    def tricks(self) -> Sequence[DoneTrick]: ...
    @property
    @abstractmethod
    def tricks_won(self) -> Sequence[int]: ...
    @property
    @abstractmethod
    def played_counts(self) -> Sequence[int]: ...
    @property
    @abstractmethod
    def leaster(self) -> bool: ...
    @property
    @abstractmethod
    def options_json(self) -> v.SheepsheadOptionsWire: ...
    @property
    @abstractmethod
    def multiplier(self) -> int: ...
    @property
    @abstractmethod
    def jd_partner(self) -> bool: ...
    @property
    @abstractmethod
    def cracked(self) -> int | None: ...
    @property
    @abstractmethod
    def recracked(self) -> int | None: ...

    @abstractmethod
    def hand_count(self, seat: int) -> int: ...
    @abstractmethod
    def hand(self, seat: int) -> list[int]: ...
    @abstractmethod
    def is_over(self) -> bool: ...
    @abstractmethod
    def outcome(self) -> HandResult | None: ...
    @abstractmethod
    def to_act(self) -> tuple[int, ...]: ...
    @abstractmethod
    def legal_actions(self, seat: int) -> list[Action]: ...

    def shared_view(self) -> v.SheepsheadSharedView:
        """The fields of :func:`build_view` that are the same for every seat and spectator."""
        g = self
        over = g.is_over()
        partner = g.partner
        tricks, visible_points = _completed_tricks(g, over)
        result = g.outcome()
        called = g.called
        return {
            "game": "sheepshead",
            "phase": g.phase,
            "dealer": g.dealer,
            "players": g.num_players,
            "to_act": list(g.to_act()),
            "hand_counts": [g.hand_count(s) for s in range(g.num_players)],
            "played_counts": list(g.played_counts),
            "passed": [(g.dealer + 1 + i) % g.num_players for i in range(g.passes)],
            "picker": g.picker,
            "leaster": g.leaster,
            "called": CODES[called] if called is not None else None,
            "alone": g.alone,
            "unknown_call": g.unknown_card is not None,
            "called_suit_led": g.called_suit_led,
            "partner": partner if partner is not None and (g.revealed or over) else None,
            "trick": {
                "number": g.trick_number + 1 if not over else None,
                "leader": g.leader if not over else None,
                "cards": _cards_json(g.trick_seats, g.trick_cards, g.trick_face_down, over),
            },
            "tricks": list(tricks),
            "tricks_won": list(g.tricks_won),
            "visible_points": list(visible_points),
            "result": result.to_json() if result is not None else None,
            "options": g.options_json,
            "multiplier": g.multiplier,
            "jd_partner": g.jd_partner,
            "cracked": g.cracked,
            "recracked": g.recracked,
        }

    def own_view(self, seat: int | None) -> v.SheepsheadOwnView:
        """The fields of :func:`build_view` that are ``seat``'s own (``None``: a spectator's)."""
        g = self
        over = g.is_over()
        is_player = seat is not None and 0 <= seat < g.num_players
        picker = g.picker
        is_picker = is_player and picker is not None and seat == picker
        partner = g.partner
        unknown = g.unknown_card
        # a map, not a generator: sorted() reads it in C (no resumption per card)
        own = (
            sorted(map(CODES.__getitem__, g.hand(seat))) if is_player and seat is not None else None
        )
        see_picker_secrets = over or is_picker
        return {
            "seat": seat,
            "legal": [a.to_json() for a in g.legal_actions(seat)]
            if is_player and seat is not None
            else [],
            "bury_from": own if is_picker and own is not None and g.phase == "bury" else [],
            "hand": own,
            "you_are_partner": is_player and partner is not None and seat == partner,
            "buried": [CODES[c] for c in g.buried]
            if see_picker_secrets and picker is not None
            else None,
            "blind": [CODES[c] for c in g.blind]
            if (over or (is_picker and picker is not None))
            else None,
            "unknown_card": CODES[unknown] if see_picker_secrets and unknown is not None else None,
        }


def _cards_json(
    seats: Sequence[int],
    cards: Sequence[int],
    face_down: int,
    reveal: bool,
) -> list[v.TrickCard]:
    out: list[v.TrickCard] = []
    for i, (s, c) in enumerate(zip(seats, cards, strict=True)):
        hidden = i == face_down
        out.append(
            {"seat": s, "card": CODES[c] if (reveal or not hidden) else None, "face_down": hidden}
        )
    return out


def _completed_tricks(g: Hand, over: bool) -> tuple[list[v.DoneTrick], list[int]]:
    """The completed tricks as every seat sees them, and the face-up points each seat has won.

    The same for every seat and spectator, so it is built once per state of the hand and kept
    on the game: tricks are immutable and only ever appended, so the last trick (held, so its
    identity stays unique), their number and whether the hand is over name the state.
    """
    done = g.tricks
    last = done[-1] if done else None
    cached = g.tricks_memo
    if cached is not None and cached[0] is last and cached[1] == len(done) and cached[2] == over:
        return cached[3], cached[4]
    visible_points = [0] * g.num_players
    tricks: list[v.DoneTrick] = []
    for t in done:
        pts = sum(POINTS[c] for i, c in enumerate(t.cards) if over or i != t.face_down)
        visible_points[t.winner] += pts
        tricks.append(
            {
                "number": t.number + 1,
                "leader": t.leader,
                "cards": _cards_json(t.seats, t.cards, t.face_down, over),
                "winner": t.winner,
                "points": pts,
            }
        )
    g.tricks_memo = (last, len(done), over, tricks, visible_points)
    return tricks, visible_points


def build_view(
    game: Hand, seat: int | None, shared: Mapping[str, object] | None = None
) -> v.SheepsheadView:
    """The view of ``game`` for ``seat`` (``None``: spectator). See the module docstring.
    ``shared``: :func:`shared_view` of this state (or stand-ins for its values), if built.
    The shared fields come first, then the seat's own (:func:`own_view`)."""
    if shared is None:
        return {**game.shared_view(), **game.own_view(seat)}
    # the caller vouches that ``shared`` stands for this state's shared view
    return cast(v.SheepsheadView, {**shared, **game.own_view(seat)})
