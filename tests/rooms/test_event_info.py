"""An event's public state (server/rooms/event_info.py): names only, never the people's
identities; the seed only once it is over; with duplicate on, a deal counts in the standings only
once every table has played it, and the comparisons of the deals appear at the end."""

from __future__ import annotations

from fractions import Fraction

from server.rooms.event_core import EventCore
from server.rooms.event_io import EventOp, HandPlayed, HostCommand, Join, TableOpened
from server.rooms.event_scoring import compare
from server.rooms.event_settings import EventSettings

SEED = bytes(range(32))
PEOPLE = [f"id-{i:02}" for i in range(12)]
WON = (2, -1, -1, 1, -1)
SET = (-2, 1, 1, -1, 1)


def started(duplicate: bool) -> EventCore:
    settings = EventSettings("sheepshead", 5, 2, 1, duplicate=duplicate)
    core = EventCore("K7QPX", "n", settings, seed=SEED, host=PEOPLE[0])
    for i, p in enumerate(PEOPLE):
        core.handle(Join(p, f"Name{i}"), 0.0)
    core.handle(HostCommand(PEOPLE[0], EventOp.START), 0.0)
    for t in range(3):
        core.handle(TableOpened(0, t, f"ROOM{t}"), 0.0)
    return core


def test_a_duplicate_deal_counts_once_every_table_has_played_it() -> None:
    core = started(duplicate=True)
    core.handle(HandPlayed(0, 0, 0, WON, {"picker": 0, "picker_points": 78}), 0.0)
    core.handle(HandPlayed(0, 1, 0, SET, {"picker": 0, "picker_points": 50}), 0.0)
    info = core.info()
    assert all(s.units == 0 and s.hands == 0 for s in info.standings)  # table 2 still plays it
    assert [t.played for t in info.seatings[0].tables] == [1, 1, 0]
    assert info.hands_left == 1 and info.seed is None and info.deals == []
    core.handle(HandPlayed(0, 2, 0, WON), 0.0)
    info = core.info()
    assert sorted(s.units for s in info.standings)[-1] == 2
    assert {s.hands for s in info.standings} == {1}
    assert info.round == 1 and info.phase == "playing"


def test_at_the_end_the_seed_and_each_deal_across_the_tables_are_shown() -> None:
    core = started(duplicate=True)
    for t, units in enumerate((WON, SET, WON)):
        core.handle(HandPlayed(0, t, 0, units, {"picker": 0, "picker_points": 60 + t}), 0.0)
    core.handle(HostCommand(PEOPLE[0], EventOp.END), 0.0)
    info = core.info()
    assert info.phase == "over" and info.seed == SEED.hex()
    [deal] = info.deals
    assert (deal.round, deal.hand) == (0, 0)
    assert [t.room for t in deal.tables] == ["ROOM0", "ROOM1", "ROOM2"]
    assert deal.tables[1].result == {"picker": 0, "picker_points": 61}
    rows = compare(core.state.scores)
    for c in rows:
        shown = deal.tables[c.table].seats[c.seat]
        assert shown.units == c.units and Fraction(shown.against).limit_denominator(9) == c.against
        assert shown.matchpoints == float(c.matchpoints)
    # seat 0: 2, -2, 2 -> mean 2/3; table 1's picker is -8/3 against the field, no matchpoint
    assert deal.tables[1].seats[0].against == float(Fraction(-8, 3))
    assert deal.tables[1].seats[0].matchpoints == 0
    assert deal.tables[2].seats[3].name is None  # the last table's bots


def test_without_duplicate_the_standings_are_live_and_names_only() -> None:
    core = started(duplicate=False)
    core.handle(HandPlayed(0, 0, 0, WON), 0.0)
    info = core.info()
    assert sorted(s.units for s in info.standings)[-1] == 2
    text = info.model_dump_json()
    assert not any(p in text for p in PEOPLE)  # identities never leave the server
    assert info.host == "Name0" and [p.name for p in info.people][:2] == ["Name0", "Name1"]
    assert info.seatings[0].tables[0].room == "ROOM0"
