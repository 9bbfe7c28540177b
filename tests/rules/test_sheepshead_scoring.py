"""Sheepshead scoring: the SS-7.5 table row by row from recorded hands, and the leaster (SS-8).

Each recorded hand (tests/rules/sheepshead_fixtures.py) is replayed from its explicit deck; the
points and tricks of each side are counted here from the final view's tricks and the buried cards,
independently of the scoring code, and the payments are checked against the table.
"""

from __future__ import annotations

import pytest

from protocol.cards import parse_card, parse_cards
from server.rules.sheepshead_cards import POINTS
from server.rules.sheepshead_scoring import (
    HandResult,
    leaster_units,
    picker_side_rate,
    split_units,
)
from tests.rules.ss_helpers import recorded, side_points_from_view, trick_points

#: SS-7.5 verbatim: row -> (with partner P / R / each D, alone P / each D).
TABLE: dict[str, tuple[tuple[int, int, int], tuple[int, int]]] = {
    "win_schneider": ((4, 2, -2), (8, -2)),
    "win_schwarz": ((6, 3, -3), (12, -3)),
    "win": ((2, 1, -1), (4, -1)),
    "loss": ((-4, -2, 2), (-8, 2)),
    "loss_schneider": ((-8, -4, 4), (-16, 4)),
    "loss_schwarz": ((-12, -6, 6), (-24, 6)),
}


def checked(name: str) -> tuple[HandResult, int, int, int]:
    """Replay ``name``; return its result and the picker side's points, tricks, and the
    defenders' tricks, counted from the view (buried points included)."""
    game = recorded(name)
    result = game.outcome()
    assert result is not None and not result.leaster and result.picker is not None
    side = {result.picker} | ({result.partner} if result.partner is not None else set())
    points, tricks = side_points_from_view(game, side)
    points += sum(POINTS[c] for c in result.buried)
    defender_tricks = 6 - tricks
    assert (result.picker_points, result.picker_tricks) == (points, tricks)
    assert result.defender_points == 120 - points
    assert sum(result.units) == 0
    return result, points, tricks, defender_tricks


def expected_units(result: HandResult, row: str) -> tuple[int, ...]:
    partner_row, alone_row = TABLE[row]
    assert result.picker is not None
    if result.partner is None:
        out = [alone_row[1]] * 5
        out[result.picker] = alone_row[0]
    else:
        out = [partner_row[2]] * 5
        out[result.picker] = partner_row[0]
        out[result.partner] = partner_row[1]
    return tuple(out)


def row_from_facts(points: int, tricks: int, defender_tricks: int) -> str:
    """The SS-7.5 row, read from the table's left column."""
    if defender_tricks == 0:
        return "win_schwarz"
    if tricks == 0:
        return "loss_schwarz"
    if points >= 91:
        return "win_schneider"
    if points >= 61:
        return "win"
    if points >= 31:
        return "loss"
    return "loss_schneider"


@pytest.mark.parametrize("row", sorted(TABLE))
@pytest.mark.parametrize("who", ["partner", "alone"])
def test_table_rows_from_recorded_hands(row: str, who: str) -> None:
    # rule SS-7.5
    result, points, tricks, defender_tricks = checked(f"{who}_{row}")
    assert result.alone is (who == "alone")
    assert row_from_facts(points, tricks, defender_tricks) == row == result.row
    assert result.units == expected_units(result, row)
    assert result.scores == result.units


def test_sixty_sixty_is_a_loss_and_sixty_one_wins() -> None:
    # rule SS-7.1
    result, points, _, _ = checked("points_60")
    assert points == 60 and result.row == "loss"
    assert result.units == expected_units(result, "loss")
    result, points, _, _ = checked("points_61")
    assert points == 61 and result.row == "win"
    assert result.units == expected_units(result, "win")


def test_buried_points_count_for_the_picker_side() -> None:
    # rule SS-7.1
    result, points, _, _ = checked("points_61")
    buried = sum(POINTS[c] for c in result.buried)
    assert buried > 0
    assert points - buried < 61  # without the buried cards the picker's side would have lost


def test_win_pays_one_two_for_schneider_three_for_schwarz() -> None:
    # rule SS-7.2
    result, points, _, _ = checked("points_90")
    assert points == 90 and not result.schneider and result.units[result.picker or 0] == 2
    result, points, _, _ = checked("points_91")
    assert points == 91 and result.schneider and result.units[result.picker or 0] == 4
    result, _, _, defender_tricks = checked("partner_win_schwarz")
    assert defender_tricks == 0 and result.schwarz
    assert picker_side_rate(120, 6, 0) == (3, "win_schwarz")
    # Defenders with a trick but no points: still 91–120, not schwarz.
    assert picker_side_rate(120, 5, 1) == (2, "win_schneider")


