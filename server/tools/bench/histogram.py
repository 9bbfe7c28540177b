"""Latency histograms that merge exactly: the load generator's worker processes each count
their own, and the run's percentiles come from the sum of their buckets (never from averaged
percentiles, which say nothing about the tail of the whole).

Buckets are whole microseconds below 1 ms and three significant digits above (1.00 ms to
1.01 ms is one bucket, 10.0 to 10.1 ms one of the next decade's), so a percentile is the
nearest-rank value of the raw samples to within 1 % below it (their bucket's lower edge), and a
histogram holds at most 1,000 buckets below 1 ms and 900 a decade above, whatever the number of
samples.

>>> a, b = Histogram(), Histogram()
>>> for ms in (1, 2, 3): a.add(ms / 1000)
>>> for ms in (4, 100): b.add(ms / 1000)
>>> m = a.merged(b)
>>> m.count, [round(1000 * m.percentile(q), 3) for q in (0.5, 0.99)]
(5, [3.0, 100.0])
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

#: Below this many microseconds a bucket is one microsecond wide.
EXACT_BELOW = 1000


def bucket(micros: int) -> int:
    """The bucket of a value in whole microseconds: the value itself below
    :data:`EXACT_BELOW`, else the value with all but its first three digits set to zero.

    >>> bucket(999), bucket(1234), bucket(98_765)
    (999, 1230, 98700)
    """
    if micros < EXACT_BELOW:
        return max(micros, 0)
    scale: int = 10 ** (len(str(micros)) - 3)
    return micros // scale * scale


@dataclass
class Histogram:
    """Counts of latencies (seconds in, seconds out) by bucket, with their exact sum."""

    buckets: Counter[int] = field(default_factory=Counter)
    total: float = 0.0  # exact sum of the values added, for the mean

    @property
    def count(self) -> int:
        return sum(self.buckets.values())

    def add(self, seconds: float) -> None:
        self.buckets[bucket(round(seconds * 1e6))] += 1
        self.total += seconds

    @classmethod
    def of(cls, values: list[float]) -> Histogram:
        h = cls()
        for v in values:
            h.add(v)
        return h

    def merged(self, other: Histogram) -> Histogram:
        return Histogram(self.buckets + other.buckets, self.total + other.total)

    def percentile(self, q: float) -> float:
        """The ``q`` quantile by nearest rank, as :meth:`Tally.percentile` takes it of the raw
        values (the bucket's lower edge); 0 for none."""
        count = self.count
        if not count:
            return 0.0
        rank = min(count - 1, int(q * count))
        seen = 0
        for edge in sorted(self.buckets):
            seen += self.buckets[edge]
            if seen > rank:
                return edge / 1e6
        raise AssertionError("unreachable: the ranks add up to the count")

    def mean(self) -> float:
        count = self.count
        return self.total / count if count else 0.0

    def within(self, limit: float) -> float:
        """Share of the values at most ``limit`` seconds (to the bucket; 0 for none)."""
        count = self.count
        edge = bucket(round(limit * 1e6))
        return sum(n for b, n in self.buckets.items() if b <= edge) / count if count else 0.0
