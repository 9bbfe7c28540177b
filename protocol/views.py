"""What a ``state`` frame carries: each game's view, its parts, the events and the results, as
``TypedDict``s. The rules cores build exactly these (``server/rules/*_view.py``), the bots and
the clients read them, and :class:`protocol.messages.State` names them, so the JSON schema
says what a view holds (docs/protocol.md, "Views").

They are plain dicts at run time: typing them costs the server nothing on the hot path, and a
frame's bytes are what they were when views were ``dict[str, Any]`` (a golden test keeps them).
Cards are wire codes (``"7D"``); seats are numbers ``0 .. players - 1``.

>>> own: ShitheadOwnView = {"seat": None, "hand": None, "legal": [], "play_sets": []}
>>> list(ShitheadView.__annotations__)[-4:] == list(own)  # a view: shared fields, then own
True
"""

from __future__ import annotations

from typing import Literal, NotRequired, Required

# pydantic reads TypedDicts from typing_extensions on Python < 3.12 (the schema is built from them)
from typing_extensions import TypedDict

# ----------------------------------------------------------------------------- both games

ShitheadPhase = Literal["swap", "play", "over"]
SheepsheadPhase = Literal["pick", "bury", "call", "crack", "play", "over"]
#: Where a Shithead player plays from: the hand, then the face-up cards, then the face-down.
Source = Literal["hand", "face_up", "face_down"]


class ActionWire(TypedDict):
    """An action as a view lists it (``legal``) and a client sends it back (``act``'s
    ``action``): ``cards`` and ``slot`` only where the action has them."""

    kind: str
    cards: NotRequired[list[str]]
    slot: NotRequired[int]


class ShitheadOutcome(TypedDict):
    """A finished Shithead game (SH-6.4, SH-6.6): one loser, no draw."""

    loser: int
    out_order: list[int]
    losses: list[int]
    ended: Literal["last_player", "length_cap"]


class SheepsheadResult(TypedDict):
    """A finished Sheepshead hand, scored (SS-7)."""

    picker: int | None
    partner: int | None
    alone: bool
    leaster: bool
    called: str | None
    unknown: str | None
    buried: list[str]
    blind: list[str]
    seat_points: list[int]
    seat_tricks: list[int]
    picker_points: int
    defender_points: int
    picker_tricks: int
    defender_tricks: int
    schneider: bool
    schwarz: bool
    row: str
    leaster_winner: int | None
    units: list[int]
    multiplier: int  # SS-10.5: what the SS-7 / SS-8 payments were multiplied by


class EventData(TypedDict, total=False):
    """The game-specific fields an event may add after its ``kind``, ``seat`` and ``cards``,
    in the order the rules write them (a frame serialised by pydantic keeps this order)."""

    count: int  # Shithead drew, burned: cards
    reason: str  # burned: "ten" or "four"
    place: int  # went_out
    loser: int  # game_over
    ended: str  # game_over: as ShitheadOutcome's
    source: str  # played: hand, face_up, face_down
    slot: int  # played from face_down, flipped
    legal: bool  # flipped
    alone: bool  # Sheepshead called
    unknown: bool  # called
    number: int  # trick
    points: int  # trick: its visible points
    face_down: bool  # played (the unknown card), trick
    result: SheepsheadResult  # hand_over
    timed_out: bool  # the move (its first event) the server made for a person out of time


class _EventHead(TypedDict, total=False):
    kind: Required[str]
    seat: int
    cards: list[str]


class EventWire(_EventHead, EventData, total=False):
    """Something that happened, public to everyone at the table (never a hidden card):
    ``kind``, ``seat`` and ``cards`` where it has them, then its :class:`EventData`."""


# ----------------------------------------------------------------------------- Shithead


class ShitheadSeat(TypedDict):
    """One seat's entry in a Shithead view: what everyone sees of it."""

    hand_count: int
    known_in_hand: list[str]  # public cards known to be in that hand
    face_up: list[str]
    face_down: list[bool]  # which slots still hold a card (never the cards)
    ready: bool
    out: bool
    place: int | None


class ShitheadRules(TypedDict):
    """The house rules in force (SH-7), as ``protocol.messages.ShitheadOptions`` dumps them."""

    seven_lower: bool
    eight_skips: bool
    three_invisible: bool


class _ShitheadTable(TypedDict):
    """The fields of a Shithead view (and of a replay's) before ``seats``."""

    game: Literal["shithead"]
    phase: ShitheadPhase
    players: int
    dealer: int
    starter: int | None
    turn: int | None
    to_act: list[int]
    source: Source | None  # where ``turn`` plays from
    pile: list[str]  # bottom first
    stock: int
    burned: int
    to_beat: str | None  # the card to beat: the pile's top, or under glass 3s (SH-7.4)
    options: ShitheadRules  # the house rules in force (SH-7.5)


class ShitheadSharedView(_ShitheadTable):
    """The fields of a Shithead view the same for every seat and spectator."""

    seats: list[ShitheadSeat]
    outcome: ShitheadOutcome | None


