"""A Play now table's bot seat taken by a person in its first seconds, on the room core: only a
fill-in bot's seat before the bot's first move of the first game, rated for the person from
then on, never a second identity of one address at the rated table; a refusal changes
nothing."""

from __future__ import annotations

from protocol import messages as m
from server.rooms.core import RoomCore
from server.rooms.inputs import BotMove, Request, TakeBotSeat
from server.rooms.matchmaker import Reserved
from server.rooms.outputs import GraceTimer, Output, Persist, Reply, SetTimer
from server.rooms.seats import token_digest
from server.rules.shithead import READY
from tests.support.room_core import SETTINGS, whole

NOW = 1000.0


def table(rated: bool = True) -> RoomCore:
    """Play now's table of three: Ann (from address "o-ann") and two strong bots, dealt."""
    room = RoomCore("ABCDE", "shithead", 3, settings=SETTINGS, seed=7, rated=rated)
    room.seat_table(
        [Reserved("Ann", token_digest("ann-token"), "dev-ann", "o-ann")], ("strong",), NOW
    )
    resume = m.Resume(id="r", room="ABCDE", token="ann-token")
    room.handle(Request(1, resume, "dev-ann", "o-ann"), NOW)  # Ann is here: the game goes on
    return room


def bob(origin: str = "o-bob", name: str = "Bob") -> Reserved:
    return Reserved(name, token_digest("bob"), "dev-bob", origin)


def take(
    room: RoomCore, seat: int, person: Reserved, until: float = NOW + 2
) -> tuple[list[bool], list[Output]]:
    answers: list[bool] = []
    out = room.handle(TakeBotSeat(seat, person, answers.append, until), NOW + 1)
    replies = [o for o in out if isinstance(o, Reply)]
    assert len(replies) == 1
    replies[0].to(replies[0].ok)  # as the actor does, once what came before is stored
    return answers, out


def test_a_person_takes_a_bot_seat_before_the_bot_moves() -> None:
    room = table()
    assert room.state.rated_seats == ["dev-ann", "bot:strong", "bot:strong"]
    answers, out = take(room, 2, bob())
    assert answers == [True]
    seat = room.state.seats[2]
    assert (seat.kind, seat.name, seat.device, seat.origin) == ("human", "Bob", "dev-bob", "o-bob")
    assert seat.conn is None and seat.token_sha256 == token_digest("bob")  # held for Bob
    # rated for Bob, not for the bot that sat there
    assert room.state.rated_seats == ["dev-ann", "bot:strong", "dev-bob"]
    # stored before the answer; a stand-in plays for Bob after the grace if he never comes
    kinds = [type(o) for o in out]
    assert kinds.index(Persist) < kinds.index(Reply)
    assert SetTimer(GraceTimer(2), NOW + 1 + SETTINGS.grace) in out
    # the bot's move asked before is dropped when it comes: the seat is Bob's
    version = room.state.version
    room.handle(BotMove(2, version, READY), NOW + 2)
    assert room.state.version == version


def test_a_bot_that_moved_keeps_its_seat() -> None:
    room = table()
    room.handle(BotMove(1, room.state.version, READY), NOW + 1)  # the swap's ready: a move
    before = whole(room)
    answers, out = take(room, 1, bob())
    assert answers == [False] and len(out) == 1
    assert whole(room) == before  # a refusal changes nothing
    # the other bot has not moved: its seat may still be taken
    assert take(room, 2, bob())[0] == [True]


def test_only_a_fill_in_bots_seat_of_the_first_game() -> None:
    room = table()
    assert take(room, 0, bob())[0] == [False]  # Ann's
    assert take(room, 3, bob())[0] == [False]  # no such seat
    assert take(room, 1, bob(), until=NOW + 1)[0] == [False]  # its asker no longer waits
    assert take(room, 1, bob(origin="o-ann", name="Ann2"))[0] == [False]  # rule: one address
    assert room.state.seats[1].kind == "bot"
    unrated = table(rated=False)  # an unrated table has no address rule
    assert take(unrated, 1, bob(origin="o-ann", name="Ann2"))[0] == [True]


def test_a_name_taken_at_the_table_is_numbered() -> None:
    room = table()
    assert take(room, 1, bob(name="Ann"))[0] == [True]
    assert room.state.seats[1].name == "Ann 2"


def test_in_sheepshead_each_bot_keeps_its_seat_from_its_own_first_move() -> None:
    room = RoomCore("ABCDE", "sheepshead", 5, settings=SETTINGS, seed=3, rated=True)
    room.seat_table(
        [Reserved("Ann", token_digest("ann-token"), "dev-ann", "o-ann")], ("strong",), NOW
    )
    resume = m.Resume(id="r", room="ABCDE", token="ann-token")
    room.handle(Request(1, resume, "dev-ann", "o-ann"), NOW)
    match = room.state.match
    assert match is not None
    # the bots pick or pass in turn until Ann's turn comes: those that did keep their seats,
    # those still to decide may be taken (rule SS-3.1: the pick goes round from the dealer's left)
    while (seat := match.current.to_act()[0]) != 0:
        room.handle(BotMove(seat, room.state.version, match.current.legal_actions(seat)[0]), NOW)
    moved = {who for who, _ in match.logs[-1]}
    waiting = set(range(1, 5)) - moved
    assert moved and waiting  # both kinds of bot seat at this table, with these cards
    for seat in moved:
        assert take(room, seat, bob())[0] == [False]
    first = min(waiting)
    assert take(room, first, bob())[0] == [True]
    assert room.state.rated_seats[first] == "dev-bob"
