"""The host's commands: one small handler each, and the room statuses each is allowed in.

:func:`perform` checks the command against :data:`OPS` (status, then seat) and runs its
handler; the caller (:meth:`server.rooms.core.RoomCore._on_host`) acknowledges it and tells the
room.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from protocol import messages as m
from protocol.errors import ErrorCode
from server.bots.base import DEFAULT_LEVEL
from server.rooms.outputs import ConnId, Detach, Output
from server.rooms.seats import Refusal, Seat, error_frame
from server.rooms.status import BETWEEN_GAMES, RoomStatus

if TYPE_CHECKING:
    from server.rooms.core import RoomCore

Handler = Callable[["RoomCore", m.Host, float, list[Output]], None]


@dataclass(frozen=True, slots=True)
class HostOp:
    run: Handler
    allowed: frozenset[RoomStatus]  # statuses the command is allowed in
    refusal: ErrorCode  # the code when it is not
    why: str
    needs_seat: bool = False


def _level(msg: m.Host) -> str:
    return msg.level or DEFAULT_LEVEL


def _seat(room: RoomCore, msg: m.Host) -> int:
    assert msg.seat is not None  # checked by perform() for every op that needs_seat
    return msg.seat


def _allow_experts(room: RoomCore, level: str, seats: list[int]) -> None:
    """Refuse to make bots of ``seats`` ``level`` bots if that seats more experts than the
    room may have (each one thinks about a second a move in the server's shared workers)."""
    if level != "expert":
        return
    others = sum(
        1
        for i, s in enumerate(room.seats)
        if s.kind == "bot" and s.level == "expert" and i not in seats
    )
    cap = room.settings.max_expert_seats
    if others + len(seats) > cap:
        raise Refusal(ErrorCode.EXPERT_LIMIT, f"a room may seat at most {cap} expert bots")


def add_bot(room: RoomCore, msg: m.Host, now: float, out: list[Output]) -> None:
    index = _seat(room, msg)
    if room.seats[index].kind != "empty":
        raise Refusal(ErrorCode.SEAT_TAKEN, f"seat {index} is not empty")
    _allow_experts(room, _level(msg), [index])
    room.seats[index] = Seat.bot(index, _level(msg))


def remove_bot(room: RoomCore, msg: m.Host, now: float, out: list[Output]) -> None:
    index = _seat(room, msg)
    if room.seats[index].kind != "bot":
        raise Refusal(ErrorCode.NOT_A_BOT, f"seat {index} holds no bot")
    room.seats[index] = Seat()


def set_bot_level(room: RoomCore, msg: m.Host, now: float, out: list[Output]) -> None:
    index = _seat(room, msg)
    if room.seats[index].kind != "bot":
        raise Refusal(ErrorCode.NOT_A_BOT, f"seat {index} holds no bot")
    _allow_experts(room, _level(msg), [index])
    room.seats[index].level = _level(msg)


def fill_bots(room: RoomCore, msg: m.Host, now: float, out: list[Output]) -> None:
    _allow_experts(room, _level(msg), [i for i, s in enumerate(room.seats) if s.kind == "empty"])
    room._fill_empty(_level(msg))


def kick(room: RoomCore, msg: m.Host, now: float, out: list[Output]) -> None:
    index = _seat(room, msg)
    target = room.seats[index]
    if target.kind != "human" or index == room.host:
        raise Refusal(ErrorCode.BAD_SEAT, "the host can remove another player only")
    if target.conn is not None:
        gone: ConnId = target.conn
        room.where.pop(gone, None)
        out.append(error_frame(gone, None, ErrorCode.REMOVED, "the host removed you"))
        out.append(Detach(gone))
    room.ban(index)  # that device may not join or watch again (kept in the room's record)
    room._replace_human(index)


def _mute(room: RoomCore, msg: m.Host, muted: bool) -> None:
    """Mute (or unmute) a seated person (``seat``) or a spectator (``spectator``: the number
    their chat lines carry); their device too, so that leaving and coming back is no way out."""
    if msg.seat is not None:
        if msg.seat >= room.players or room.seats[msg.seat].kind != "human":
            raise Refusal(ErrorCode.BAD_SEAT, "name a seat a person sits in")
        if msg.seat == room.host:
            raise Refusal(ErrorCode.BAD_SEAT, "the host cannot mute themselves")
        (room.muted_seats.add if muted else room.muted_seats.discard)(msg.seat)
        room.mute_device(room.seats[msg.seat].device, muted)
        return
    watcher = next((c for c, n in room.watchers.items() if n == msg.spectator), None)
    if msg.spectator is None or watcher is None:
        raise Refusal(ErrorCode.BAD_SEAT, "name a seat, or a spectator by their number")
    (room.muted_watchers.add if muted else room.muted_watchers.discard)(watcher)
    room.mute_device(room._watch_devices.get(watcher), muted)


def mute(room: RoomCore, msg: m.Host, now: float, out: list[Output]) -> None:
    _mute(room, msg, True)


def unmute(room: RoomCore, msg: m.Host, now: float, out: list[Output]) -> None:
    _mute(room, msg, False)


def lock(room: RoomCore, msg: m.Host, now: float, out: list[Output]) -> None:
    room.locked = True


def unlock(room: RoomCore, msg: m.Host, now: float, out: list[Output]) -> None:
    room.locked = False


def start(room: RoomCore, msg: m.Host, now: float, out: list[Output]) -> None:
    room._fill_empty(DEFAULT_LEVEL)  # empty seats are filled with bots
    room._start_match(now)


def next_game(room: RoomCore, msg: m.Host, now: float, out: list[Output]) -> None:
    assert room.match is not None  # BETWEEN implies a match
    room._fill_empty(DEFAULT_LEVEL)
    room.deal_next()  # with the players' values for this deal
    room.version += 1


ANY = frozenset(RoomStatus)

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


def perform(room: RoomCore, conn: ConnId, msg: m.Host, now: float, out: list[Output]) -> None:
    """Run the host command ``msg`` (the sender is known to be the host)."""
    op = OPS[msg.op]
    if room.daily and room.settings.daily_alone and msg.op in DAILY_FIXED:
        raise Refusal(ErrorCode.DAILY_FIXED, "a daily game's bots and their levels are fixed")
    if room.status() not in op.allowed:
        raise Refusal(op.refusal, op.why)
    if op.needs_seat and (msg.seat is None or msg.seat >= room.players):
        raise Refusal(ErrorCode.BAD_SEAT, f"name a seat from 0 to {room.players - 1}")
    op.run(room, msg, now, out)