class ShitheadOwnView(TypedDict):
    """The fields of a Shithead view that are the seat's own (a spectator's: ``seat`` None)."""

    seat: int | None
    hand: list[str] | None
    legal: list[ActionWire]
    play_sets: list[list[str]]  # any non-empty subset of one list is a legal play


class ShitheadView(ShitheadSharedView, ShitheadOwnView):
    """What one seat (or a spectator) sees of a Shithead game (server/rules/shithead_view.py)."""


# ----------------------------------------------------------------------------- Sheepshead


class TrickCard(TypedDict):
    seat: int
    card: str | None  # None: face down
    face_down: bool


class CurrentTrick(TypedDict):
    number: int | None  # None once the hand is over
    leader: int | None
    cards: list[TrickCard]


class DoneTrick(TypedDict):
    number: int
    leader: int
    cards: list[TrickCard]
    winner: int
    points: int  # visible points


class SheepsheadOptionsWire(TypedDict):
    """The house rules in force (SS-10), as ``protocol.messages.SheepsheadOptions`` dumps them."""

    partner: Literal["called_ace", "jack_of_diamonds"]
    no_pick: Literal["leaster", "doubler", "forced"]
    crack: bool


class SheepsheadSharedView(TypedDict):
    """The fields of a Sheepshead view the same for every seat and spectator."""

    game: Literal["sheepshead"]
    phase: SheepsheadPhase
    dealer: int
    players: int
    to_act: list[int]
    hand_counts: list[int]
    played_counts: list[int]
    passed: list[int]
    picker: int | None
    leaster: bool
    called: str | None
    alone: bool
    unknown_call: bool
    called_suit_led: bool
    partner: int | None
    trick: CurrentTrick
    tricks: list[DoneTrick]
    tricks_won: list[int]
    visible_points: list[int]
    result: SheepsheadResult | None
    options: SheepsheadOptionsWire  # SS-10.6: the house rules in force
    multiplier: int  # SS-10.6: the hand's multiplier so far (SS-10.3 carried, SS-10.4 cracks)
    jd_partner: bool  # SS-10.2: the picker chose the jack's partner (never who holds JD)
    cracked: int | None  # SS-10.4: the seat that cracked
    recracked: int | None  # SS-10.4: the seat that re-cracked (the picker)


class SheepsheadOwnView(TypedDict):
    """The fields of a Sheepshead view that are the seat's own (a spectator's: ``seat`` None)."""

    seat: int | None
    legal: list[ActionWire]
    bury_from: list[str]
    hand: list[str] | None
    you_are_partner: bool
    buried: list[str] | None
    blind: list[str] | None
    unknown_card: str | None


class SheepsheadView(SheepsheadSharedView, SheepsheadOwnView):
    """What one seat (or a spectator) sees of a Sheepshead hand
    (server/rules/sheepshead_view.py)."""


#: Any game's view; ``game`` tells which.
View = ShitheadView | SheepsheadView


# ----------------------------------------------------------------------------- replays


class ShitheadReplaySeat(ShitheadSeat):
    face_down_cards: list[str | None]  # the face-down cards, open (None: an empty slot)


class ShitheadReplayView(_ShitheadTable):
    """The whole table at one moment of a finished Shithead game, every card open: the
    spectator's view without its moves, each seat's ``hand`` as ``hands``, and the face-down
    cards in the seats (server/store/history.py, ``open_view``)."""

    seats: list[ShitheadReplaySeat]
    outcome: ShitheadOutcome | None
    seat: None
    hands: list[list[str]]


class SheepsheadReplayView(SheepsheadSharedView):
    """The whole table at one moment of a finished Sheepshead hand, every card open: the
    spectator's view without its moves, each seat's ``hand`` as ``hands``, and the picker's
    secrets (blind, buried, unknown card) from the picker's own view."""

    seat: None
    you_are_partner: bool
    buried: list[str] | None
    blind: list[str] | None
    unknown_card: str | None
    hands: list[list[str]]


#: A replay step's view (``GET /api/rooms/CODE/history?steps=1``).
ReplayView = ShitheadReplayView | SheepsheadReplayView


def shithead_view(view: View) -> ShitheadView:
    """``view`` as the Shithead view it is (``ValueError`` for another game's): what a
    Shithead bot or client says first, so the type checker knows every key it reads after."""
    if view["game"] == "shithead":
        return view
    raise ValueError(f"a Shithead view was expected, not a {view['game']} one")


def sheepshead_view(view: View) -> SheepsheadView:
    """``view`` as the Sheepshead view it is (``ValueError`` for another game's)."""
    if view["game"] == "sheepshead":
        return view
    raise ValueError(f"a Sheepshead view was expected, not a {view['game']} one")


def outcome_of(view: View) -> ShitheadOutcome:
    """The outcome in the view of a finished Shithead game (``ValueError`` before the end, or
    for another game's view)."""
    outcome = shithead_view(view)["outcome"]
    if outcome is None:
        raise ValueError("the game is not over")
    return outcome


def result_of(view: View) -> SheepsheadResult:
    """The result in the view of a finished Sheepshead hand (``ValueError`` before the end,
    or for another game's view)."""
    result = sheepshead_view(view)["result"]
    if result is None:
        raise ValueError("the hand is not over")
    return result
