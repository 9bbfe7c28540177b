"""Seating an event's rounds: bots fill the last table, round 1 is the draw of the event's seed,
and the rotation seats the fewest pairs together again (the least pigeonholes allow)."""

from __future__ import annotations

import itertools

import pytest

from server.rooms.event_deals import draw
from server.rooms.event_seating import (
    meetings,
    repeated,
    seat_by_rotation,
    seat_in_order,
    table_count,
)

PEOPLE_15 = [f"p{i:02}" for i in range(15)]


def everyone(tables: list[tuple[str | None, ...]]) -> list[str]:
    return sorted(p for t in tables for p in t if p is not None)


@pytest.mark.parametrize(("people", "size", "tables", "bots"), [(12, 5, 3, 3), (15, 5, 3, 0),
                         (1, 5, 1, 4), (9, 4, 3, 3), (50, 5, 10, 0)])  # fmt: skip
def test_bots_fill_the_last_table_only(people: int, size: int, tables: int, bots: int) -> None:
    seated = seat_in_order([f"p{i}" for i in range(people)], size)
    assert len(seated) == table_count(people, size) == tables
    assert all(len(t) == size for t in seated)
    assert all(None not in t for t in seated[:-1])
    assert seated[-1].count(None) == bots


def test_round_one_is_the_draw_of_the_seed_and_another_seed_draws_otherwise() -> None:
    a, b = draw(bytes(32), PEOPLE_15), draw(bytes([1]) * 32, PEOPLE_15)
    assert sorted(a) == sorted(b) == PEOPLE_15 and a != b
    assert draw(bytes(32), PEOPLE_15) == a  # anyone with the revealed seed gets the same


def test_the_rotation_meets_the_fewest_again_over_three_rounds() -> None:
    first = seat_in_order(PEOPLE_15, 5)
    met = meetings([first])
    second = seat_by_rotation(PEOPLE_15, 5, met)
    assert everyone(second) == PEOPLE_15
    # each table of five of round 1 is split over three tables, 2 + 2 + 1 at best: 2 pairs
    # again from each, 6 in all
    assert repeated(second, met) == 6
    # by standings the same order would sit the same five together: 30 pairs again
    assert repeated(seat_in_order(PEOPLE_15, 5), met) == 30
    met = meetings([first, second])
    third = seat_by_rotation(PEOPLE_15, 5, met)
    assert everyone(third) == PEOPLE_15
    # a table of five takes at least 2 pairs of one round-1 table and 2 of one round-2 table
    assert repeated(third, met) == 12
    # 30 pairs after round 1, 24 more after round 2, and 18 more (30 less the 12 seated
    # again): no pair sits together a third time
    met3 = meetings([first, second, third])
    assert len(met3) == 72 and max(met3.values()) == 2


def test_the_rotation_keeps_the_bots_at_the_last_table_and_is_deterministic() -> None:
    people = [f"p{i:02}" for i in range(12)]
    met = meetings([seat_in_order(people, 5)])
    seated = seat_by_rotation(people, 5, met)
    assert seated == seat_by_rotation(people, 5, met)
    assert [t.count(None) for t in seated] == [0, 0, 3]
    assert repeated(seated, met) == 4  # 2 + 2 from the two full tables of round 1
    assert everyone(seated) == sorted(people)


def test_meetings_count_every_pair_of_people_and_no_bot() -> None:
    met = meetings([[("a", "b", None)], [("a", "b", "c")]])
    assert met == {frozenset("ab"): 2, frozenset("ac"): 1, frozenset("bc"): 1}
    assert all(None not in pair for pair in met)
    assert len(list(itertools.chain(met))) == 3
