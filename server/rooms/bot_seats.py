"""A Play now table's fill-in bot seat taken by a person in the table's first seconds.

The queue's store decides *who* gets a seat (one arrival a seat, within the table's window:
:mod:`server.store.queue`); the room decides *whether* the seat may still change hands, and
it is the one that knows: only while its first game (of a Sheepshead match: its first hand)
is under way and the bot there has not acted in it. The person then plays every decision of
the seat's game, so their rating moves on their own play; the other seats meet a person
where a bot had made no move yet, as if the matchmaker had seated them at the start.

The seat is held for the person as Play now's seats are (their token resumes it, a stand-in
plays for them after the grace), and it is rated for them in place of the bot
(:attr:`~server.rooms.state.RoomState.rated_seats`); a rated table never seats a second
identity of one address, here as at a ``join``.

>>> from server.rooms.core import RoomCore
>>> from server.rooms.settings import RoomSettings
>>> room = RoomCore("ABCDE", "shithead", 2, seed=1, settings=RoomSettings())
>>> open_seat(room, 1)  # no table dealt yet
False
"""

from __future__ import annotations

from typing import Protocol

from protocol.records import RoomMeta
from server.bots.base import rated_id
from server.rooms import frames, play
from server.rooms.inputs import TakeBotSeat
from server.rooms.matchmaker import Reserved
from server.rooms.names import bot_name, clean_name
from server.rooms.outputs import GraceTimer, Output, Persist, Reply, SetTimer
from server.rooms.refusal import Refusal
from server.rooms.state import Person


class Taken(play.Played, Protocol):
    """What taking a bot's seat reads and changes of a room."""

    def meta(self) -> RoomMeta: ...


def open_seat(room: Taken, seat: int) -> bool:
    """Whether a person may take bot seat ``seat`` now: a fill-in bot's seat (not a leaver's
    stand-in), in the first game of the match, before the bot's first move there."""
    state = room.state
    match = state.match
    if match is None or not 0 <= seat < room.players or state.seats[seat].kind != "bot":
        return False
    if match.game_index != 0 or match.current.is_over() or seat in state.deserted:
        return False
    level = state.seats[seat].level
    if state.rated_seats and (level is None or state.rated_seats[seat] != rated_id(level)):
        return False  # a person's seat before (a leaver's): theirs to be ranked in
    return all(who != seat for who, _ in match.logs[-1])


def take(room: Taken, seat: int, person: Reserved, now: float) -> bool:
    """Seat ``person`` in bot seat ``seat`` (held for them until they resume), if it is
    :func:`open_seat` and, at a rated table, nobody here plays from their address; whether
    they were seated."""
    state = room.state
    if not open_seat(room, seat):
        return False
    if state.rated and state.same_address(person.origin):
        return False
    try:
        name = clean_name(person.name, state.seats.names(skip=seat))
    except Refusal:  # the name is someone's here: numbered, as Play now numbers a table's
        name = clean_name(f"{person.name[:60]} {seat + 1}", state.seats.names(skip=seat))
    if room.ladder:  # a bot identity is seen as one wherever it sits
        name = bot_name(name)
    state.seat_human(seat, None, name, person.token_sha256, Person(person.device, person.origin))
    if state.rated_seats:
        state.rated_seats[seat] = person.device  # rated for the person, never the bot
    state.seats.disconnect(seat, now + room.settings.grace)
    return True


def take_outputs(room: Taken, item: TakeBotSeat, now: float) -> list[Output]:
    """:func:`take` as the room's outputs: stored, then the answer, the room frame to
    everyone here, and the bots and timers (the bot's pending move for the seat is dropped
    when it comes: the seat is a person's). Refused at ``item.until`` or later: its asker
    stopped waiting and put the person back in the line."""
    if now >= item.until or not take(room, item.seat, item.person, now):
        return [Reply(item.answer, False)]
    grace = now + room.settings.grace
    return [
        Persist(room.meta()),
        SetTimer(GraceTimer(item.seat), grace),
        Reply(item.answer, True),
        *frames.room_frames(room),
        *play.schedule(room, now),
    ]
