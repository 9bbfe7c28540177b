"""The ``basic`` Sheepshead bot: fast heuristics from its seat's view alone.

>>> from server.rules.sheepshead import Sheepshead
>>> game = Sheepshead.new(5, dealer=0, seed=3)
>>> SheepsheadBasicBot(seed=1).choose(game.view(1)).kind in ("pick", "pass")
True
"""

from __future__ import annotations

import random

from protocol.cards import parse_card, parse_cards
from protocol.views import SheepsheadView, View, sheepshead_view
from server.bots.base import hand_of, seat_of
from server.bots.sheepshead_conventions import choose_conventional
from server.bots.sheepshead_policy import (
    PLAYERS,
    Table,
    choose_bury,
    go_alone,
    should_crack,
    should_pick,
    should_recrack,
)
from server.rules.base import Action
from server.rules.sheepshead_cards import FAIL_ACES, JD, POINTS, STRENGTH, SUIT_CLASS, TRUMP


def table_from_view(view: SheepsheadView) -> Table:
    """The :class:`Table` a seat sees in its view (play phase)."""
    seat = seat_of(view)
    hand = parse_cards(hand_of(view))
    legal = [parse_card(a["cards"][0]) for a in view["legal"] if a["kind"] == "play"]
    seen: set[int] = set()
    voids: list[set[int]] = [set() for _ in range(PLAYERS)]
    for trick in [*view["tricks"], view["trick"]]:
        led = -1
        for entry in trick["cards"]:
            code = entry["card"]
            if code is None:
                continue
            c = parse_card(code)
            seen.add(c)
            cls = SUIT_CLASS[c]
            if led < 0:
                led = cls
            elif cls != led:
                voids[entry["seat"]].add(led)
    trick_seats = [e["seat"] for e in view["trick"]["cards"]]
    trick_cards = [
        -1 if e["card"] is None else parse_card(e["card"]) for e in view["trick"]["cards"]
    ]
    leaster = bool(view["leaster"])
    picker = -1 if view["picker"] is None else int(view["picker"])
    partner = view["partner"]
    called = -1 if view["called"] is None else parse_card(view["called"])
    friends: set[int] = set()
    foes: set[int] = set()
    picker_side = False
    if not leaster and picker >= 0:
        others = set(range(PLAYERS)) - {seat}
        # SS-10.2: a picker who chose the jack's partner but holds JD (or buried it) is alone
        silent_alone = view["jd_partner"] and JD in [*hand, *parse_cards(view["buried"] or [])]
        if seat == picker:
            picker_side = True
            if partner is not None:
                friends.add(partner)
            if view["alone"] or silent_alone:
                foes = others
            elif partner is not None:
                foes = others - {partner}
        elif view["you_are_partner"]:
            picker_side = True
            friends.add(picker)
            foes = others - {picker}
        else:
            foes.add(picker)
            if partner is not None:
                foes.add(partner)
            if view["alone"] or partner is not None:
                friends = others - foes
    return Table(
        seat=seat,
        hand=hand,
        legal=legal,
        trick_seats=trick_seats,
        trick_cards=trick_cards,
        seen=seen,
        leaster=leaster,
        picker=picker,
        called=called,
        called_suit_led=bool(view["called_suit_led"]),
        friends=frozenset(friends),
        foes=frozenset(foes),
        tricks_won=list(view["tricks_won"]),
        points_won=list(view["visible_points"]),
        voids=voids,
        picker_side=picker_side,
    )


def choose_call(hand: list[int], legal: list[Action]) -> Action:
    """Call the ace of the suit we hold fewest cards of (one hold card is ideal); with only the
    unknown-card call open, set aside the least valuable card; alone with a monster hand.
    With the jack of diamonds (SS-10.2) take the jack's partner unless the hand goes alone
    (holding JD, the choice is the same: alone either way, and nobody is told)."""
    calls = [a for a in legal if a.kind == "call"]
    unknowns = [a for a in legal if a.kind == "call_unknown"]
    alone = next(a for a in legal if a.kind == "alone")
    jack = next((a for a in legal if a.kind == "jd_partner"), None)
    if jack is not None:
        return alone if go_alone(hand) else jack
    if go_alone(hand) or not (calls or unknowns):
        return alone

    def suit_len(c: int) -> int:
        return sum(1 for x in hand if SUIT_CLASS[x] == SUIT_CLASS[c])

    if calls:
        # Fewest cards in the called suit, then hold cards with fewest points.
        def key(a: Action) -> tuple[int, int]:
            cls = SUIT_CLASS[a.cards[0]]
            held_points = sum(POINTS[x] for x in hand if SUIT_CLASS[x] == cls)
            return (suit_len(a.cards[0]), held_points)

        return min(calls, key=key)

    return min(unknowns, key=unknown_key)


def choose_crack(view: SheepsheadView, hand: list[int]) -> Action:
    """SS-10.4: a defender cracks a strong hand, the partner (knowing it) a strong side; the
    picker re-cracks a near-alone hand. Everything else says no."""
    kinds = {a["kind"] for a in view["legal"]}
    if "recrack" in kinds:
        return Action("recrack") if should_recrack(hand) else Action("no_crack")
    return Action("crack") if should_crack(hand, view["you_are_partner"]) else Action("no_crack")


def unknown_key(a: Action) -> tuple[int, int, int]:
    """Order of ``call_unknown`` actions, best first: set aside a low, pointless card (never an
    ace, which could win for us)."""
    card = a.cards[1]
    return (card in FAIL_ACES, POINTS[card], STRENGTH[card] + (SUIT_CLASS[card] == TRUMP) * 50)


class SheepsheadBasicBot:
    """Heuristic Sheepshead player that keeps the table's conventions
    (:mod:`server.bots.sheepshead_conventions`, as strong does). Decisions use ``rng`` only to
    break exact ties."""

    def __init__(self, seed: int | None = None, pick_threshold: float = 8.0) -> None:
        self.rng = random.Random(seed)
        self.pick_threshold = pick_threshold

    def choose(self, view: View) -> Action:
        view = sheepshead_view(view)
        legal = [Action.from_json(a) for a in view["legal"]]
        if not legal:
            raise ValueError("this view has no legal action: it is not this seat's turn")
        if len(legal) == 1:
            return legal[0]
        phase = view["phase"]
        hand = parse_cards(hand_of(view))
        if phase == "pick":
            position = len(view["passed"])
            return (
                Action("pick")
                if should_pick(hand, position, self.pick_threshold)
                else Action("pass")
            )
        if phase == "bury":
            return Action("bury", choose_bury(hand))
        if phase == "call":
            return choose_call(hand, legal)
        if phase == "crack":
            return choose_crack(view, hand)
        # The table's conventions (the picker's side leads trump, defenders lead fail, points
        # onto a trick a friend surely takes) first, the heuristic among the cards that keep them.
        return Action("play", (choose_conventional(table_from_view(view), self.rng),))
