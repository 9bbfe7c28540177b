"""The host's commands: one small handler each, and the room statuses each is allowed in.

:func:`perform` checks the command against :data:`OPS` (status, then seat) and runs its
handler, which returns its outputs; the caller (:class:`server.rooms.core.RoomCore`)
acknowledges it and tells the room. Handlers change the room only through the public methods of
:class:`HostedRoom` and of its :class:`~server.rooms.seats.SeatTable`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from protocol import messages as m
from protocol.errors import ErrorCode
from server.bots.base import DEFAULT_LEVEL
from server.rooms.outputs import ConnId, Output
from server.rooms.refusal import Refusal
from server.rooms.seats import SeatTable
from server.rooms.state import RoomFacts
from server.rooms.status import BETWEEN_GAMES, RoomStatus


class HostedRoom(RoomFacts, Protocol):
    """What the host's commands read and change of a room (never its state directly)."""

    @property
    def host(self) -> int | None: ...
    @property
    def seats(self) -> SeatTable: ...
    def status(self) -> RoomStatus: ...
    def fill_empty(self, level: str) -> None: ...
    def set_locked(self, locked: bool) -> None: ...
    @property
    def again(self) -> tuple[str, int, str] | None: ...
    def play_again_in(self, code: str) -> None: ...
    def ban(self, index: int) -> None: ...
    def mute_seat(self, index: int, muted: bool) -> None: ...
    def mute_watcher(self, number: int | None, muted: bool) -> bool: ...
    def expel(self, conn: ConnId, code: ErrorCode, message: str) -> list[Output]: ...
    def replace_human(self, index: int) -> None: ...
    def hand_to_bot(self, index: int) -> bool: ...
    def start_match(self, now: float) -> None: ...
    def deal_next(self) -> None: ...


Handler = Callable[[HostedRoom, m.Host, float], list[Output]]


@dataclass(frozen=True, slots=True)
class HostOp:
    run: Handler
    allowed: frozenset[RoomStatus]  # statuses the command is allowed in
    refusal: ErrorCode  # the code when it is not
    why: str
    needs_seat: bool = False


def _level(msg: m.Host) -> str:
    return msg.level or DEFAULT_LEVEL


def _seat(msg: m.Host) -> int:
    assert msg.seat is not None  # checked by perform() for every op that needs_seat
    return msg.seat


def _allow_experts(room: HostedRoom, level: str, seats: list[int]) -> None:
    """Refuse to make bots of ``seats`` ``level`` bots if that seats more experts than the
    room may have (each one thinks about a second a move in the server's shared workers)."""
    if level != "expert":
        return
    cap = room.settings.max_expert_seats
    if room.seats.experts(besides=seats) + len(seats) > cap:
        raise Refusal(ErrorCode.EXPERT_LIMIT, f"a room may seat at most {cap} expert bots")


def add_bot(room: HostedRoom, msg: m.Host, now: float) -> list[Output]:
    index = _seat(msg)
    if room.seats[index].kind != "empty":
        raise Refusal(ErrorCode.SEAT_TAKEN, f"seat {index} is not empty")
    _allow_experts(room, _level(msg), [index])
    room.seats.seat_bot(index, _level(msg))
    return []


def remove_bot(room: HostedRoom, msg: m.Host, now: float) -> list[Output]:
    index = _seat(msg)
    if room.seats[index].kind != "bot":
        raise Refusal(ErrorCode.NOT_A_BOT, f"seat {index} holds no bot")
    room.seats.empty(index)
    return []


def ranks(room: HostedRoom) -> bool:
    """Whether the room's results may reach the boards: no hints, the book's rules
    (:mod:`server.runtime.finished`)."""
    return not room.hints and room.options == type(room.options)()


def set_bot_level(room: HostedRoom, msg: m.Host, now: float) -> list[Output]:
    index = _seat(msg)
    if room.seats[index].kind != "bot":
        raise Refusal(ErrorCode.NOT_A_BOT, f"seat {index} holds no bot")
    if room.status() in IN_PLAY and ranks(room):
        # a ranked game is won against the bots it was dealt with, not weaker ones
        why = "a bot's level is fixed while a ranked game is played; change it between games"
        raise Refusal(ErrorCode.BOT_LEVEL_FIXED, why)
    _allow_experts(room, _level(msg), [index])
    room.seats.set_level(index, _level(msg))
    return []


def fill_bots(room: HostedRoom, msg: m.Host, now: float) -> list[Output]:
    empty = [i for i, s in enumerate(room.seats) if s.kind == "empty"]
    _allow_experts(room, _level(msg), empty)
    room.fill_empty(_level(msg))
    return []


def kick(room: HostedRoom, msg: m.Host, now: float) -> list[Output]:
    index = _seat(msg)
    target = room.seats[index]
    if target.kind != "human" or index == room.host:
        raise Refusal(ErrorCode.BAD_SEAT, "the host can remove another player only")
    out: list[Output] = []
    if target.conn is not None:  # told, and out of the room
        out = room.expel(target.conn, ErrorCode.REMOVED, "the host removed you")
    room.ban(index)  # that device may not join or watch again (kept in the room's record)
    room.replace_human(index)
    return out


def stand_in(room: HostedRoom, msg: m.Host, now: float) -> list[Output]:
    """A stand-in bot plays a gone person's turns now, not when their seat's grace runs out
    (the table need not wait a minute for a friend whose phone died); they take the seat back
    when they return, as after grace."""
    index = _seat(msg)
    seat = room.seats[index]
    if seat.kind != "human" or seat.conn is not None or seat.away:
        raise Refusal(ErrorCode.BAD_SEAT, "name the seat of a person who is gone and waited for")
    room.hand_to_bot(index)
    return []


