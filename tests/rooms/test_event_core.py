"""The event core, input by input (docs/events.md): joining, the host's commands, the rounds
seated and reseated, hands reported by the tables, the end and the seed revealed; every refusal
leaves the event exactly as it was, and the record rebuilds the event at every step."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from protocol.errors import ErrorCode
from protocol.messages import SheepsheadOptions
from server.rooms import event_io as ev
from server.rooms.event_core import EventCore
from server.rooms.event_deals import draw
from server.rooms.event_seating import meetings, repeated, seat_in_order
from server.rooms.event_settings import EventSettings, Reseat, check_start
from server.rooms.event_state import EventPhase
from server.rooms.refusal import Refusal

SEED = bytes(range(32))
PEOPLE = [f"p{i:02}" for i in range(12)]
WON = (2, -1, -1, 1, -1)  # the picker (seat 0) and partner (seat 3) win the hand, SS-8


def event(rounds: int = 3, hands: int = 2, **kw: object) -> EventCore:
    settings = EventSettings("sheepshead", 5, rounds, hands, **kw)  # type: ignore[arg-type]
    core = EventCore("K7QP", "nonce", settings, seed=SEED, host=PEOPLE[0])
    for p in PEOPLE:
        assert core.handle(ev.Join(p, p.upper()), 0.0) == [ev.PersistEvent(), ev.Changed()]
    return core


def step(core: EventCore, item: ev.EventInput) -> list[ev.EventOutput]:
    """One input, then the event rebuilt from its record must be the same event; its version
    is one more exactly when it asks to be stored."""
    before = core.state.version
    out = core.handle(item, 0.0)
    assert core.state.version == before + (ev.PersistEvent() in out)
    again = EventCore.from_record(core.record(), SEED)
    assert again.record() == core.record()
    assert again.standings() == core.standings()
    return out


def refused(core: EventCore, item: ev.EventInput, code: ErrorCode) -> None:
    before = core.record()
    out = core.handle(item, 0.0)
    assert len(out) == 1 and isinstance(out[0], ev.Refused) and out[0].code is code, out
    assert core.record() == before  # nothing changed


def opened(out: Sequence[ev.EventOutput]) -> ev.OpenTables:
    [tables] = [o for o in out if isinstance(o, ev.OpenTables)]
    return tables


def play_round(
    core: EventCore, scores: dict[int, tuple[int, ...]] | None = None
) -> list[ev.EventOutput]:
    """Every table of the round plays its hands (``scores``: a table's units each hand)."""
    out: list[ev.EventOutput] = []
    tables = core.state.seatings[-1]
    for t in range(len(tables)):
        step(core, ev.TableOpened(core.state.round, t, f"ROOM{t}"))
    for hand in range(core.settings.hands):
        for t in range(len(tables)):
            units = (scores or {}).get(t, (0,) * 5)
            out = step(core, ev.HandPlayed(core.state.round, t, hand, units))
    return out


def test_start_seats_round_one_from_the_draw_with_bots_at_the_last_table() -> None:
    core = event()
    out = step(core, ev.HostCommand(PEOPLE[0], ev.EventOp.START))
    tables = opened(out)
    assert tables.round == 0 and [t.index for t in tables.tables] == [0, 1, 2]
    assert [t.seats for t in tables.tables] == seat_in_order(draw(SEED, PEOPLE), 5)
    assert [t.seats.count(None) for t in tables.tables] == [0, 0, 3]
    assert all(t.hands == 2 and not t.stand_ins for t in tables.tables)
    assert core.phase is EventPhase.PLAYING and core.hands_left() == 2
    assert core.revealed_seed() is None  # the seed would tell the deals


def test_joining_is_refused_once_started_or_full_or_by_name() -> None:
    core = event(max_tables=3)
    refused(core, ev.Join("x", "P01"), ErrorCode.NAME_TAKEN)  # names compare without case
    refused(core, ev.Join("x", "Bot 3"), ErrorCode.BAD_NAME)
    assert step(core, ev.Join(PEOPLE[3], "again")) == [ev.Changed()]  # joined twice: nothing new
    for i in range(3):
        step(core, ev.Join(f"x{i}", f"X{i}"))
    refused(core, ev.Join("y", "Y"), ErrorCode.EVENT_FULL)  # 15 = three tables of five
    step(core, ev.HostCommand(PEOPLE[0], ev.EventOp.START))
    refused(core, ev.Join("z", "Z"), ErrorCode.EVENT_STARTED)


def test_only_the_host_commands_and_only_when_it_may() -> None:
    core = event()
    refused(core, ev.HostCommand(PEOPLE[1], ev.EventOp.START), ErrorCode.NOT_HOST)
    refused(core, ev.HostCommand(PEOPLE[0], ev.EventOp.END), ErrorCode.EVENT_NOT_STARTED)
    refused(
        core, ev.HostCommand(PEOPLE[0], ev.EventOp.REPLACE, PEOPLE[2]), ErrorCode.EVENT_NOT_STARTED
    )
    alone = EventCore("K7QR", "n", EventSettings("sheepshead", 5, 1, 1), seed=SEED, host="h")
    step(alone, ev.Join("h", "H"))
    refused(alone, ev.HostCommand("h", ev.EventOp.START), ErrorCode.EVENT_NOT_STARTED)
    step(core, ev.HostCommand(PEOPLE[0], ev.EventOp.START))
    refused(core, ev.HostCommand(PEOPLE[0], ev.EventOp.START), ErrorCode.EVENT_STARTED)
    refused(core, ev.HostCommand(PEOPLE[0], ev.EventOp.REPLACE, "nobody"), ErrorCode.NOT_IN_EVENT)


def test_a_table_reports_its_hands_in_order_and_each_once() -> None:
    core = event()
    step(core, ev.HostCommand(PEOPLE[0], ev.EventOp.START))
    refused(core, ev.HandPlayed(0, 0, 1, WON), ErrorCode.BAD_EVENT)  # hand 0 first
    refused(core, ev.HandPlayed(0, 5, 0, WON), ErrorCode.BAD_EVENT)  # no table 5
    refused(core, ev.HandPlayed(0, 0, 0, WON[:4]), ErrorCode.BAD_EVENT)  # a score a seat
    step(core, ev.HandPlayed(0, 0, 0, WON))
    refused(core, ev.HandPlayed(0, 0, 0, WON), ErrorCode.BAD_EVENT)  # the same hand again
    assert step(core, ev.HandPlayed(1, 0, 0, WON)) == []  # another round's: ignored
    assert core.hands_left() == 2  # the slowest table has played none


def test_a_table_opened_twice_counts_only_the_room_its_event_kept() -> None:
    core = event()
    step(core, ev.HostCommand(PEOPLE[0], ev.EventOp.START))
    step(core, ev.TableOpened(0, 0, "KEPT1"))
    assert step(core, ev.TableOpened(0, 0, "RACE2")) == []  # two processes raced: the first stays
    assert step(core, ev.HandPlayed(0, 0, 0, WON, room="RACE2")) == []  # its hands count not
    assert core.state.played[0] == 0
    step(core, ev.HandPlayed(0, 0, 0, WON, room="KEPT1"))
    assert core.state.played[0] == 1


def test_rounds_are_reseated_by_standings_and_the_last_reveals_the_seed() -> None:
    core = event()
    step(core, ev.HostCommand(PEOPLE[0], ev.EventOp.START))
    out = play_round(core, {0: WON})
    tables = opened(out)  # round 2 opens at once
    assert tables.round == 1 and core.state.round == 1
    order = [s.player for s in core.standings()]
    assert [t.seats for t in tables.tables] == seat_in_order(order, 5)
    winner = core.state.seatings[0][0][0]
    assert winner is not None and tables.tables[0].seats[0] == winner  # +4: leads
    assert core.standings()[0].units == 4
    play_round(core)
    out = play_round(core)
    assert core.phase is EventPhase.OVER and not any(isinstance(o, ev.OpenTables) for o in out)
    assert core.revealed_seed() == SEED
    assert all(s.hands == 6 for s in core.standings())  # 3 rounds of 2 hands, bots apart
    refused(core, ev.HostCommand(PEOPLE[0], ev.EventOp.PAUSE), ErrorCode.EVENT_OVER)


def test_the_rotation_seats_people_with_others_than_before() -> None:
    core = event(reseat=Reseat.ROTATION)
    step(core, ev.HostCommand(PEOPLE[0], ev.EventOp.START))
    first = core.state.seatings[0]
    tables = opened(play_round(core, {0: WON}))
    second = [t.seats for t in tables.tables]
    assert repeated(second, meetings([first])) == 4  # the fewest 12 people at 5, 5, 2 allow
    assert repeated(seat_in_order([s.player for s in core.standings()], 5),
                    meetings([first])) > 4  # fmt: skip


def test_a_paused_event_waits_between_rounds_for_the_host() -> None:
    core = event()
    step(core, ev.HostCommand(PEOPLE[0], ev.EventOp.START))
    step(core, ev.HostCommand(PEOPLE[0], ev.EventOp.PAUSE))
    out = play_round(core)
    assert core.phase is EventPhase.BETWEEN and not any(isinstance(o, ev.OpenTables) for o in out)
    assert core.hands_left() == 0
    out = step(core, ev.HostCommand(PEOPLE[0], ev.EventOp.RESUME))
    assert opened(out).round == 1 and core.state.phase == EventPhase.PLAYING


def test_a_player_replaced_by_a_bot_keeps_their_score_and_seat_in_the_standings() -> None:
    core = event()
    step(core, ev.HostCommand(PEOPLE[0], ev.EventOp.START))
    step(core, ev.TableOpened(0, 0, "ROOMA"))
    gone = core.state.seatings[0][0][0]
    assert gone is not None
    step(core, ev.HandPlayed(0, 0, 0, WON))
    assert step(core, ev.Leave(gone)) == [ev.PersistEvent(), ev.Changed()]
    assert core.state.entrants[gone].left  # still in the event, their table goes on
    out = step(core, ev.HostCommand(PEOPLE[0], ev.EventOp.REPLACE, gone))
    assert ev.StandIn(0, 0, "ROOMA", 0) in out
    for t in range(3):
        for hand in range(2):
            if (t, hand) != (0, 0):
                step(core, ev.HandPlayed(0, t, hand, WON if t == 0 else (0,) * 5))
    mine = next(s for s in core.standings() if s.player == gone)
    assert mine.units == 4 and mine.hands == 2
    assert core.state.seatings[1][0][0] == gone  # round 1's leader leads round 2, as a bot
    assert step(core, ev.TableOpened(1, 0, "ROOMB")) == [ev.PersistEvent(), ev.Changed()]


def test_a_stand_in_plays_from_the_next_round_on_too() -> None:
    core = event()
    step(core, ev.HostCommand(PEOPLE[0], ev.EventOp.START))
    gone = PEOPLE[5]
    step(core, ev.HostCommand(PEOPLE[0], ev.EventOp.REPLACE, gone))
    tables = opened(play_round(core)).tables
    [spec] = [t for t in tables if gone in t.seats]
    assert spec.stand_ins == {spec.seats.index(gone)}


def test_ending_early_closes_the_tables_and_keeps_the_hands_played() -> None:
    core = event()
    step(core, ev.HostCommand(PEOPLE[0], ev.EventOp.START))
    for t in range(3):
        step(core, ev.TableOpened(0, t, f"R{t}"))
    step(core, ev.HandPlayed(0, 1, 0, WON))
    out = step(core, ev.HostCommand(PEOPLE[0], ev.EventOp.END))
    assert ev.CloseTables(("R0", "R1", "R2")) in out
    assert core.phase is EventPhase.OVER and core.revealed_seed() == SEED
    assert core.standings()[0].units == 2
    assert step(core, ev.HandPlayed(0, 1, 1, WON)) == []  # a table playing on counts no more


def test_leaving_the_lobby_passes_the_host_on() -> None:
    core = event()
    step(core, ev.Leave(PEOPLE[0]))
    assert core.state.host == PEOPLE[1] and PEOPLE[0] not in core.people()
    refused(core, ev.Leave(PEOPLE[0]), ErrorCode.NOT_IN_EVENT)
    refused(core, ev.HostCommand(PEOPLE[0], ev.EventOp.START), ErrorCode.NOT_HOST)


@pytest.mark.parametrize(
    ("kw", "why"),
    [
        ({"table_size": 4}, "played by 5"),
        ({"rounds": 0}, "rounds"),
        ({"rounds": 11}, "rounds"),
        ({"hands": 11}, "hands"),
        ({"max_tables": 11}, "tables"),
        ({"game": "bridge"}, "unknown game"),
    ],
)
def test_settings_out_of_bounds_are_refused(kw: dict[str, object], why: str) -> None:
    args: dict[str, object] = {"game": "sheepshead", "table_size": 5, "rounds": 3, "hands": 2}
    args.update(kw)
    with pytest.raises(Refusal, match=why) as info:
        EventSettings(**args).checked()  # type: ignore[arg-type]
    assert info.value.code is ErrorCode.BAD_EVENT


def test_an_event_starts_itself_at_its_start_time_given_as_the_input_s_time() -> None:
    core = event(start_at=100.0)
    before = core.record()
    assert core.handle(ev.StartDue(), 99.5) == [] and core.record() == before  # not yet
    out = core.handle(ev.StartDue(), 100.0)
    assert core.phase is EventPhase.PLAYING and ev.PersistEvent() in out
    assert [t.seats for t in opened(out).tables] == seat_in_order(draw(SEED, PEOPLE), 5)
    assert core.handle(ev.StartDue(), 101.0) == []  # late, or from another process: nothing
    assert EventCore.from_record(core.record(), SEED).settings.start_at == 100.0


def test_at_its_start_time_an_event_of_one_waits_for_its_host() -> None:
    core = EventCore("K7QR", "n", EventSettings("sheepshead", 5, 1, 1, start_at=5.0), seed=SEED,
                     host="h")  # fmt: skip
    step(core, ev.Join("h", "H"))
    assert core.handle(ev.StartDue(), 6.0) == [] and core.phase is EventPhase.LOBBY
    step(core, ev.Join("a", "A"))
    assert ev.PersistEvent() in step(core, ev.HostCommand("h", ev.EventOp.START))


def test_a_start_time_is_in_the_coming_week() -> None:
    check_start(None, 1000.0)
    check_start(1000.0 + 7 * 24 * 3600, 1000.0)
    for bad in (1000.0, 999.0, 1001.0 + 7 * 24 * 3600):
        with pytest.raises(Refusal) as info:
            check_start(bad, 1000.0)
        assert info.value.code is ErrorCode.BAD_EVENT


def test_a_rated_event_plays_the_book_and_takes_one_identity_an_address() -> None:
    with pytest.raises(Refusal) as info:  # docs/ratings.md: only the book's rules
        house = SheepsheadOptions(crack=True)
        EventSettings("sheepshead", 5, 1, 1, rated=True, options=house).checked()
    assert info.value.code is ErrorCode.RATED_NOT_ALLOWED
    core = EventCore("K7QR", "n", EventSettings("sheepshead", 5, 1, 1, rated=True), seed=SEED,
                     host="h")  # fmt: skip
    step(core, ev.Join("h", "H", origin="addr-1"))
    refused(core, ev.Join("a", "A", origin="addr-1"), ErrorCode.SAME_ADDRESS)
    refused(core, ev.Join("a", "A"), ErrorCode.SAME_ADDRESS)  # an address unknown
    step(core, ev.Join("a", "A", origin="addr-2"))
    again = EventCore.from_record(core.record(), SEED)
    assert again.settings.rated and again.state.entrants["a"].origin == "addr-2"
    assert again.info().rated
