"""What each client request does to a room (join, watch, resume, act, host, chat, hint,
contribute, leave, and the creator's seat): one function each, refusing with
:class:`~server.rooms.refusal.Refusal` (an ``error`` frame to the sender only, nothing changed)
or returning its outputs.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Protocol

from protocol import messages as m
from protocol.cards import parse_card
from protocol.errors import ErrorCode
from protocol.records import RoomMeta
from server.rooms import frames, play
from server.rooms import host as host_ops
from server.rooms.names import clean_name
from server.rooms.outputs import (
    CancelTimer,
    ConnId,
    Detach,
    GraceTimer,
    Output,
    Persist,
    RunHint,
    Send,
)
from server.rooms.refusal import Refusal, error_frame
from server.rooms.seats import token_digest
from server.rooms.state import Person
from server.rooms.status import BETWEEN_GAMES, RoomStatus
from server.rules.base import Action, IllegalAction


class Requested(play.Played, host_ops.HostedRoom, Protocol):
    """What a request reads and changes of a room: what play and the host's commands do, and
    its record, tokens, hint seeds, next deal and chat budget."""

    @property
    def make_token(self) -> Callable[[], str]: ...
    @property
    def bot_seed(self) -> int: ...
    def meta(self) -> RoomMeta: ...
    def next_deal(self) -> int | None: ...
    def chat_allowed(self, now: float, sender: Hashable, spectator: bool) -> bool: ...
    def desert(self, index: int) -> None: ...
    def take_host_if_gone(self, index: int) -> None: ...


def to_rules_action(action: m.ActionModel) -> Action:
    """The rules core's action for a wire action (codes already validated by pydantic)."""
    return Action(
        action.kind,
        tuple(parse_card(c) for c in action.cards),
        -1 if action.slot is None else action.slot,
    )


def hint_seed(seed: int, seat: int, version: int) -> int:
    """The hint bot's seed for ``seat`` at state ``version`` of a room whose bots are seeded
    ``seed`` (never its deals' seeds): the same question in the same room always gets the same
    answer."""
    return (seed * 1_000_003 + seat * 7919 + version * 104_729) % 2**63


def request(
    room: Requested, conn: ConnId, msg: m.ClientMessage, who: Person, now: float
) -> list[Output]:
    """What ``msg`` from ``conn`` does to the room; a refusal is an error to ``conn`` only."""
    try:
        match msg:
            case m.Join():
                return join(room, conn, msg, who, now)
            case m.Watch():
                return watch(room, conn, msg, who, now)
            case m.Resume():
                return resume(room, conn, msg, who, now)
            case m.Act():
                return act(room, conn, msg, now)
            case m.Host():
                return host(room, conn, msg, now)
            case m.Chat():
                return chat(room, conn, msg, now)
            case m.React():
                return react(room, conn, msg, now)
            case m.Leave():
                return leave(room, conn, msg, now)
            case m.Hint():
                return hint(room, conn, msg)
            case m.Contribute():
                return contribute(room, conn, msg)
            case _:
                raise Refusal(ErrorCode.UNKNOWN_TYPE, "not a room message")
    except Refusal as r:
        return [error_frame(conn, msg.id, r.code, r.message)]


def create_host(
    room: Requested, conn: ConnId, msg: m.Create, who: Person, now: float
) -> list[Output]:
    """Seat the creator in seat 0 as the host."""
    try:
        name = clean_name(msg.name, [])
    except Refusal as r:
        return [error_frame(conn, msg.id, r.code, r.message)]
    state = room.state
    token = _seat_human(room, 0, conn, name, who)
    state.host = 0
    state.where[conn] = 0
    return [
        Persist(room.meta()),
        Send(conn, m.dump(m.Joined(ref=msg.id, room=room.code, seat=0, token=token))),
        *frames.room_frames(room),
        *play.schedule(room, now),
    ]


