"""The ``basic`` Shithead bot: fast heuristics from its seat's view alone.

It remembers the positions it has been asked about in the current game; when one comes round
again it plays a random legal action instead, so tables of bots never cycle forever.

>>> from server.rules.shithead import Shithead
>>> game = Shithead.new(3, 0, seed=1)
>>> ShitheadBasicBot(seed=2).choose(game.view(0)).kind in ("swap", "ready")
True
"""

from __future__ import annotations

import random
from typing import Any

from protocol.cards import parse_cards
from protocol.messages import ShitheadOptions
from protocol.views import ShitheadView, View, shithead_view
from server.bots.base import hand_of, seat_of
from server.bots.shithead_policy import choose_play, swap_action
from server.rules.base import Action


def position_key(view: ShitheadView) -> tuple[Any, ...]:
    """Everything public (and this seat's hand) about a position, hashable."""
    seats = tuple(
        (s["hand_count"], tuple(s["known_in_hand"]), tuple(s["face_up"]), tuple(s["face_down"]))
        for s in view["seats"]
    )
    return (view["turn"], tuple(hand_of(view)), tuple(view["pile"]), view["stock"], seats)


def rules_of(view: ShitheadView) -> ShitheadOptions:
    """The house rules in force, as the view shows them (SH-7.5)."""
    options = view.get("options")
    return ShitheadOptions.model_validate(options) if options else ShitheadOptions()


def crowded(view: ShitheadView) -> bool:
    """Whether three or more players still hold cards."""
    return sum(not s["out"] for s in view["seats"]) >= 3


def danger_next(view: ShitheadView) -> bool:
    """Whether the next active player holds at most two cards in all (about to go out)."""
    n = view["players"]
    seat = seat_of(view)
    for k in range(1, n):
        s = view["seats"][(seat + k) % n]
        if not s["out"]:
            left = s["hand_count"] + len(s["face_up"]) + sum(s["face_down"])
            return bool(left <= 2 and view["stock"] == 0)
    return False


def usual_play(view: ShitheadView, legal: list[Action]) -> Action:
    """The rule of thumb's play in the play phase (:func:`choose_play` from this view; a flip
    is the first face-down card): what ``strong`` starts from, and hints keep to."""
    return choose_play(
        legal,
        parse_cards(view["pile"]),
        None,
        danger_next(view),
        rules=rules_of(view),
        crowd=crowded(view),
    )


class RepeatGuard:
    """Counts positions seen in this game; a repeat asks for a varied play."""

    def __init__(self) -> None:
        self.seen: dict[tuple[Any, ...], int] = {}
        self.burned = -1

    def repeats(self, view: ShitheadView) -> int:
        if view["burned"] < self.burned or len(self.seen) > 20000:
            self.seen.clear()  # a new game (burned cards never come back)
        self.burned = view["burned"]
        key = position_key(view)
        count = self.seen.get(key, 0)
        self.seen[key] = count + 1
        return count


class ShitheadBasicBot:
    """Heuristic Shithead player."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.guard = RepeatGuard()

    def choose(self, view: View) -> Action:
        view = shithead_view(view)
        legal = [Action.from_json(a) for a in view["legal"]]
        if not legal:
            raise ValueError("this view has no legal action: it is not this seat's turn")
        me = seat_of(view)
        if view["phase"] == "swap":
            self.guard.seen.clear()
            return swap_action(
                parse_cards(hand_of(view)),
                parse_cards(view["seats"][me]["face_up"]),
                legal,
                rules_of(view).three_invisible,
            )
        if len(legal) == 1:
            return legal[0]
        if self.guard.repeats(view):
            return legal[self.rng.randrange(len(legal))]
        return choose_play(
            legal,
            parse_cards(view["pile"]),
            self.rng,
            danger_next(view),
            rules=rules_of(view),
            crowd=crowded(view),
        )
