"""The time bank: a reserve of seconds each seat has for a match (the room's ``time_bank``),
spent once one of its turns runs over the turn timer. When the timer fires on a present
person's turn and their seat has a second or more left, the turn's deadline moves out by all
of it; what they use is charged when the turn ends (their move, or anyone's); a turn that
runs out of bank too is played by the stand-in as any other. Swap phases (all at once) keep
the plain timer. A restart gives every seat its whole bank back (banks are not stored).

>>> class Room:  # the two things the bank reads of a room
...     time_bank = 30
...     def __init__(self): self.state = RoomState(SeatTable(3))
>>> from server.rooms.state import RoomState
>>> from server.rooms.seats import SeatTable
>>> room = Room()
>>> begin(room, seat=1, version=7, now=100.0)  # the turn ran over: all 30 s, until 130
130.0
>>> charge(room, version=7, now=112.5)  # played 12.5 s into it
True
>>> banks_left(room)
[30.0, 17.5, 30.0]
>>> begin(room, seat=1, version=9, now=200.0)
217.5
"""

from __future__ import annotations

from typing import Protocol

from server.rooms.state import RoomState

#: Less than this left is no bank: the stand-in plays.
MIN_BANK = 1.0


class Banked(Protocol):
    @property
    def state(self) -> RoomState: ...
    @property
    def time_bank(self) -> int | None: ...


def left(room: Banked, seat: int) -> float:
    """The seconds ``seat`` has left in its bank."""
    return room.state.banks.get(seat, float(room.time_bank or 0))


def banks_left(room: Banked) -> list[float]:
    """Each seat's seconds left (for the room frame), rounded to a tenth."""
    return [round(left(room, i), 1) for i in range(len(room.state.seats))]


def begin(room: Banked, seat: int, version: int, now: float) -> float | None:
    """``seat``'s turn at ``version`` ran over: the deadline its bank gives (``now`` + all it
    has left), or None when it has too little left to matter."""
    have = left(room, seat)
    if have < MIN_BANK:
        return None
    room.state.banking = (version, seat, now)
    return now + have


def charge(room: Banked, version: int, now: float) -> bool:
    """The turn at ``version`` ended: the banking seat pays the time it used (a turn at another
    version was charged already, or never began). Whether a bank changed."""
    state = room.state
    if state.banking is None:
        return False
    at, seat, since = state.banking
    state.banking = None
    if at == version:
        state.banks[seat] = max(0.0, left(room, seat) - (now - since))
    return at == version


def banking_seat(room: Banked) -> int | None:
    """The seat spending its bank on the current turn, if one is."""
    banking = room.state.banking
    return banking[1] if banking is not None and banking[0] == room.state.version else None


def spent_out(room: Banked, version: int) -> bool:
    """Whether the turn at ``version`` is already on its bank (its timer firing again means
    the bank ran out)."""
    banking = room.state.banking
    return banking is not None and banking[0] == version
