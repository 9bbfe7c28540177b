"""The handover bench's own bookkeeping: a room's longest pause, and what its players met then
(the evidence a failed pause bound prints)."""

from __future__ import annotations

from server.tools.bench.handover import Table


def _table(accepted: list[float], events: list[tuple[float, str]]) -> Table:
    return Table("ABCDE", [], [], accepted_at=accepted, events=events)


def test_the_longest_pause_is_the_widest_gap_between_accepted_actions() -> None:
    table = _table([0.0, 1.0, 5.0, 5.5], [])
    assert table.longest_pause() == 4.0


def test_the_report_names_only_what_happened_during_the_longest_pause() -> None:
    table = _table(
        [0.0, 1.0, 5.0, 5.5],
        [(0.5, "before"), (2.0, "seat 1: act: no reply to act 'c9' within 10s"), (6.0, "after")],
    )
    report = table.pause_report()
    assert report.startswith("longest pause 4.000s")
    assert "+1.000s seat 1: act: no reply" in report
    assert "before" not in report and "after" not in report


def test_a_room_with_one_accepted_action_has_no_pause_to_report() -> None:
    assert _table([3.0], []).pause_report().startswith("no pause")
    assert _table([3.0], []).longest_pause() == 0.0
