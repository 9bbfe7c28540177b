"""A token bucket per client address, for budgets that one address must not exceed (the
history API's requests), holding at most ``max_addresses`` buckets.

An address whose bucket has refilled holds nothing worth keeping: beyond ``max_addresses`` the
least recently used bucket is dropped, so the memory is bounded whatever the number of
addresses, and an address only gains by being dropped once it has been idle the longest.

>>> b = AddressBuckets(rate=1.0, burst=2.0, max_addresses=2)
>>> [b.allow("10.0.0.1", 0.0) for _ in range(3)]
[True, True, False]
>>> b.allow("10.0.0.1", 1.0), len(b)
(True, 1)
>>> b.allow("10.0.0.1", 1.0), b.refund("10.0.0.1"), b.allow("10.0.0.1", 1.0)
(False, None, True)
"""

from __future__ import annotations

from collections import OrderedDict

from server.net.limits import TokenBucket


class AddressBuckets:
    """``rate`` requests a second per address on average, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: float, max_addresses: int) -> None:
        self.rate = rate
        self.burst = burst
        self.max_addresses = max_addresses
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    def refund(self, address: str) -> None:
        """Give back a token taken for something that turned out to cost nothing."""
        bucket = self._buckets.get(address)
        if bucket is not None:
            bucket.tokens = min(bucket.burst, bucket.tokens + 1)

    def allow(self, address: str, now: float) -> bool:
        """Take one token from ``address``'s bucket; ``False``: over its budget."""
        bucket = self._buckets.get(address)
        if bucket is None:
            bucket = self._buckets[address] = TokenBucket(self.rate, self.burst, now)
            if len(self._buckets) > self.max_addresses:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(address)
        return bucket.allow(now)
