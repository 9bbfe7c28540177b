"""Play now's grouping, sans I/O: full tables at once, closest skills first, the gap widening
with the wait, bots after the fill wait, never one origin twice, nobody in two tables."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from server.rooms.matchmaker import Rules, Waiting, Widening, group

RULES = Rules(size=4, fill_wait=20.0, widening=Widening(start=5.0, per_second=2.5))


def w(player: str, since: float, skill: float = 0.0, origin: str | None = None) -> Waiting:
    return Waiting(player, since, skill, origin or player)


def test_a_full_table_goes_at_once() -> None:
    people = [w(p, 0.0) for p in "abcd"]
    assert [(t.players, t.bots) for t in group(people, 0.1, RULES)] == [(("a", "b", "c", "d"), 0)]


def test_short_of_a_table_nobody_goes_before_the_fill_wait() -> None:
    people = [w(p, 0.0) for p in "abc"]
    assert group(people, 19.9, RULES) == []
    (table,) = group(people, 20.0, RULES)
    assert table.players == ("a", "b", "c") and table.bots == 1


def test_closest_skills_first() -> None:
    people = [w("a", 0.0, 10.0), w("far", 0.1, 14.0), w("b", 0.2, 11.0), w("c", 0.3, 9.0)]
    people += [w("d", 0.4, 10.5)]
    (table,) = group(people, 1.0, RULES)
    assert table.players == ("a", "d", "b", "c")  # "far" (4 away) waits for the next table


def test_the_gap_widens_with_the_wait() -> None:
    # 30 apart: 5 + 2.5 * t >= 30 from t = 10 s of the anchor's wait
    people = [w("a", 0.0, 0.0), w("b", 0.0, 30.0)]
    rules = Rules(size=2, fill_wait=60.0, widening=Widening(start=5.0, per_second=2.5))
    assert group(people, 9.9, rules) == []
    (table,) = group(people, 10.0, rules)
    assert table.players == ("a", "b") and table.bots == 0


def test_one_origin_never_twice_at_a_table() -> None:
    people = [w("a", 0.0, origin="x"), w("b", 0.1, origin="x"), w("c", 0.2, origin="y")]
    rules = Rules(size=2, fill_wait=5.0)
    assert [t.players for t in group(people, 1.0, rules)] == [("a", "c")]
    # "b" waits alone until the fill wait, then plays with a bot
    later = group([w("b", 0.1, origin="x")], 5.1, rules)
    assert [(t.players, t.bots) for t in later] == [(("b",), 1)]


def test_the_longest_waiting_anchors_first() -> None:
    people = [w("young", 5.0), w("old", 0.0), w("mid", 2.0)]
    (table,) = group(people, 25.0, RULES)
    assert table.players[0] == "old" and table.bots == 1


@given(st.integers(min_value=0, max_value=2**32 - 1), st.integers(min_value=0, max_value=60))
def test_nobody_is_in_two_tables_and_tables_are_never_over_full(seed: int, count: int) -> None:
    rng = random.Random(seed)
    people = [
        Waiting(f"p{i}", rng.uniform(0, 30), rng.gauss(0, 20), f"o{rng.randrange(20)}")
        for i in range(count)
    ]
    for size in (2, 4, 5):
        tables = group(people, 31.0, Rules(size=size, fill_wait=20.0))
        seated = [p for t in tables for p in t.players]
        assert len(seated) == len(set(seated))
        origin = {p.player: p.origin for p in people}
        for t in tables:
            assert len(t.players) + t.bots == size
            assert len({origin[p] for p in t.players}) == len(t.players)
        # everyone who waited past the fill wait is seated
        assert {p.player for p in people if 31.0 - p.since >= 20.0} <= set(seated)
