"""How many rooms may be opened, and by whom: a process's cap on open rooms, and per client
address a token bucket of rooms created per minute and a cap on rooms open at once.

Without them one client could open rooms as fast as it can send ``create`` (5,000 in 6 s from
one address, +52 MB). What this keeps is bounded: a count per address
that has a room open (at most ``max_rooms`` of them), and buckets only for addresses that
created recently (:data:`MAX_BUCKETS` at most; full ones are dropped first).

>>> from server.rooms.settings import RoomSettings
>>> budgets = CreateBudgets(RoomSettings(rooms_per_minute=60, rooms_burst=1, rooms_per_address=5))
>>> budgets.take("10.0.0.1", rooms_open=0, now=0.0)
>>> try:
...     budgets.take("10.0.0.1", rooms_open=0, now=0.5)
... except OverBudget as over:
...     print(over.code, over.budget)
too_many_rooms per_minute
>>> budgets.take("10.0.0.1", rooms_open=0, now=1.0)
"""

from __future__ import annotations

from enum import StrEnum

from protocol.errors import ErrorCode
from server.rooms.limits import TokenBucket
from server.rooms.refusal import Refusal
from server.rooms.settings import RoomSettings

#: Addresses whose creation buckets are kept at once; beyond, full buckets go, then the oldest.
MAX_BUCKETS = 4096


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
        self._buckets: dict[str, TokenBucket] = {}
        self._open: dict[str, int] = {}  # address -> rooms it opened that are still open
        self._opener: dict[str, str] = {}  # room code -> the address that opened it

    def take(self, address: str | None, rooms_open: int, now: float) -> None:
        """Spend one room of ``address``'s budgets (``None``: a client with no address of
        its own, capped by the process only), or refuse.

        Raises:
            OverBudget: over the process's cap, the address's open rooms or its rate.
        """
        s = self.settings
        if rooms_open >= s.max_rooms:
            raise OverBudget(Budget.PROCESS, "this server has as many rooms as it can hold")
        if address is None:
            return
        if self._open.get(address, 0) >= s.rooms_per_address:
            why = f"at most {s.rooms_per_address} rooms may be open from one address at once"
            raise OverBudget(Budget.PER_ADDRESS, why)
        bucket = self._buckets.get(address)
        if bucket is None:
            self._prune(now)
            bucket = self._buckets[address] = TokenBucket(
                s.rooms_per_minute / 60.0, s.rooms_burst, now
            )
        if not bucket.allow(now):
            why = "you are opening rooms too quickly; try again in a minute"
            raise OverBudget(Budget.PER_MINUTE, why)

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

    def tracked(self) -> int:
        """Addresses with a creation bucket kept (bounded by :data:`MAX_BUCKETS`)."""
        return len(self._buckets)

    def _prune(self, now: float) -> None:
        if len(self._buckets) < MAX_BUCKETS:
            return
        for address, bucket in list(self._buckets.items()):
            bucket.allow(now)  # refill (spending one token is no matter: it is dropped or full)
            if bucket.tokens + 1 >= bucket.burst:
                del self._buckets[address]
        # still too many: forget the oldest, down to three quarters, so that a flood from
        # ever new addresses scans the buckets once per MAX_BUCKETS / 4 of them, not each time
        while len(self._buckets) > MAX_BUCKETS * 3 // 4:
            del self._buckets[next(iter(self._buckets))]
