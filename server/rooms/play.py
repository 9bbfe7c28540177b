"""How play moves on in a room: an action applied (by a person, a bot or a stand-in), the bots
asked for their moves, the turn clock brought up to date and the idle timer, each step
returning its outputs.
"""

from __future__ import annotations

from typing import Protocol

from protocol import messages as m
from protocol.records import ActionEntry
from server.bots.base import DEFAULT_LEVEL
from server.rooms import bank, frames
from server.rooms.outputs import (
    CancelTimer,
    DealTimer,
    IdleTimer,
    Output,
    PersistAction,
    RunBot,
    Send,
    SetTimer,
)
from server.rooms.status import RoomStatus
from server.rules.base import Action, IllegalAction


class Played(frames.Shown, Protocol):
    """What play reads and changes of a room: what its frames are written from (it sends
    the states), its state, settings and turn timer among them."""

    def seat_waiting(self, now: float) -> list[Output]: ...
    @property
    def rated_per_match(self) -> bool: ...


def bot_move(room: Played, seat: int, version: int, action: Action, now: float) -> list[Output]:
    """A bot's move for ``seat`` chosen against ``version``. It is dropped (and the bot asked
    again if still due) when the game moved on, except in a simultaneous phase, where other
    seats' moves do not change this seat's choice."""
    state = room.state
    if state.pending.get(seat) == version:
        del state.pending[seat]
    if room.status() is RoomStatus.PLAYING and state.match is not None:
        game = state.match.current
        s = state.seats[seat]
        due = s.kind == "bot" or (s.kind == "human" and (s.away or seat in state.stand_in))
        fresh = version == state.version or game.simultaneous()
        if due and fresh and seat in game.to_act():
            try:
                return apply(room, seat, action, now)
            except IllegalAction:
                pass  # a stale choice no longer legal: ask again below
    return schedule(room, now)


def apply(
    room: Played,
    seat: int,
    action: Action,
    now: float,
    ref: m.RequestId | None = None,
    then_schedule: bool = True,
    timed_out: bool = False,
) -> list[Output]:
    """Apply ``seat``'s ``action`` (``ref``: the request a person sent it in, acknowledged):
    a new version, stored, its states sent, then (``then_schedule``) bots and timers. Its
    events say ``timed_out`` when the server moved for a person out of time (``timed_out``,
    or a stand-in's move for a seat whose clock ran out).

    Raises:
        IllegalAction: the rules refuse it, before anything changed.
    """
    state = room.state
    match = state.match
    assert match is not None
    timed_out = timed_out or (ref is None and seat in state.stand_in)
    events = match.apply(seat, action, timed_out)  # raises IllegalAction before any change
    banked = bank.charge(room, state.version, now)  # the turn ended: its bank time is paid
    state.version += 1
    state.stand_in.clear()
    out = refresh_deadline(room, now)  # the states below carry this version's deadline
    entry: ActionEntry = {
        "v": state.version,
        "g": match.game_index,
        "s": seat,
        "a": action.to_str(),
    }
    due = state.clock.due_at(state.version)
    if due is not None:
        entry["d"] = due  # stored with the action: a takeover keeps the deadline
    out.append(PersistAction(entry))
    if ref is not None:
        human = state.seats[seat].conn
        if human is not None:
            out.append(Send(human, m.dump_ack(ref, state.version)))
    out += frames.state_frames(room, events)
    if banked:
        out += frames.room_frames(room)  # the seat's bank as it is left
    if match.current.is_over():
        out += room.seat_waiting(now)  # friends who asked to play, before everyone is told
        out += frames.room_frames(room)
    if then_schedule:
        out += schedule(room, now)
    return out


