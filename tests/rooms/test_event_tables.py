"""Rooms that are an event's tables (server/rooms/event_table.py): with duplicate on, every
table of a round is dealt the same cards, from the event's seed, seat by seat and game by game,
checked against the seeds derived from the revealed event seed; the table deals no more than its
hands; and its record rebuilds it as the same table."""

from __future__ import annotations

from protocol import messages as m
from protocol.errors import ErrorCode
from server.bots.base import make_bot
from server.rooms.core import RoomCore
from server.rooms.event_deals import deal_proof
from server.rooms.event_table import EventTable
from server.rooms.inputs import BotMove, BotPlaysFor, Request, TimerFired
from server.rooms.outputs import (
    DealTimer,
    GraceTimer,
    IdleTimer,
    Output,
    RunBot,
    Send,
    SetTimer,
    TimerKey,
)
from server.rooms.seats import token_digest
from server.rooms.seeds import Keys
from server.rooms.settings import RoomSettings
from server.rooms.status import RoomStatus
from server.rules.deal import DealProof

KEYS = Keys(bytes(range(32)))
SETTINGS = RoomSettings(keys=KEYS)


def table(code: str, index: int, round_: int = 1, duplicate: bool = True) -> RoomCore:
    room = RoomCore(
        code,
        "sheepshead",
        5,
        settings=SETTINGS,
        table=EventTable("K7QP", "event-nonce", round_, index, hands=2, duplicate=duplicate),
    )
    room.fill_empty("random")
    room.start_match(0.0)
    return room


def play_out(room: RoomCore) -> None:
    """The current game played to its end by random moves."""
    match = room.match
    assert match is not None
    bot = make_bot("random", "sheepshead", seed=1)
    while not match.current.is_over():
        seat = match.current.to_act()[0]
        match.apply(seat, bot.choose(match.current.view(seat)))


def proof_of(room: RoomCore, game: int) -> DealProof:
    assert room.match is not None
    proof = room.match.proof(game)
    assert proof is not None
    return proof


def test_every_table_of_a_duplicate_round_is_dealt_the_same_cards_from_the_event_seed() -> None:
    rooms = [table(code, i) for i, code in enumerate(("AAAAA", "BBBBB", "CCCCC"))]
    event_seed = KEYS.event("K7QP", "event-nonce")
    for game in range(2):
        expected = deal_proof(event_seed, 1, game, 5)
        for room in rooms:
            assert room.match is not None and room.match.game_index == game
            assert proof_of(room, game) == expected  # the seed the event reveals gives it
            assert room.match.commitment(game) == expected.commitment
            assert room.next_deal() is None  # no contributions: every table alike
        deals = [room.match.current.deal_record() for room in rooms if room.match]
        assert deals[0] == deals[1] == deals[2]
        hands = [
            [room.match.current.view(s)["hand"] for s in range(5)] for room in rooms if room.match
        ]
        assert hands[0] == hands[1] == hands[2]
        for room in rooms:
            play_out(room)
            if game == 0:
                assert room.status() is RoomStatus.BETWEEN
                room.deal_next()
    for room in rooms:  # two hands a round: the table deals no more
        assert room.status() is RoomStatus.OVER
    # another round's deals are others
    other = table("DDDDD", 0, round_=2)
    assert proof_of(other, 0).seed != proof_of(rooms[0], 0).seed


def test_tables_without_duplicate_deal_their_own_cards_from_dealer_zero() -> None:
    a, b = table("AAAAA", 0, duplicate=False), table("BBBBB", 1, duplicate=False)
    assert proof_of(a, 0).seed != proof_of(b, 0).seed
    assert a.match is not None and b.match is not None
    assert a.match.dealer_of(0) == b.match.dealer_of(0) == 0
    assert a.next_deal() is None  # (during a game no deal takes contributions)


def test_a_table_is_rebuilt_from_its_record_as_the_same_table() -> None:
    room = table("AAAAA", 2)
    play_out(room)
    again = RoomCore.from_record(room.record(), SETTINGS)
    assert again.table == room.table
    assert again.source == room.source
    assert again.match is not None and again.match.current.deal_record() == (
        room.match.current.deal_record() if room.match else None
    )
    assert again.status() is room.status() is RoomStatus.BETWEEN
    assert room.table is not None and room.record()["table"] == room.table.to_record()


