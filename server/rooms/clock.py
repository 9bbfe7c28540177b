"""A room's turn clock: one deadline per version, fixed when the version begins if a human's seat
must act in it, and stored with it, so joins, chat, reconnections, pauses, restarts and
takeovers never move it. It is shown and armed while a person must act; a deadline that passed
meanwhile (the room paused, or rebuilt elsewhere) fires as soon as one must act again.

>>> clock, timer = TurnClock().refresh(3, 100.0, 20, lambda: True, lambda: True)
>>> clock.shown, timer
(120.0, SetTimer(key=TurnTimer(version=3), at=120.0))
>>> clock.refresh(3, 110.0, 20, lambda: True, lambda: True)[1] is None  # armed already
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from server.rooms.outputs import SetTimer, TurnTimer


class TurnClock(NamedTuple):
    """An immutable value (a named tuple: one is made per action); :meth:`refresh` gives the
    next."""

    version: int = -1  # the version ``due`` belongs to
    due: float | None = None  # that version's deadline, shown or not
    armed: int = -1  # the version whose turn timer is set now
    shown: float | None = None  # the deadline states show (a person must act)

    def refresh(
        self,
        version: int,
        now: float,
        turn_timer: int | None,
        human_to_act: Callable[[], bool],
        human_waiting: Callable[[], bool],
    ) -> tuple[TurnClock, SetTimer | None]:
        """The clock at ``version`` and the timer to set, if any (``human_to_act``: a human's
        seat must act in it, present or not; ``human_waiting``: a person must act now)."""
        at, due = self.version, self.due
        if at != version:
            at = version
            due = now + turn_timer if turn_timer and human_to_act() else None
        # (whether a person must act is asked only when there is a deadline to show)
        shown = due if due is not None and human_waiting() else None
        armed, timer = self.armed, None
        if shown is None:
            armed = -1
        elif armed != version:
            armed = version
            timer = SetTimer(TurnTimer(version), shown)
        if at == self.version and due == self.due and armed == self.armed and shown == self.shown:
            return self, timer  # asked several times per input: mostly unchanged
        return TurnClock(at, due, armed, shown), timer

    def extended(self, version: int, due: float) -> tuple[TurnClock, SetTimer]:
        """The clock with ``version``'s deadline moved out to ``due`` (a seat's time bank),
        shown, and its timer set anew."""
        return TurnClock(version, due, version, due), SetTimer(TurnTimer(version), due)

    def due_at(self, version: int) -> float | None:
        """``version``'s deadline, if it has one (an action entry stores it)."""
        return self.due if self.version == version else None

    def stored(self) -> list[float] | None:
        """The record's ``deadline``: ``[version, unix time]``, or None."""
        return [self.version, self.due] if self.due is not None else None

    @classmethod
    def from_stored(cls, deadline: list[float] | None, version: int) -> TurnClock:
        """The clock a record's ``deadline`` leaves at ``version`` (a later version's deadline
        is set when that version begins)."""
        if deadline is None or deadline[0] != version:
            return cls()
        return cls(version=version, due=deadline[1])
