"""Rollouts for Sheepshead search: finish a sampled hand with the heuristic policy for every
seat, the table conventions kept
(:func:`~server.bots.sheepshead_conventions.choose_conventional`: the picker's side leads trump,
defenders lead fail, points go onto a friend's sure trick; the searching seat plays its own
later cards the same way), each seat knowing what it could know in real play (the partner hidden
from the defenders and from the picker until the called card falls, the voids the others
showed), or solve it exactly near the end (:func:`evaluate`).
"""

from __future__ import annotations

import random

from server.bots.sheepshead_conventions import choose_conventional
from server.bots.sheepshead_policy import PLAYERS, Table
from server.rules.sheepshead import PLAY, Sheepshead
from server.rules.sheepshead_cards import SUIT_CLASS

#: Solve exactly when every hand holds at most this many cards.
EXACT_CARDS = 2


_ALL = frozenset(range(PLAYERS))


#: What a seat knows of the teams in a playout: its friends, its foes, and whether it is on the
#: picker's side.
Teams = tuple[frozenset[int], frozenset[int], bool]


def teams_known(g: Sheepshead, seat: int) -> Teams:
    """The teams as far as ``seat`` could know them (the partner knows, the others learn when
    the called card falls); they change only when the partner shows or alone is known."""
    picker, partner = g.picker, g.partner
    friends: frozenset[int] = frozenset()
    foes: frozenset[int] = frozenset()
    side = False
    # alone is known to all when declared or shown (SS-10.2: a picker holding JD is alone
    # without saying so, and only it knows until JD falls)
    known_alone = partner is None and (g.alone or seat == picker)
    if picker is None:
        pass
    elif known_alone or g.revealed:
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
    return friends, foes, side


def table_from_game(
    g: Sheepshead,
    seat: int,
    seen: set[int],
    voids: list[set[int]],
    teams: Teams | None = None,
) -> Table:
    """The :class:`Table` of ``seat`` in a playout: cards are known from the sampled deal, the
    teams only as far as the seat could know them (:func:`teams_known`, or ``teams`` when the
    caller has them), and the voids the others showed (``voids``): what the ``basic`` bot sees
    in its view, so the playouts model it exactly."""
    friends, foes, side = teams_known(g, seat) if teams is None else teams
    picker = g.picker
    fd = g.trick_face_down
    called = g.called
    trick_cards = g.trick_cards
    return Table(
        seat=seat,
        hand=g.hand(seat),
        legal=g.legal_cards(seat),
        trick_seats=g.trick_seats,
        trick_cards=trick_cards
        if fd < 0
        else [-1 if i == fd else c for i, c in enumerate(trick_cards)],
        seen=seen,
        leaster=picker is None,
        picker=-1 if picker is None else picker,
        called=-1 if called is None else called,
        called_suit_led=g.called_suit_led,
        friends=friends,
        foes=foes,
        tricks_won=g.tricks_won,
        points_won=g.points_won,
        picker_side=side,
        voids=voids,
    )


def _seen(g: Sheepshead) -> set[int]:
    seen = {c for t in g.tricks for c in t.cards}
    seen.update(g.trick_cards)
    return seen


def led_class(cards: list[int] | tuple[int, ...], face_down: int) -> int:
    """The suit class led in a trick (the face-down card shows none), or -1."""
    for i, c in enumerate(cards):
        if i != face_down:
            return SUIT_CLASS[c]
    return -1


def void_suits(g: Sheepshead) -> list[set[int]]:
    """The suits each seat showed it lacks, from the face-up cards played so far."""
    voids: list[set[int]] = [set() for _ in range(PLAYERS)]
    tricks = [(t.seats, t.cards, t.face_down) for t in g.tricks]
    tricks.append((tuple(g.trick_seats), tuple(g.trick_cards), g.trick_face_down))
    for seats, cards, fd in tricks:
        led = led_class(cards, fd)
        for i, (s, c) in enumerate(zip(seats, cards, strict=True)):
            if i != fd and SUIT_CLASS[c] != led:
                voids[s].add(led)
    return voids


def playout(g: Sheepshead, rng: random.Random) -> None:
    """Finish ``g`` in place with the heuristic policy for every seat."""
    seen = _seen(g)
    voids = void_suits(g)
    known: dict[tuple[int, bool, bool], Teams] = {}  # the teams by seat, revealed, alone
    while not g.is_over():
        seat = g.turn
        legal = g.legal_cards(seat)
        if len(legal) == 1:
            c = legal[0]
        else:
            key = (seat, g.revealed, g.alone)
            teams = known.get(key)
            if teams is None:
                teams = known[key] = teams_known(g, seat)
            c = choose_conventional(table_from_game(g, seat, seen, voids, teams))
        led = led_class(g.trick_cards, g.trick_face_down)
        if led >= 0 and SUIT_CLASS[c] != led and c != g.unknown_card:
            voids[seat].add(led)
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


def evaluate(g: Sheepshead, me: int, rng: random.Random, exact_cards: int = EXACT_CARDS) -> float:
    """Units ``me`` wins from ``g`` on: exact once every hand holds ``exact_cards`` or fewer
    (not in leasters, where a team minimax does not fit), else a playout."""
    if g.is_over():
        result = g.outcome()
        assert result is not None
        return float(result.units[me])
    if g.picker is not None and max(len(g.hand(s)) for s in range(PLAYERS)) <= exact_cards:
        return solve(g, me, _teammates(g, me), -1e9, 1e9)
    playout(g, rng)
    result = g.outcome()
    assert result is not None
    return float(result.units[me])
