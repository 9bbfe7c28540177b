"""Duplicate scoring on hand-made deals, with exact numbers (docs/events.md, "Scoring"): each
table's seat against the field of the same seat and deal (units minus the field's mean, and
matchpoints), and the standings built from them."""

from __future__ import annotations

from fractions import Fraction as F

from server.rooms.event_scoring import HandScore, compare, standings

# One deal of Sheepshead at three tables: seat 0 picks and calls seat 3 each time (SS-8: the
# picker wins 2 units, the partner 1, each defender loses 1; set, the other way; schneider,
# twice as much).
MADE = (2, -1, -1, 1, -1)
SET = (-2, 1, 1, -1, 1)
SCHNEIDER = (4, -2, -2, 2, -2)
TABLES = (("a", "b", "c", "d", "e"), ("f", "g", "h", "i", "j"), ("k", "l", "m", "n", None))


def deal(hand: int, *scores: tuple[int, ...]) -> list[HandScore]:
    return [HandScore(0, hand, t, TABLES[t], s) for t, s in enumerate(scores)]


def test_a_seat_is_compared_with_the_same_seat_at_the_other_tables() -> None:
    # seat 0's field: 2, -2, 4 (mean 4/3); seat 1's: -1, 1, -2 (mean -2/3)
    rows = {(c.table, c.seat): c for c in compare(deal(0, MADE, SET, SCHNEIDER))}
    assert [rows[t, 0].against for t in range(3)] == [F(2, 3), F(-10, 3), F(8, 3)]
    assert [rows[t, 0].matchpoints for t in range(3)] == [1, 0, 2]
    assert [rows[t, 1].against for t in range(3)] == [F(-1, 3), F(5, 3), F(-4, 3)]
    assert [rows[t, 1].matchpoints for t in range(3)] == [1, 2, 0]
    assert [rows[t, 3].against for t in range(3)] == [F(1, 3), F(-5, 3), F(4, 3)]
    assert rows[2, 4].player is None and rows[0, 4].player == "e"  # a bot's seat is in the field
    for seat in range(5):  # against the field sums to nothing over the field
        assert sum(rows[t, seat].against for t in range(3)) == 0


def test_a_tie_is_half_a_matchpoint() -> None:
    rows = {(c.table, c.seat): c for c in compare(deal(1, MADE, MADE, SET))}
    assert rows[0, 0].matchpoints == rows[1, 0].matchpoints == F(3, 2)
    assert rows[2, 0].matchpoints == 0
    assert rows[0, 0].against == F(4, 3) and rows[2, 0].against == F(-8, 3)


def test_standings_rank_by_units_against_the_field_with_duplicate() -> None:
    hands = deal(0, MADE, SET, SCHNEIDER) + deal(1, MADE, MADE, SET)
    players = [p for table in TABLES for p in table if p is not None]
    table = {s.player: s for s in standings(players, hands, duplicate=True)}
    # a: 2/3 + 4/3 = 2 against, matchpoints 1 + 3/2; k: 8/3 - 8/3 = 0, matchpoints 2 + 0
    assert (table["a"].against, table["a"].matchpoints, table["a"].units) == (F(2), F(5, 2), 4)
    assert (table["k"].against, table["k"].matchpoints, table["k"].units) == (F(0), F(2), 2)
    # f: -10/3 + 4/3 = -2; the last of the field
    assert table["f"].against == -2 and table["f"].units == 0
    assert table["a"].rank == 1 and table["f"].rank == max(s.rank for s in table.values())
    assert all(s.hands == 2 for s in table.values())
    # without duplicate the raw units rank: a won 4, k 2
    raw = {s.player: s for s in standings(players, hands, duplicate=False)}
    assert raw["a"].rank == 1 and raw["a"].units == 4 and raw["k"].units == 2
    assert raw["a"].against == 0  # no comparison without duplicate


def test_equal_scores_share_a_rank_and_keep_the_order_they_joined() -> None:
    hands = [HandScore(0, 0, 0, ("x", "y", "z"), (0, 0, 0))]
    rows = standings(["z", "x", "y"], hands, duplicate=False)
    assert [(s.player, s.rank) for s in rows] == [("z", 1), ("x", 1), ("y", 1)]
    assert standings(["q"], hands, duplicate=True)[0].hands == 0


def test_a_hand_round_trips_through_json() -> None:
    hand = HandScore(2, 1, 0, ("a", None), (3, -3), {"picker": 0, "picker_points": 78})
    again = HandScore.from_json(hand.to_json())
    assert again == hand and again.result == hand.result
