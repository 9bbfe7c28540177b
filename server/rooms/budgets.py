"""How many rooms may be opened, and by whom: a process's cap on open rooms, and per client
address a cap on rooms open at once (the rate of rooms an address creates is a budget of the
service, :mod:`server.store.budgets`, spent by the room manager after these).

Without them one client could open rooms as fast as it can send ``create`` (5,000 in 6 s from
one address, +52 MB). What this keeps is bounded: a count per address
that has a room open (at most ``max_rooms`` of them).

>>> from server.rooms.settings import RoomSettings
>>> budgets = CreateBudgets(RoomSettings(rooms_per_address=1))
>>> budgets.take("10.0.0.1", rooms_open=0)
>>> budgets.opened("ABCDE", "10.0.0.1")
>>> try:
...     budgets.take("10.0.0.1", rooms_open=1)
... except OverBudget as over:
...     print(over.code, over.budget)
too_many_rooms per_address
"""

from __future__ import annotations

from enum import StrEnum

from protocol.errors import ErrorCode
from server.rooms.refusal import Refusal
from server.rooms.settings import RoomSettings


class Budget(StrEnum):
    """Which budget refused a room (the ``budget`` label of ``cardroom_rooms_refused``)."""

    PER_MINUTE = "per_minute"
    PER_ADDRESS = "per_address"
    PROCESS = "process"


class OverBudget(Refusal):
    """A ``create`` refused by a budget (``too_many_rooms``), naming which one."""

    def __init__(self, budget: Budget, message: str) -> None:
        super().__init__(ErrorCode.TOO_MANY_ROOMS, message)
        self.budget = budget


class CreateBudgets:
    """The room budgets of one process (times are the caller's clock, in seconds)."""

    def __init__(self, settings: RoomSettings) -> None:
        self.settings = settings
        self._open: dict[str, int] = {}  # address -> rooms it opened that are still open
        self._opener: dict[str, str] = {}  # room code -> the address that opened it

    def take(self, address: str | None, rooms_open: int) -> None:
        """Check that one more room fits the process's cap and ``address``'s open rooms
        (``None``: a client with no address of its own, capped by the process only), or refuse.

        Raises:
            OverBudget: over the process's cap or the address's open rooms.
        """
        s = self.settings
        if rooms_open >= s.max_rooms:
            raise OverBudget(Budget.PROCESS, "this server has as many rooms as it can hold")
        if address is None:
            return
        if self._open.get(address, 0) >= s.rooms_per_address:
            why = f"at most {s.rooms_per_address} rooms may be open from one address at once"
            raise OverBudget(Budget.PER_ADDRESS, why)

    def opened(self, code: str, address: str | None) -> None:
        """Room ``code`` was opened by ``address``: it counts until :meth:`closed` (once, however
        often it is opened here: made, let go for another process, and loaded back)."""
        if address is not None and code not in self._opener:
            self._opener[code] = address
            self._open[address] = self._open.get(address, 0) + 1

    def closed(self, code: str) -> None:
        address = self._opener.pop(code, None)
        if address is None:
            return
        left = self._open.pop(address, 1) - 1
        if left > 0:
            self._open[address] = left

    def open_from(self, address: str) -> int:
        """Rooms open now that ``address`` opened."""
        return self._open.get(address, 0)