def join(room: Requested, conn: ConnId, msg: m.Join, who: Person, now: float) -> list[Output]:
    state = room.state
    _may_enter(room, conn, who)
    if room.daily and room.settings.daily_alone:  # one person against the day's bots
        why = "a daily game is played alone against four fixed bots; you can watch"
        raise Refusal(ErrorCode.DAILY_FIXED, why)
    if state.locked:
        why = "the host has locked this room; you can still watch"
        raise Refusal(ErrorCode.ROOM_LOCKED, why)
    if room.status() not in BETWEEN_GAMES:
        if msg.wait and state.seats.free():
            _one_an_address(room, who)
            return _wait(room, conn, msg, who, now)
        raise Refusal(ErrorCode.GAME_IN_PROGRESS, "seats open between games; you can watch now")
    free = state.seats.free()  # empty, or a bot's
    if msg.seat is not None:
        if msg.seat >= room.players:
            raise Refusal(ErrorCode.BAD_SEAT, f"this room has seats 0 to {room.players - 1}")
        if msg.seat not in free:
            raise Refusal(ErrorCode.SEAT_TAKEN, f"seat {msg.seat} is not free")
        index = msg.seat
    elif free:
        # a truly empty seat before a bot's
        index = min(free, key=lambda i: (state.seats[i].kind != "empty", i))
    else:
        raise Refusal(ErrorCode.ROOM_FULL, "no free seat; you can watch")
    _one_an_address(room, who, index)
    name = clean_name(msg.name, state.seats.names(skip=index))
    token = _seat_human(room, index, conn, name, who)
    state.where[conn] = index
    room.take_host_if_gone(index)
    joined = m.Joined(ref=msg.id, room=room.code, seat=index, token=token)
    return [Persist(room.meta()), *_entered(room, conn, joined, now)]


def _one_an_address(room: Requested, who: Person, index: int | None = None) -> None:
    """Refuse a second person from one address at a rated table (``index``: the seat asked)."""
    if room.state.rated and room.state.same_address(who.origin, skip=index):
        why = "someone here already plays from your address: a rated table seats one of you"
        raise Refusal(ErrorCode.SAME_ADDRESS, why)


def watch(room: Requested, conn: ConnId, msg: m.Watch, who: Person, now: float) -> list[Output]:
    _may_enter(room, conn, who)
    _spectator_room(room)
    room.state.add_watcher(conn, who)
    return _entered(room, conn, m.Joined(ref=msg.id, room=room.code, seat=None), now)


def _spectator_room(room: Requested) -> None:
    most = room.settings.max_spectators
    if len(room.state.spectators) >= most:
        why = f"this room has its {most} spectators; try again later"
        raise Refusal(ErrorCode.SPECTATORS_FULL, why)


def _wait(room: Requested, conn: ConnId, msg: m.Join, who: Person, now: float) -> list[Output]:
    """A friend arriving mid-game: they watch now, and are seated when the game ends (as
    spectators, the room's bound on spectators bounds them)."""
    _spectator_room(room)
    room.state.add_watcher(conn, who)
    room.state.waiting[conn] = (msg.name, msg.id)
    joined = m.Joined(ref=msg.id, room=room.code, seat=None, waiting=True)
    return _entered(room, conn, joined, now)


