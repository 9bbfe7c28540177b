"""What a room tells its connections: its public state (:func:`info`, the ``room`` frame) and
each recipient's ``state`` frame. Every view is built by the rules core's ``view``; the parts
all views of one state share are built and serialised once.
"""

from __future__ import annotations

from typing import Any, Protocol

from protocol import messages as m
from protocol.views import EventWire
from server.rooms import bank
from server.rooms.outputs import ConnId, FrameTimer, Send, SetTimer
from server.rooms.state import RoomFacts
from server.rooms.status import RoomStatus
from server.rules.base import Event, Game
from server.rules.registry import game_spec


class Shown(RoomFacts, Protocol):
    """What a room's frames are written from."""

    @property
    def options_frame(self) -> dict[str, Any]: ...
    def status(self) -> RoomStatus: ...
    def seat_muted(self, index: int) -> bool: ...
    def next_deal_info(self) -> dict[str, Any] | None: ...


def info(room: Shown) -> dict[str, Any]:
    """The room's public state: the fields of :class:`~protocol.messages.RoomInfo`, in its
    order, as plain data (the room frame is written straight from it, as states are: a test
    checks it is the model's own text)."""
    state = room.state
    match = state.match
    seats = []
    current = match.current if match else None
    acting = set(current.to_act()) if current else set()
    for i, seat in enumerate(state.seats):
        entry = seat.info(i, state.host, room.seat_muted(i))
        if seat.kind == "human" and seat.away and i in acting:
            entry["playing_for"] = room.settings.stand_in_level
        seats.append(entry)
    return {
        "room": room.code,
        "game": room.game,
        "status": room.status().value,
        "seats": seats,
        "spectators": len(state.spectators),
        "locked": state.locked,
        "turn_timer": room.turn_timer,
        "time_bank": room.time_bank,
        "banks": bank.banks_left(room) if room.time_bank else None,
        "banking": bank.banking_seat(room),
        "options": room.options_frame,
        "games_played": match.games_played() if match else 0,
        "totals": match.totals() if match else [0] * room.players,
        "match_length": match.match_length if match else game_spec(room.game).match_length,
        "daily": state.daily_date.isoformat() if state.daily_date else None,
        "daily_ranked": state.daily_ranked if state.daily_date else None,
        "hints": room.hints,
        "rated": state.rated,
        "ratings": None if state.ratings is None else [r.model_dump() for r in state.ratings],
        "next_deal": room.next_deal_info(),
        "again": _again(room),
        "event": room.table.event if room.table is not None else None,
    }


def _again(room: Shown) -> dict[str, Any] | None:
    if room.state.again is None:
        return None
    code, seat, name = room.state.again
    return {"room": code, "seat": seat, "name": name}


def room_frames(room: Shown) -> list[Send]:
    """The room frame to everyone in the room."""
    text = m.dump_room(info(room))
    return [Send(c, text) for c in room.state.where]


def spectators_changed(
    room: Shown, now: float, newcomer: ConnId | None = None
) -> list[Send | SetTimer]:
    """Only the spectators changed: the room frame goes to everyone at most once a
    ``spectator_frame_interval`` (anyone with the code may watch and leave as fast as they
    like; the members would get a frame each time), the one held back at the interval's end.
    A ``newcomer`` gets its own at once."""
    state = room.state
    if not state.frame_due and now >= state.frame_quiet_until:
        state.frame_quiet_until = now + room.settings.spectator_frame_interval
        return list(room_frames(room))
    out: list[Send | SetTimer] = []
    if newcomer is not None:
        out.append(Send(newcomer, m.dump_room(info(room))))
    if not state.frame_due:
        state.frame_due = True
        out.append(SetTimer(FrameTimer(), state.frame_quiet_until))
    return out


def held_frame(room: Shown, now: float) -> list[Send]:
    """The room frame :func:`spectators_changed` held back, now due."""
    state = room.state
    if not state.frame_due:
        return []
    state.frame_due = False
    state.frame_quiet_until = now + room.settings.spectator_frame_interval
    return room_frames(room)


def _state_writer(
    room: Shown, events: list[EventWire] | m.Serialised
) -> tuple[m.StateWriter, Game]:
    """The writer of the current state's frames and the game they show: what every view of
    this state has in common, built and serialised once for all with the frame's fields but
    the seat; each recipient's frame is that around its seat and its own fields."""
    state = room.state
    match = state.match
    assert match is not None
    game = match.current
    writer = m.StateWriter(
        room.code,
        state.version,
        m.json_bytes(game.shared_view()),
        events,
        state.clock.shown,
        match.commitment(match.game_index),
    )
    return writer, game


def state_to(room: Shown, conn: ConnId, seat: int | None) -> list[Send]:
    """The current state to one connection (none before the match)."""
    if room.state.match is None:
        return []
    writer, game = _state_writer(room, [])
    return [Send(conn, writer.text(seat, game.own_view(seat)))]


def log_to(room: Shown, conn: ConnId) -> list[Send]:
    """The match's recent events to one connection that just came in (none before the
    match): every seat is sent the same public events, so the log is the same for all."""
    match = room.state.match
    if match is None:
        return []
    entries = [{"game": g, "event": e} for g, e in match.recent()]
    frame = {"type": "log", "room": room.code, "version": room.state.version, "entries": entries}
    return [Send(conn, m.json_bytes(frame).decode())]


def state_frames(room: Shown, events: list[Event]) -> list[Send]:
    """Each seated connection its own view; every spectator the one spectator view."""
    writer, game = _state_writer(room, m.serialised([e.to_json() for e in events]))
    text, own_view = writer.text, game.own_view
    state = room.state
    out = [
        Send(s.conn, text(i, own_view(i)))
        for i, s in enumerate(state.seats)
        if s.kind == "human" and s.conn is not None
    ]
    if state.spectators:
        watched = text(None, own_view(None))
        out.extend(Send(c, watched) for c in state.spectators)
    return out
