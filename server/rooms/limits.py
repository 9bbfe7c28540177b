"""Token buckets, for every budget with a rate: per connection (server/net), rooms created
per address (:mod:`server.rooms.budgets`) and a room's chat (:mod:`server.rooms.core`). Pure:
the caller gives the time."""

from __future__ import annotations


class TokenBucket:
    """``rate`` messages a second on average, bursts up to ``burst``.

    >>> b = TokenBucket(rate=1, burst=2, now=0.0)
    >>> [b.allow(0.0), b.allow(0.0), b.allow(0.0), b.allow(1.0)]
    [True, True, False, True]
    """

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = now

    def full(self, now: float) -> bool:
        """Whether the bucket would be back to its whole burst at ``now`` (nothing spent)."""
        return self.tokens + (now - self.stamp) * self.rate >= self.burst

    def allow(self, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False
