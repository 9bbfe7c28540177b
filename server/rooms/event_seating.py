"""Seating an event's round: who sits at which table, in which seat. Pure functions of the
entrants and what has been played; round 1's order is drawn from the event's seed
(:func:`server.rooms.event_deals.draw`).

Tables are filled in order; bots fill the last table's empty seats (``None`` below).

>>> seat_in_order(["a", "b", "c", "d", "e", "f", "g"], 5)
[('a', 'b', 'c', 'd', 'e'), ('f', 'g', None, None, None)]
>>> met = meetings([[("a", "b", "c", "d", "e"), ("f", "g", "h", "i", "j")]])
>>> met[frozenset(("a", "b"))], met.get(frozenset(("a", "f")), 0)
(1, 0)
>>> tables = seat_by_rotation(list("abcdefghij"), 5, met)
>>> repeated(tables, met)  # each table of five split 3 + 2: 3 + 1 pairs again, twice
8
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

#: A seat of a table: an entrant's id, or ``None`` (a bot fills it).
Seat = str | None
Table = tuple[Seat, ...]
#: How often each pair of entrants has sat at one table.
Meetings = Mapping[frozenset[str], int]

#: Passes of pairwise swaps the rotation makes at most (each pass is quadratic in people).
MAX_PASSES = 20


def table_count(people: int, table_size: int) -> int:
    """Tables for ``people`` (the last one filled up by bots)."""
    return max(1, -(-people // table_size))


def seat_in_order(order: Sequence[str], table_size: int) -> list[Table]:
    """``order`` seated table by table (by standings: the leaders at table 1), bots last."""
    count = table_count(len(order), table_size)
    seats: list[Seat] = [*order, *[None] * (count * table_size - len(order))]
    return [tuple(seats[t * table_size : (t + 1) * table_size]) for t in range(count)]


def meetings(rounds: Iterable[Sequence[Table]]) -> Counter[frozenset[str]]:
    """How often each pair of entrants sat at one table in ``rounds``."""
    met: Counter[frozenset[str]] = Counter()
    for tables in rounds:
        for table in tables:
            people = [p for p in table if p is not None]
            met.update(frozenset(pair) for pair in itertools.combinations(people, 2))
    return met


def _cost(person: str, others: Iterable[Seat], met: Meetings) -> int:
    """What seating ``person`` with ``others`` costs: the square of how often each pair met,
    so that a pair meeting a third time weighs more than two pairs meeting a second."""
    return sum(
        met.get(frozenset((person, o)), 0) ** 2 for o in others if o is not None and o != person
    )


def repeated(tables: Sequence[Table], met: Meetings) -> int:
    """Pairs seated together in ``tables`` weighted by how often they met before."""
    return sum(
        met.get(frozenset(pair), 0)
        for table in tables
        for pair in itertools.combinations([p for p in table if p is not None], 2)
    )


def seat_by_rotation(people: Sequence[str], table_size: int, met: Meetings) -> list[Table]:
    """``people`` seated so that the fewest pairs sit together again: each in turn (those who
    met the most first) at the table where they met the fewest so far, then swaps between
    tables while one lowers the pairs seated again (each weighted by the square of how often it
    met, so nobody meets one person every round while others are new). Deterministic: the
    same inputs, the same seats."""
    count = table_count(len(people), table_size)
    room = [table_size] * count
    room[-1] = len(people) - table_size * (count - 1)
    weight = Counter[str]()
    for pair, times in met.items():
        for p in pair:
            weight[p] += times
    order = sorted(people, key=lambda p: -weight[p])  # stable: ties keep the given order
    tables: list[list[str]] = [[] for _ in range(count)]
    for person in order:
        free = [t for t in range(count) if len(tables[t]) < room[t]]
        best = min(free, key=lambda t: (_cost(person, tables[t], met), len(tables[t]), t))
        tables[best].append(person)
    for _ in range(MAX_PASSES):
        if not _improve(tables, met):
            break
    return [tuple([*t, *[None] * (table_size - len(t))]) for t in tables]


def _improve(tables: list[list[str]], met: Meetings) -> bool:
    """One pass of swaps between tables, each made when it lowers the repeated pairs."""
    better = False
    for i, j in itertools.combinations(range(len(tables)), 2):
        for a, b in itertools.product(range(len(tables[i])), range(len(tables[j]))):
            x, y = tables[i][a], tables[j][b]
            rest_i = tables[i][:a] + tables[i][a + 1 :]
            rest_j = tables[j][:b] + tables[j][b + 1 :]
            now = _cost(x, rest_i, met) + _cost(y, rest_j, met)
            after = _cost(y, rest_i, met) + _cost(x, rest_j, met)
            if after < now:
                tables[i][a], tables[j][b] = y, x
                better = True
    return better