def turn_expired(room: Played, now: float) -> list[Output]:
    """The turn timer ran out: slow humans are declared ready (SH-2.3) or a stand-in bot
    plays their turn."""
    state = room.state
    assert state.match is not None
    game = state.match.current
    humans = [s for s in game.to_act() if state.seats[s].kind == "human"]
    out: list[Output] = []
    if game.phase == "swap":
        for seat in humans:
            out += apply(room, seat, Action("ready"), now, then_schedule=False, timed_out=True)
        return out + schedule(room, now)
    if room.time_bank and len(humans) == 1 and not bank.spent_out(room, state.version):
        seat = humans[0]
        present = state.seats[seat].conn is not None
        due = bank.begin(room, seat, state.version, now) if present else None
        if due is not None:  # the turn goes on, on the seat's bank; everyone is shown it
            state.clock, timer = state.clock.extended(state.version, due)
            return [timer, *frames.state_frames(room, []), *frames.room_frames(room)]
    # (a turn out of bank too: the stand-in's move charges all of it)
    for seat in humans:
        state.stand_in.add(seat)
        out += ask_bot(room, seat, room.settings.stand_in_level, 0.0)
    return out


def ask_bot(room: Played, seat: int, level: str, delay: float) -> list[Output]:
    state = room.state
    assert state.match is not None
    asked = state.pending.get(seat)
    if asked is not None and (asked == state.version or state.match.current.simultaneous()):
        return []  # that bot is still thinking
    state.pending[seat] = state.version
    view = state.match.current.view(seat)
    return [RunBot(seat, level, room.game, view, state.version, delay)]


def schedule(room: Played, now: float) -> list[Output]:
    """After any change: bots to run, the turn timer, and the idle timer."""
    state = room.state
    out: list[Output] = []
    playing_table = room.table is not None and room.status() is not RoomStatus.OVER
    if not state.where and not state.closed and not playing_table:
        if not state.idle_armed:
            state.idle_armed = True
            idle = room.settings.idle_timeout
            if state.match is None:  # an empty lobby: nothing to come back to, it goes soon
                idle = min(idle, room.settings.lobby_timeout)
            out.append(SetTimer(IdleTimer(), now + idle))
    elif state.idle_armed:
        state.idle_armed = False
        out.append(CancelTimer(IdleTimer()))
    out += refresh_deadline(room, now)
    status = room.status()
    # an event's table deals on by itself (no host there), and so does a ladder table between
    # the hands of its rated match (its bots are not hosts; a Shithead game is rated alone)
    deals_on = room.table is not None or (room.ladder and room.rated_per_match)
    if deals_on and status is RoomStatus.BETWEEN and state.match is not None:
        game = state.match.game_index + 1
        out.append(SetTimer(DealTimer(game), now + room.settings.next_hand_delay))
    if status is not RoomStatus.PLAYING:
        return out  # lobby, between games, over, or paused: no bots
    assert state.match is not None
    settings = room.settings
    for seat in state.match.current.to_act():
        s = state.seats[seat]
        if s.kind == "bot":
            out += ask_bot(room, seat, s.level or DEFAULT_LEVEL, settings.bot_delay)
        elif s.away or seat in state.stand_in:
            out += ask_bot(room, seat, settings.stand_in_level, settings.bot_delay)
    return out


def human_waiting(room: Played) -> bool:
    """Whether a person (not a bot, not a stand-in) must act in the current version."""
    if room.status() is not RoomStatus.PLAYING:
        return False
    state = room.state
    assert state.match is not None
    seats = state.seats
    return any(
        seats[seat].kind == "human" and not seats[seat].away and seat not in state.stand_in
        for seat in state.match.current.to_act()
    )


def human_to_act(room: Played) -> bool:
    """Whether a human's seat (present or not) must act in the current version."""
    match = room.state.match
    if match is None or match.current.is_over():
        return False
    seats = room.state.seats
    return any(seats[seat].kind == "human" for seat in match.current.to_act())


def refresh_deadline(room: Played, now: float) -> list[Output]:
    """The turn clock at the current version (:mod:`server.rooms.clock`), brought up to
    date before any state of it is rendered; the timer to set, if any."""
    state = room.state
    state.clock, timer = state.clock.refresh(
        state.version, now, room.turn_timer, lambda: human_to_act(room), lambda: human_waiting(room)
    )
    return [] if timer is None else [timer]