def seat_waiting(room: Requested, now: float) -> list[Output]:
    """The game ended: spectators who asked to play take the free seats, first asked first
    (the host deals the next game with them). Each is told with a second ``joined`` (its
    join's id, now with a seat and its token), then sees the room and their seat's state."""
    state = room.state
    out: list[Output] = []
    if room.status() is not RoomStatus.BETWEEN:  # (a match over deals no next game)
        return out
    for conn, (asked, ref) in list(state.waiting.items()):
        free = state.seats.free()
        if not free or state.locked:
            break
        index = min(free, key=lambda i: (state.seats[i].kind != "empty", i))
        who = Person(state.watch_devices.get(conn), state.watch_origins.get(conn))
        try:
            _one_an_address(room, who)  # another from their address sat down meanwhile
        except Refusal as r:
            del state.waiting[conn]  # they watch on
            out.append(error_frame(conn, ref, r.code, r.message))
            continue
        state.forget_watcher(conn)
        name = clean_name(asked, state.seats.names(skip=index))
        token = _seat_human(room, index, conn, name, who)
        state.where[conn] = index
        joined = m.Joined(ref=ref, room=room.code, seat=index, token=token)
        out += [Send(conn, m.dump(joined)), *frames.state_to(room, conn, index)]
    if out:
        out = [Persist(room.meta()), *out]
    return out


def resume(room: Requested, conn: ConnId, msg: m.Resume, who: Person, now: float) -> list[Output]:
    state = room.state
    found = state.seats.with_token(msg.token, now)
    if found is None:
        raise Refusal(ErrorCode.BAD_TOKEN, "that token holds no seat in this room")
    index, current = found
    if conn in state.where and state.where[conn] != index:
        raise Refusal(ErrorCode.ALREADY_IN_ROOM, "leave your current place in this room first")
    # a rated table seats one identity an address, whichever way a person comes in
    _one_an_address(room, who, index)
    out: list[Output] = []
    seat = state.seats[index]
    if (who.device or seat.device, who.origin or seat.origin) != (seat.device, seat.origin):
        # results are recorded for this device from now on; bans and mutes bind to both
        state.seats.set_person(index, who.device, who.origin)
    # a fresh token for every resume: the one just used is void once this is stored, so
    # of two devices resuming with one token the second is refused (bad_token); the
    # replaced one still resumes for a while (else the client still holds the previous)
    if room.table is not None:
        # an event's table: the token the event gives its player for the round stays theirs
        # (their page gives it again), and a second device resuming with it replaces the first
        token = msg.token
    else:
        token = room.make_token()
        overlap = now + room.settings.token_overlap if current else None
        state.seats.rotate_token(index, token_digest(token), overlap)
    old = state.seats[index].conn
    if old is not None and old != conn:
        # the same player from a new connection: the old one is replaced
        out += room.expel(old, ErrorCode.REPLACED, "this seat was resumed from elsewhere")
    state.seats.connect(index, conn)
    state.where[conn] = index
    room.take_host_if_gone(index)
    out.append(Persist(room.meta()))  # before the new token goes out
    out.append(CancelTimer(GraceTimer(index)))
    out += play.refresh_deadline(room, now)  # back from a pause: the state shows the deadline
    joined = m.Joined(ref=msg.id, room=room.code, seat=index, token=token)
    return out + _entered(room, conn, joined, now)


def act(room: Requested, conn: ConnId, msg: m.Act, now: float) -> list[Output]:
    state = room.state
    seat = _seat_of(room, conn)
    if state.match is None:
        raise Refusal(ErrorCode.NOT_STARTED, "the game has not started")
    if msg.version != state.version:
        message = f"the game is at version {state.version}; here is the current view"
        stale = error_frame(conn, msg.id, ErrorCode.STALE_VERSION, message)
        return [stale, *frames.state_to(room, conn, seat)]
    try:
        action = to_rules_action(msg.action)
    except ValueError as exc:
        raise Refusal(ErrorCode.MALFORMED_ACTION, str(exc)) from None
    if action.kind == "swap" and _swaps(room, seat) >= room.settings.max_swaps:
        why = f"{room.settings.max_swaps} swaps are the most one game takes: say ready"
        raise Refusal(ErrorCode.TOO_MANY_SWAPS, why)
    try:
        return play.apply(room, seat, action, now, ref=msg.id)
    except IllegalAction as exc:
        raise Refusal(exc.code, exc.message) from None