def _mute(room: HostedRoom, msg: m.Host, muted: bool) -> list[Output]:
    """Mute (or unmute) a seated person (``seat``) or a spectator (``spectator``: the number
    their chat lines carry); their device too, so that leaving and coming back is no way out."""
    if msg.seat is not None:
        if msg.seat >= room.players or room.seats[msg.seat].kind != "human":
            raise Refusal(ErrorCode.BAD_SEAT, "name a seat a person sits in")
        if msg.seat == room.host:
            raise Refusal(ErrorCode.BAD_SEAT, "the host cannot mute themselves")
        room.mute_seat(msg.seat, muted)
    elif not room.mute_watcher(msg.spectator, muted):
        raise Refusal(ErrorCode.BAD_SEAT, "name a seat, or a spectator by their number")
    return []


def mute(room: HostedRoom, msg: m.Host, now: float) -> list[Output]:
    return _mute(room, msg, True)


def unmute(room: HostedRoom, msg: m.Host, now: float) -> list[Output]:
    return _mute(room, msg, False)


def lock(room: HostedRoom, msg: m.Host, now: float) -> list[Output]:
    room.set_locked(True)
    return []


def unlock(room: HostedRoom, msg: m.Host, now: float) -> list[Output]:
    room.set_locked(False)
    return []


def again(room: HostedRoom, msg: m.Host, now: float) -> list[Output]:
    """The host says where the table plays again: kept by the room (the first to say, never
    replaced: a later host cannot send the friends elsewhere), shown in its room frame."""
    if msg.to is None or msg.to == room.code:
        raise Refusal(ErrorCode.INVALID_MESSAGE, "again needs the code of the new room (to)")
    if room.again is not None:
        raise Refusal(ErrorCode.AGAIN_SET, f"this table already plays again in {room.again[0]}")
    room.play_again_in(msg.to)
    return []


def start(room: HostedRoom, msg: m.Host, now: float) -> list[Output]:
    room.fill_empty(DEFAULT_LEVEL)  # empty seats are filled with bots
    room.start_match(now)
    return []


def next_game(room: HostedRoom, msg: m.Host, now: float) -> list[Output]:
    room.fill_empty(DEFAULT_LEVEL)
    room.deal_next()  # with the players' values for this deal
    return []


ANY = frozenset(RoomStatus)
#: A game is being played (its bots' levels fixed in a room that ranks).
IN_PLAY = frozenset({RoomStatus.PLAYING, RoomStatus.PAUSED})
#: A match has begun and is not over (a stand-in bot has turns to play).
IN_MATCH = IN_PLAY | {RoomStatus.BETWEEN}

#: Every host command: its handler and the statuses it may run in.
OPS: dict[m.HostOp, HostOp] = {
    "add_bot": HostOp(
        add_bot, BETWEEN_GAMES, ErrorCode.GAME_IN_PROGRESS, "bots are added between games", True
    ),
    "remove_bot": HostOp(
        remove_bot,
        frozenset({RoomStatus.LOBBY}),
        ErrorCode.GAME_IN_PROGRESS,
        "once play has begun a bot keeps its seat until a person takes it",
        True,
    ),
    "set_bot_level": HostOp(set_bot_level, ANY, ErrorCode.BAD_SEAT, "", True),
    "fill_bots": HostOp(
        fill_bots, BETWEEN_GAMES, ErrorCode.GAME_IN_PROGRESS, "bots are added between games"
    ),
    "kick": HostOp(kick, ANY, ErrorCode.BAD_SEAT, "", True),
    "stand_in": HostOp(
        stand_in,
        IN_MATCH,
        ErrorCode.NOT_STARTED,
        "a bot stands in once the match has begun (a lobby seat is freed after grace)",
        True,
    ),
    "mute": HostOp(mute, ANY, ErrorCode.BAD_SEAT, ""),
    "unmute": HostOp(unmute, ANY, ErrorCode.BAD_SEAT, ""),
    "lock": HostOp(lock, ANY, ErrorCode.BAD_SEAT, ""),
    "unlock": HostOp(unlock, ANY, ErrorCode.BAD_SEAT, ""),
    "start": HostOp(
        start,
        frozenset({RoomStatus.LOBBY}),
        ErrorCode.ALREADY_STARTED,
        "the game has started; use next_game after it",
    ),
    "again": HostOp(
        again,
        frozenset({RoomStatus.OVER}),
        ErrorCode.GAME_NOT_OVER,
        "the table plays again once its match is over",
    ),
    "next_game": HostOp(
        next_game,
        frozenset({RoomStatus.BETWEEN}),
        ErrorCode.NOT_BETWEEN_GAMES,
        "the next game starts once this one is over (and not after the last of a match)",
    ),
}


#: What the host may not do in a daily room: its bots, and their levels, are the day's.
DAILY_FIXED: frozenset[m.HostOp] = frozenset(
    {"add_bot", "remove_bot", "set_bot_level", "fill_bots"}
)


def perform(room: HostedRoom, msg: m.Host, now: float) -> list[Output]:
    """Run the host command ``msg`` (the sender is known to be the host): its outputs."""
    op = OPS[msg.op]
    if room.daily and room.settings.daily_alone and msg.op in DAILY_FIXED:
        raise Refusal(ErrorCode.DAILY_FIXED, "a daily game's bots and their levels are fixed")
    if room.status() not in op.allowed:
        raise Refusal(op.refusal, op.why)
    if op.needs_seat and (msg.seat is None or msg.seat >= room.players):
        raise Refusal(ErrorCode.BAD_SEAT, f"name a seat from 0 to {room.players - 1}")
    return op.run(room, msg, now)