def test_loss_pays_double_two_four_six() -> None:
    # rule SS-7.3
    result, points, _, _ = checked("points_31")
    assert points == 31 and result.row == "loss" and not result.schneider
    defenders = [u for s, u in enumerate(result.units) if s not in (result.picker, result.partner)]
    assert defenders == [2, 2, 2]
    result, points, _, _ = checked("points_30")
    assert points == 30 and result.row == "loss_schneider" and result.schneider
    defenders = [u for s, u in enumerate(result.units) if s not in (result.picker, result.partner)]
    assert defenders == [4, 4, 4]
    # No trick: buried points do not help.
    result, points, tricks, _ = checked("partner_loss_schwarz")
    assert tricks == 0 and points > 0 and result.schwarz
    defenders = [u for s, u in enumerate(result.units) if s not in (result.picker, result.partner)]
    assert defenders == [6, 6, 6]


def test_picker_share_twice_partner_and_four_times_alone() -> None:
    # rule SS-7.4
    for rate in (1, 2, 3, -2, -4, -6):
        units = split_units(rate, picker=3, partner=0)
        assert units[3] == 2 * units[0] == 2 * rate
        assert [units[s] for s in (1, 2, 4)] == [-rate] * 3 and sum(units) == 0
        alone = split_units(rate, picker=3, partner=None)
        assert alone[3] == 4 * rate and alone.count(-rate) == 4 and sum(alone) == 0
    assert split_units(1, picker=0, partner=2) == (2, -1, 1, -1, -1)


def test_called_ten_partner_scores_like_an_ace_partner() -> None:
    # rule SS-4.2, SS-7.4
    game = recorded("called_ten")
    result = game.outcome()
    assert result is not None and result.called is not None and result.partner is not None
    assert result.called in parse_cards("TC TS TH")
    # The picker held the three fail aces after burying: they are in its tricks' history.
    held = {
        parse_card(c["card"])
        for t in game.view(None)["tricks"]
        for c in t["cards"]
        if c["seat"] == result.picker
    }
    assert set(parse_cards("AC AS AH")) <= held
    partner_cards = {
        parse_card(c["card"])
        for t in game.view(None)["tricks"]
        for c in t["cards"]
        if c["seat"] == result.partner
    }
    assert result.called in partner_cards
    checked("called_ten")
    assert result.units == expected_units(result, result.row)


def test_leaster_blind_belongs_to_nobody_and_no_called_suit() -> None:
    # rule SS-8.1
    for name in ("leaster_winner", "leaster_tie"):
        game = recorded(name)
        result = game.outcome()
        assert result is not None and result.leaster and result.called is None
        view = game.view(None)
        blind_points = sum(POINTS[c] for c in result.blind)
        assert sum(result.seat_points) == 120 - blind_points
        for seat in range(5):
            won = [t for t in view["tricks"] if t["winner"] == seat]
            assert result.seat_points[seat] == sum(trick_points(t) for t in won)
        places = game.card_places()
        assert all(places[c] == "aside" for c in result.blind)


def test_leaster_lowest_with_a_trick_wins_one_from_each() -> None:
    # rule SS-8.2
    result = recorded("leaster_winner").outcome()
    assert result is not None and result.leaster_winner is not None
    eligible = [s for s in range(5) if result.seat_tricks[s] > 0]
    low = min(result.seat_points[s] for s in eligible)
    assert [s for s in eligible if result.seat_points[s] == low] == [result.leaster_winner]
    assert result.units[result.leaster_winner] == 4
    assert sorted(result.units) == [-1, -1, -1, -1, 4]
    # A seat with no trick (and no points) cannot win.
    assert leaster_units((0, 5, 9, 40, 66), (0, 1, 1, 2, 2)) == (1, (-1, 4, -1, -1, -1))


def test_leaster_tie_pays_nothing() -> None:
    # rule SS-8.2
    result = recorded("leaster_tie").outcome()
    assert result is not None and result.leaster_winner is None and result.row == "leaster_tie"
    eligible = [s for s in range(5) if result.seat_tricks[s] > 0]
    low = min(result.seat_points[s] for s in eligible)
    assert len([s for s in eligible if result.seat_points[s] == low]) >= 2
    assert result.units == (0, 0, 0, 0, 0)