def _swaps(room: Requested, seat: int) -> int:
    """The swaps ``seat`` made in the current game (they come first in its log)."""
    assert room.state.match is not None
    log = room.state.match.current.log
    return sum(1 for who, a in log if who == seat and a.kind == "swap")


def host(room: Requested, conn: ConnId, msg: m.Host, now: float) -> list[Output]:
    state = room.state
    if conn not in state.where:
        raise Refusal(ErrorCode.NOT_IN_ROOM, "join this room first")
    if state.where[conn] is None or state.where[conn] != state.host:
        raise Refusal(ErrorCode.NOT_HOST, "only the host can do that")
    out = host_ops.perform(room, msg, now)
    dealt = msg.op in ("start", "next_game")
    if dealt:
        out += play.refresh_deadline(room, now)  # a new version: its deadline is in the record
    out.append(Persist(room.meta()))
    out.append(Send(conn, m.dump(m.Ack(ref=msg.id, version=state.version))))
    out += frames.room_frames(room)
    if dealt:
        out += frames.state_frames(room, [])
    out += play.schedule(room, now)
    return out


def chat(room: Requested, conn: ConnId, msg: m.Chat, now: float) -> list[Output]:
    state = room.state
    if conn not in state.where:
        raise Refusal(ErrorCode.NOT_IN_ROOM, "join or watch this room first")
    seat = state.where[conn]
    if state.chat_muted(conn, seat):
        raise Refusal(ErrorCode.MUTED, "the host has muted you in this room")
    # a seat is one sender; spectators are one sender an address (or a connection, unknown)
    sender = ("seat", seat) if seat is not None else ("rail", state.watch_origins.get(conn, conn))
    if not room.chat_allowed(now, sender, spectator=seat is None):
        raise Refusal(ErrorCode.CHAT_BUSY, "this room's chat is busy; wait a moment")
    name = (state.seats[seat].name or f"Seat {seat + 1}") if seat is not None else "spectator"
    watcher = state.watchers.get(conn) if seat is None else None
    line = m.dump(
        m.ChatLine(room=room.code, seat=seat, name=name, text=msg.text, at=now, spectator=watcher)
    )
    return [Send(conn, m.dump(m.Ack(ref=msg.id))), *(Send(c, line) for c in state.where)]


def react(room: Requested, conn: ConnId, msg: m.React, now: float) -> list[Output]:
    """A seated player's quick reaction, to everyone in the room: the chat's rules (a muted seat
    is refused) and its budget per seat, kept apart from the seat's chat lines."""
    state = room.state
    if conn not in state.where:
        raise Refusal(ErrorCode.NOT_IN_ROOM, "join or watch this room first")
    seat = state.where[conn]
    if seat is None:
        raise Refusal(ErrorCode.NOT_SEATED, "only a seated player can react; the chat is open")
    if state.chat_muted(conn, seat):
        raise Refusal(ErrorCode.MUTED, "the host has muted you in this room")
    if not room.chat_allowed(now, ("react", seat), spectator=False):
        raise Refusal(ErrorCode.CHAT_BUSY, "too many reactions at once; wait a moment")
    frame = m.dump(m.Reaction(room=room.code, seat=seat, emote=msg.emote, at=now))
    return [Send(conn, m.dump(m.Ack(ref=msg.id))), *(Send(c, frame) for c in state.where)]


