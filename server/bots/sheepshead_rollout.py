"""Rollouts for Sheepshead search: finish a sampled hand with the heuristic policy for every
seat (the partner known to everyone: a cheap, slightly optimistic stand-in for real play), or
solve it exactly once two tricks or fewer remain.
"""

from __future__ import annotations

import random

from server.bots.sheepshead_policy import PLAYERS, Table, choose_card
from server.rules.sheepshead import PLAY, Sheepshead

#: Solve exactly when every hand holds at most this many cards.
EXACT_CARDS = 2


_ALL = frozenset(range(PLAYERS))
#: Whether playouts let each seat know only what it could know of the teams (the partner knows,
#: the others learn when the called card falls) rather than telling everyone.
HIDDEN_PARTNER = False


def _table_from_game(g: Sheepshead, seat: int, seen: set[int]) -> Table:
    """The :class:`Table` of ``seat`` in a playout: cards are known from the sampled deal, the
    teams as far as the seat could know them (see :data:`HIDDEN_PARTNER`)."""
    picker, partner = g.picker, g.partner
    leaster = picker is None
    friends: frozenset[int] = frozenset()
    foes: frozenset[int] = frozenset()
    side = False
    if picker is None:
        pass
    elif partner is None or g.revealed or not HIDDEN_PARTNER:
        team = {picker} if partner is None else {picker, partner}
        side = seat in team
        mine = team if side else _ALL - team
        friends = frozenset(mine - {seat})
        foes = _ALL - mine
    elif seat == picker:
        side = True  # the partner is not known yet
    elif seat == partner:
        side = True
        friends = frozenset((picker,))
        foes = _ALL - {picker, seat}
    else:
        foes = frozenset((picker,))
    fd = g.trick_face_down
    called = g.called
    return Table(
        seat=seat,
        hand=g.hand(seat),
        legal=g.legal_cards(seat),
        trick_seats=g.trick_seats,
        trick_cards=[-1 if i == fd else c for i, c in enumerate(g.trick_cards)],
        seen=seen,
        leaster=leaster,
        picker=-1 if picker is None else picker,
        called=-1 if called is None else called,
        called_suit_led=g.called_suit_led,
        friends=friends,
        foes=foes,
        tricks_won=g.tricks_won,
        points_won=g.points_won,
        picker_side=side,
    )


def _seen(g: Sheepshead) -> set[int]:
    seen = {c for t in g.tricks for c in t.cards}
    seen.update(g.trick_cards)
    return seen


def playout(g: Sheepshead, rng: random.Random) -> None:
    """Finish ``g`` in place with the heuristic policy for every seat."""
    seen = _seen(g)
    while not g.is_over():
        seat = g.turn
        legal = g.legal_cards(seat)
        c = legal[0] if len(legal) == 1 else choose_card(_table_from_game(g, seat, seen), rng)
        seen.add(c)
        g.apply(seat, PLAY[c])


def _teammates(g: Sheepshead, seat: int) -> set[int]:
    picker, partner = g.picker, g.partner
    if picker is None:
        return {seat}
    team = {picker} if partner is None else {picker, partner}
    return team if seat in team else set(range(PLAYERS)) - team


def solve(g: Sheepshead, me: int, team: set[int], alpha: float, beta: float) -> float:
    """Exact minimax value (units of ``me``) of ``g``: ``team`` maximises, the others minimise."""
    if g.is_over():
        result = g.outcome()
        assert result is not None
        return float(result.units[me])
    seat = g.turn
    legal = list(g.legal_cards(seat))
    maximise = seat in team
    best = -1e9 if maximise else 1e9
    for c in legal:
        child = g.clone()
        child.apply(seat, PLAY[c])
        v = solve(child, me, team, alpha, beta)
        if maximise:
            if v > best:
                best = v
            alpha = max(alpha, v)
        else:
            if v < best:
                best = v
            beta = min(beta, v)
        if alpha >= beta:
            break
    return best


def evaluate(g: Sheepshead, me: int, rng: random.Random) -> float:
    """Units ``me`` wins from ``g`` on: exact near the end (not in leasters), else a playout."""
    if g.is_over():
        result = g.outcome()
        assert result is not None
        return float(result.units[me])
    if g.picker is not None and max(len(g.hand(s)) for s in range(PLAYERS)) <= EXACT_CARDS:
        return solve(g, me, _teammates(g, me), -1e9, 1e9)
    playout(g, rng)
    result = g.outcome()
    assert result is not None
    return float(result.units[me])
