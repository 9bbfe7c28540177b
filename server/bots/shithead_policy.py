"""Shithead heuristics, shared by the ``basic`` bot (from its view) and the ``strong`` bot's
playouts (from sampled positions). Cards are the integers of :mod:`protocol.cards`.

The lowest useful play, every copy of it; 2s and 10s kept until nothing ordinary can be played
(a 10 for a big or high pile, a 2 otherwise); four of a kind completed whenever possible (a burn
and another turn); the pile picked up only when nothing else is legal.

Under the house rules (SH-7; the legal plays already follow them): with ``seven_lower`` a 7
counts as a blocker (only 3 to 7 may follow it), so when the next player is about to go out the
play that leaves them the fewest ranks is chosen, a 7 included; with ``eight_skips`` an 8 skips
a next player about to go out (with three or more still playing: heads-up the turn would come
straight back, on one's own 8); with ``three_invisible`` 3s are kept like 2s and 10s, and played
before them when nothing ordinary goes (a glass 3 leaves the next player the same card to beat,
where a 2 would free the pile for them), and they are worth keeping face up.

>>> from server.rules.base import Action
>>> from protocol.cards import parse_cards
>>> legal = [Action.from_str(s) for s in ("play 5C", "play 9H", "play 2D", "pickup")]
>>> choose_play(legal, parse_cards("4S")).to_str()
'play 5C'
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from protocol.cards import ACE, EIGHT, KING, QUEEN, SEVEN, TEN, THREE, TWO
from protocol.messages import ShitheadOptions
from server.rules.base import Action

_SPECIAL = (TWO, TEN)
_BOOK = ShitheadOptions()


def face_up_value(c: int, glass: bool = False) -> int:
    """How much a card is worth lying face up for the endgame: 10s, 2s, glass 3s (SH-7.4:
    they go on anything), then high ranks."""
    r = c >> 2
    if r == TEN:
        return 100
    if r == TWO:
        return 90
    if glass and r == THREE:
        return 80
    return r


def target_face_up(cards: Sequence[int], glass: bool = False) -> list[int]:
    """The ranks to lie face up (three of the six cards of hand and face-up), best first."""
    ranks = sorted((c >> 2 for c in cards), key=lambda r: -face_up_value(r * 4, glass))
    return ranks[:3]


def swap_action(
    hand: Sequence[int], face_up: Sequence[int], legal: Sequence[Action], glass: bool = False
) -> Action:
    """The next swap toward :func:`target_face_up`, or ``ready`` once there."""
    want = target_face_up([*hand, *face_up], glass)
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


def ranks_left_after(r: int, rules: ShitheadOptions) -> int:
    """How many ordinary ranks the next player may play on rank ``r`` (3…A; SH-4.1, SH-7.2)."""
    if rules.seven_lower and r == SEVEN:
        return 5  # 3 to 7
    return sum(1 for o in range(THREE, ACE + 1) if o != TEN and o >= r)


def choose_play(
    legal: Sequence[Action],
    pile: Sequence[int],
    rng: random.Random | None = None,
    danger: bool = False,
    *,
    rules: ShitheadOptions = _BOOK,
    crowd: bool = False,
) -> Action:
    """The heuristic action in the play phase. ``danger``: the next player is about to go out,
    so hold them back with the ordinary play that leaves them the fewest ranks instead of the
    lowest. ``rules``: the house rules in force; ``crowd``: three or more players still in."""
    if legal[0].kind == "flip":  # face-down cards: the legal actions are all flips
        return legal[0] if rng is None else legal[rng.randrange(len(legal))]
    plays = [a for a in legal if a.kind == "play"]
    if not plays:
        return min(legal, key=lambda a: (len(a.cards), a.cards[0] >> 2 if a.cards else 0))
    by_rank = best_by_rank(plays)
    top, run = _top_run(pile)
    if top >= 0 and top in by_rank and run + len(by_rank[top].cards) >= 4:
        return by_rank[top]  # four of a kind: burn and play again
    if rules.eight_skips and danger and crowd and EIGHT in by_rank:
        return Action("play", by_rank[EIGHT].cards[:1])  # SH-7.3: skip the one about to go out
    glass = rules.three_invisible
    special = (*_SPECIAL, THREE) if glass else _SPECIAL
    ordinary = sorted(r for r in by_rank if r not in special)
    if ordinary:
        if danger:
            return by_rank[min(reversed(ordinary), key=lambda r: ranks_left_after(r, rules))]
        return by_rank[ordinary[0]]
    big = len(pile) >= 4 or any(c >> 2 in (QUEEN, KING, ACE) for c in pile)
    if glass and THREE in by_rank and (not big or (TWO not in by_rank and TEN not in by_rank)):
        return Action("play", by_rank[THREE].cards[:1])  # SH-7.4: pass the card to beat on
    if not pile:
        r = TWO if TWO in by_rank else TEN
    elif big or danger:
        r = TEN if TEN in by_rank else TWO
    else:
        r = TWO if TWO in by_rank else TEN
    return Action("play", by_rank[r].cards[:1])
