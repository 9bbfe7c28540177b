"""The server's own share of a load test's latency, read from its ``/metrics`` before and after
the window: ``cardroom_action_to_view_seconds`` (from reading an action to queueing every view
it produced) and ``cardroom_loop_lag_seconds`` (how late its event loop ran a timer: what a
frame arriving then waits before it is read). Beside the generator's own act → view and loop
lag, they tell whose delay a p99 is.

A percentile is read from the delta of the cumulative buckets, interpolated linearly inside its
bucket as Prometheus's ``histogram_quantile`` does (so it is as fine as the buckets: 0.25 ms
steps below 1 ms, 2.5 ms up to 10 ms).

>>> before = Buckets((0.001, 0.005, float("inf")), (0, 0, 0))
>>> after = Buckets((0.001, 0.005, float("inf")), (90, 100, 100))
>>> d = after.since(before)
>>> d.count, round(1000 * d.quantile(0.5), 3), round(1000 * d.quantile(0.95), 3)
(100, 0.556, 3.0)
"""

from __future__ import annotations

import math
import urllib.request
from dataclasses import dataclass

from prometheus_client.parser import text_string_to_metric_families

#: The histograms read, by the name their family has (without ``_seconds`` suffixes cut).
VIEW = "cardroom_action_to_view_seconds"
LAG = "cardroom_loop_lag_seconds"


@dataclass(frozen=True)
class Buckets:
    """One histogram's cumulative counts per upper bound (the last bound: +Inf)."""

    bounds: tuple[float, ...]
    cumulative: tuple[int, ...]

    @property
    def count(self) -> int:
        return self.cumulative[-1] if self.cumulative else 0

    def since(self, earlier: Buckets | None) -> Buckets:
        """What was observed after ``earlier`` (the same histogram read before)."""
        if earlier is None or earlier.bounds != self.bounds:
            return self
        return Buckets(
            self.bounds,
            tuple(a - b for a, b in zip(self.cumulative, earlier.cumulative, strict=True)),
        )

    def quantile(self, q: float) -> float:
        """The ``q`` quantile, linear inside its bucket; above the last finite bound, that
        bound (all one can say); 0 with nothing observed."""
        total = self.count
        if not total:
            return 0.0
        rank = q * total
        lower, below = 0.0, 0
        for bound, cumulative in zip(self.bounds, self.cumulative, strict=True):
            if cumulative >= rank and cumulative > below:
                if math.isinf(bound):
                    return lower
                return lower + (bound - lower) * (rank - below) / (cumulative - below)
            if not math.isinf(bound):
                lower = bound
            below = cumulative
        return lower


def parse(text: str) -> dict[str, Buckets]:
    """Every histogram in a ``/metrics`` body (unlabelled ones: the server's own)."""
    out: dict[str, Buckets] = {}
    for family in text_string_to_metric_families(text):
        if family.type != "histogram":
            continue
        pairs = [
            (float(s.labels["le"]), int(s.value))
            for s in family.samples
            if s.name.endswith("_bucket") and set(s.labels) == {"le"}
        ]
        if pairs:
            pairs.sort()
            out[family.name] = Buckets(tuple(b for b, _ in pairs), tuple(c for _, c in pairs))
    return out


def read(port: int, timeout: float = 10.0) -> dict[str, Buckets]:
    """The histograms of the server whose HTTP port is ``port`` on loopback."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=timeout) as r:
        return parse(r.read().decode())


@dataclass(frozen=True)
class ServerShare:
    """The server's latency in a window: its act → views queued, and its loop's lag."""

    views: Buckets
    lag: Buckets

    @classmethod
    def between(cls, before: dict[str, Buckets], after: dict[str, Buckets]) -> ServerShare:
        empty = Buckets((math.inf,), (0,))
        return cls(
            after.get(VIEW, empty).since(before.get(VIEW)),
            after.get(LAG, empty).since(before.get(LAG)),
        )