def hint(room: Requested, conn: ConnId, msg: m.Hint) -> list[Output]:
    """A seated player asks what the strong bot would do in their seat: it thinks
    elsewhere (:class:`RunHint`); nothing in the room changes."""
    state = room.state
    if conn not in state.where:
        raise Refusal(ErrorCode.NOT_IN_ROOM, "join this room first")
    if not room.hints:
        raise Refusal(ErrorCode.HINTS_OFF, "this room was opened without hints")
    seat = state.where[conn]
    if seat is None:
        raise Refusal(ErrorCode.NOT_SEATED, "only a seated player can ask for a hint")
    if state.match is None:
        raise Refusal(ErrorCode.NOT_STARTED, "the game has not started")
    game = state.match.current
    view = game.view(seat) if seat in game.to_act() else None
    if view is None or not view["legal"]:
        raise Refusal(ErrorCode.NOT_YOUR_TURN, "there is nothing for you to decide now")
    if seat in state.hints:
        raise Refusal(ErrorCode.HINT_PENDING, "your last hint is still being worked out")
    state.hints[seat] = state.version
    seed = hint_seed(room.bot_seed, seat, state.version)
    return [RunHint(conn, seat, room.game, view, state.version, seed, msg.id)]


def contribute(room: Requested, conn: ConnId, msg: m.Contribute) -> list[Output]:
    """A seated player's client sends its random value for the next deal (once per seat
    per deal): kept, unseen by anyone, until the deal, then revealed in the history."""
    state = room.state
    seat = _seat_of(room, conn)
    game = room.next_deal()
    if game is None:
        why = (
            "a daily deal takes no contributions: every player of the day gets the same cards"
            if room.daily
            else "contributions are taken before a deal, in the lobby or between games"
        )
        raise Refusal(ErrorCode.BAD_CONTRIBUTION, why)
    if msg.game != game:
        raise Refusal(ErrorCode.BAD_CONTRIBUTION, f"the next deal is game {game}")
    if seat in state.contributed:
        raise Refusal(ErrorCode.BAD_CONTRIBUTION, "your seat has contributed to this deal")
    state.contributed[seat] = bytes.fromhex(msg.value)
    return [Persist(room.meta()), Send(conn, m.dump(m.Ack(ref=msg.id)))]


def leave(room: Requested, conn: ConnId, msg: m.Leave, now: float) -> list[Output]:
    state = room.state
    if conn not in state.where:
        raise Refusal(ErrorCode.NOT_IN_ROOM, "you are not in this room")
    out: list[Output] = []
    seat = state.where.pop(conn)
    state.forget_watcher(conn)
    if seat is not None:
        room.desert(seat)  # left a rated game: ranked last in it
        room.replace_human(seat)
        out.append(Persist(room.meta()))
    out.append(Send(conn, m.dump(m.Ack(ref=msg.id))))
    out.append(Detach(conn))
    out += frames.room_frames(room) if seat is not None else frames.spectators_changed(room, now)
    out += play.schedule(room, now)
    return out


def _may_enter(room: Requested, conn: ConnId, who: Person) -> None:
    """Refuse a connection already in the room, or a person the host removed."""
    if conn in room.state.where:
        raise Refusal(ErrorCode.ALREADY_IN_ROOM, "you are already in this room")
    if room.state.is_banned(who):
        raise Refusal(ErrorCode.BANNED, "the host removed you from this room")


def _entered(room: Requested, conn: ConnId, joined: m.Joined, now: float) -> list[Output]:
    """Someone is in (joined, watching or back): they are told, the room is told, they see the
    log so far and the state, and bots and timers follow."""
    told = (
        frames.room_frames(room)
        if joined.seat is not None
        else frames.spectators_changed(room, now, newcomer=conn)
    )
    return [
        Send(conn, m.dump(joined)),
        *told,
        *frames.log_to(room, conn),
        *frames.state_to(room, conn, joined.seat),
        *play.schedule(room, now),
    ]


def _seat_of(room: Requested, conn: ConnId) -> int:
    where = room.state.where
    if conn not in where:
        raise Refusal(ErrorCode.NOT_IN_ROOM, "join this room first")
    seat = where[conn]
    if seat is None:
        raise Refusal(ErrorCode.NOT_SEATED, "spectators cannot act")
    return seat


def _seat_human(room: Requested, index: int, conn: ConnId, name: str, who: Person) -> str:
    token = room.make_token()
    room.state.seat_human(index, conn, name, token_digest(token), who)
    return token
