"""Shithead heuristics, shared by the ``basic`` bot (from its view) and the ``strong`` bot's
playouts (from sampled positions). Cards are the integers of :mod:`protocol.cards`.

The lowest useful play, every copy of it; 2s and 10s kept until nothing ordinary can be played
(a 10 for a big or high pile, a 2 otherwise); four of a kind completed whenever possible (a burn
and another turn); the pile picked up only when nothing else is legal.

>>> from server.rules.base import Action
>>> from protocol.cards import parse_cards
>>> legal = [Action.from_str(s) for s in ("play 5C", "play 9H", "play 2D", "pickup")]
>>> choose_play(legal, parse_cards("4S")).to_str()
'play 5C'
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from protocol.cards import ACE, KING, QUEEN, TEN, TWO
from server.rules.base import Action

_SPECIAL = (TWO, TEN)


def face_up_value(c: int) -> int:
    """How much a card is worth lying face up for the endgame: 10s, 2s, then high ranks."""
    r = c >> 2
    if r == TEN:
        return 100
    if r == TWO:
        return 90
    return r


def target_face_up(cards: Sequence[int]) -> list[int]:
    """The ranks to lie face up (three of the six cards of hand and face-up), best first."""
    ranks = sorted((c >> 2 for c in cards), key=lambda r: -face_up_value(r * 4))
    return ranks[:3]


def swap_action(hand: Sequence[int], face_up: Sequence[int], legal: Sequence[Action]) -> Action:
    """The next swap toward :func:`target_face_up`, or ``ready`` once there."""
    want = target_face_up([*hand, *face_up])
    up_ranks = sorted(c >> 2 for c in face_up)
    if sorted(want) == up_ranks:
        return Action("ready")
    missing = list(want)
    for c in face_up:
        if c >> 2 in missing:
            missing.remove(c >> 2)
    surplus = [c >> 2 for c in face_up]
    for r in want:
        if r in surplus:
            surplus.remove(r)
    for a in legal:
        if a.kind == "swap" and a.cards[0] >> 2 in missing and a.cards[1] >> 2 in surplus:
            return a
    return Action("ready")


def _top_run(pile: Sequence[int]) -> tuple[int, int]:
    """The rank on top of the pile and how many of it lie there consecutively."""
    if not pile:
        return -1, 0
    r = pile[-1] >> 2
    n = 0
    for c in reversed(pile):
        if c >> 2 != r:
            break
        n += 1
    return r, n


def best_by_rank(plays: Sequence[Action]) -> dict[int, Action]:
    """For each rank among ``plays``, the play of the most cards."""
    out: dict[int, Action] = {}
    for a in plays:
        r = a.cards[0] >> 2
        if r not in out or len(a.cards) > len(out[r].cards):
            out[r] = a
    return out


def choose_play(
    legal: Sequence[Action],
    pile: Sequence[int],
    rng: random.Random | None = None,
    danger: bool = False,
) -> Action:
    """The heuristic action in the play phase. ``danger``: the next player is about to go out,
    so hold them back with the highest ordinary play instead of the lowest."""
    flips = [a for a in legal if a.kind == "flip"]
    if flips:
        return flips[0] if rng is None else flips[rng.randrange(len(flips))]
    plays = [a for a in legal if a.kind == "play"]
    if not plays:
        return min(legal, key=lambda a: (len(a.cards), a.cards[0] >> 2 if a.cards else 0))
    by_rank = best_by_rank(plays)
    top, run = _top_run(pile)
    if top >= 0 and top in by_rank and run + len(by_rank[top].cards) >= 4:
        return by_rank[top]  # four of a kind: burn and play again
    ordinary = sorted(r for r in by_rank if r not in _SPECIAL)
    if ordinary:
        return by_rank[ordinary[-1] if danger else ordinary[0]]
    big = len(pile) >= 4 or any(c >> 2 in (QUEEN, KING, ACE) for c in pile)
    if not pile:
        r = TWO if TWO in by_rank else TEN
    elif big or danger:
        r = TEN if TEN in by_rank else TWO
    else:
        r = TWO if TWO in by_rank else TEN
    return Action("play", by_rank[r].cards[:1])