def drive(room: RoomCore, outputs: list[Output], now: float) -> tuple[float, list[TimerKey]]:
    """Run the room as its actor would: bots move, timers fire in order, until nothing is due;
    the time then and every timer that fired."""
    timers: dict[TimerKey, float] = {}
    fired: list[TimerKey] = []
    pending = list(outputs)
    for _ in range(5000):
        bots = [o for o in pending if isinstance(o, RunBot)]
        timers.update({o.key: o.at for o in pending if isinstance(o, SetTimer)})
        pending = []
        for job in bots:
            action = make_bot("random", job.game, seed=job.version).choose(job.view)
            pending += room.handle(BotMove(job.seat, job.version, action), now)
        if pending:
            continue
        if not timers:
            break
        key = min(timers, key=lambda k: timers[k])
        now = max(now, timers.pop(key))
        fired.append(key)
        pending = room.handle(TimerFired(key), now)
    return now, fired


def test_a_table_nobody_came_to_is_played_by_its_stand_ins_to_its_last_hand() -> None:
    room = RoomCore(
        "AAAAA", "sheepshead", 5, settings=SETTINGS,
        table=EventTable("K7QP", "event-nonce", 0, 0, hands=2, duplicate=True),
    )  # fmt: skip
    people = [("Ann", token_digest("a" * 24), "dev-a"), None, ("Bob", token_digest("b" * 24), None)]
    room.seat_event_table([*people, None, None], {2}, now=0.0)
    seats = list(room.seats)
    assert [s.kind for s in seats] == ["human", "bot", "human", "bot", "bot"]
    assert seats[0].conn is None and not seats[0].away and seats[2].away  # Bob: replaced
    assert room.status() is RoomStatus.PLAYING  # nobody here, and yet not paused
    now, fired = drive(room, room.restored(0.0), 0.0)
    assert room.match is not None and room.match.games_played() == 2
    assert GraceTimer(0) in fired and DealTimer(1) in fired  # Ann's grace, then the next hand
    # a table with hands to play does not close for want of people; once over, it does
    assert fired.index(IdleTimer()) == len(fired) - 1 and room.status() is RoomStatus.CLOSED
    assert now >= SETTINGS.grace


def test_the_host_of_an_event_has_a_bot_play_for_a_seat() -> None:
    room = RoomCore(
        "AAAAA", "sheepshead", 5, settings=SETTINGS,
        table=EventTable("K7QP", "event-nonce", 0, 0, hands=1, duplicate=True),
    )  # fmt: skip
    room.seat_event_table(
        [("Ann", token_digest("a" * 24), None), None, None, None, None], set(), 0.0
    )
    assert not room.seats[0].away
    room.handle(BotPlaysFor(0), 1.0)
    assert room.seats[0].away
    assert room.handle(BotPlaysFor(1), 1.0) == []  # a bot's seat: nothing to do
    assert room.handle(BotPlaysFor(9), 1.0) == []


def test_nobody_at_an_event_table_hosts_it_the_event_host_runs_it() -> None:
    room = RoomCore(
        "AAAAA", "sheepshead", 5, settings=SETTINGS,
        table=EventTable("K7QP", "event-nonce", 0, 0, hands=1, duplicate=True),
    )  # fmt: skip
    people = [("Ann", token_digest("a" * 24), None), ("Bob", token_digest("b" * 24), None)]
    room.seat_event_table([*people, None, None, None], set(), 0.0)
    room.handle(Request(1, m.Resume(id="r", room="AAAAA", token="a" * 24)), 1.0)
    assert room.seats[0].conn == 1 and room.state.host is None
    version = room.version
    for op in ("kick", "lock"):
        out = room.handle(Request(1, m.Host(id="k", room="AAAAA", op=op, seat=1)), 2.0)
        assert [o.refusal for o in out if isinstance(o, Send)] == [ErrorCode.NOT_HOST]
    assert room.version == version and room.seats[1].kind == "human"


def test_shithead_tables_of_a_duplicate_round_are_dealt_alike_too() -> None:
    rooms = []
    for i, code in enumerate(("AAAAA", "BBBBB")):
        room = RoomCore(
            code, "shithead", 4, settings=SETTINGS,
            table=EventTable("K7QP", "event-nonce", 0, i, hands=1, duplicate=True),
        )  # fmt: skip
        room.seat_event_table([None] * 4, set(), now=0.0)
        rooms.append(room)
    a, b = (r.match for r in rooms)
    assert a is not None and b is not None
    assert a.current.deal_record() == b.current.deal_record()
    assert proof_of(rooms[0], 0) == deal_proof(KEYS.event("K7QP", "event-nonce"), 0, 0, 4)
