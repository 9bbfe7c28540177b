"""What a load test counts, shared by every connection of one run.

Nothing is counted outside the measured window (``measuring``), and actions are counted from
the server's ``ack`` of each of the load tester's own ``act`` requests, never from state versions
(which also move on ``start`` and ``next_game``).

>>> t = Tally()
>>> t.start()
>>> t.latencies += [0.004, 0.001, 0.002, 0.003]
>>> [round(1000 * t.percentile(t.latencies, q)) for q in (0.5, 0.99)]
[3, 4]
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from server.tools.bench.histogram import Histogram

#: State frames kept as samples of what the server sends (for the echo ceiling's payloads).
SAMPLES = 100


@dataclass
class Tally:
    """Counts of one measured window."""

    measuring: bool = False
    sent: int = 0  # act requests sent
    accepted: int = 0  # acks of our own act requests
    refused: Counter[str] = field(default_factory=Counter)  # refusals of our act requests
    frames: int = 0  # frames received by every connection
    latencies: list[float] = field(default_factory=list)  # act sent -> state it produced
    bot_moves: int = 0  # states whose first event is a bot seat's move
    bot_times: list[float] = field(default_factory=list)  # state naming a bot -> its move
    stalls: int = 0  # rooms that stopped moving (no frame for the stall timeout)
    samples: list[str] = field(default_factory=list)

    def start(self) -> None:
        """Open the measured window: every count starts from zero."""
        self.sent = self.accepted = self.frames = self.bot_moves = self.stalls = 0
        self.refused.clear()
        self.latencies.clear()
        self.bot_times.clear()
        self.measuring = True

    def sample(self, raw: bytes) -> None:
        """Keep a state frame (every seventh, up to :data:`SAMPLES`) as a realistic payload."""
        if len(self.samples) < SAMPLES and self.frames % 7 == 0:
            self.samples.append(raw.decode())

    @staticmethod
    def percentile(values: list[float], q: float) -> float:
        """The ``q`` quantile (nearest rank) of ``values``; 0 for none."""
        if not values:
            return 0.0
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    def counts(self) -> Counts:
        """What this tally counted, in the form that merges across worker processes."""
        return Counts(
            sent=self.sent,
            accepted=self.accepted,
            refused=Counter(self.refused),
            frames=self.frames,
            latency=Histogram.of(self.latencies),
            bot_moves=self.bot_moves,
            bot_times=Histogram.of(self.bot_times),
            stalls=self.stalls,
        )

    def within(self, values: list[float], limit: float) -> float:
        """Share of ``values`` at most ``limit`` (0 for none)."""
        return sum(v <= limit for v in values) / len(values) if values else 0.0


@dataclass
class Counts:
    """One window's counts of one or more load generators, merged exactly: counts summed,
    latency histograms merged bucket by bucket.

    >>> a, b = Tally(), Tally()
    >>> a.start(); b.start()
    >>> a.accepted, a.latencies, b.accepted, b.latencies = 1, [0.002], 2, [0.001, 0.009]
    >>> m = a.counts().merged(b.counts())
    >>> m.accepted, m.latency.count, round(1000 * m.latency.percentile(0.99))
    (3, 3, 9)
    """

    sent: int = 0
    accepted: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    frames: int = 0
    latency: Histogram = field(default_factory=Histogram)
    bot_moves: int = 0
    bot_times: Histogram = field(default_factory=Histogram)
    stalls: int = 0

    def merged(self, other: Counts) -> Counts:
        return Counts(
            sent=self.sent + other.sent,
            accepted=self.accepted + other.accepted,
            refused=self.refused + other.refused,
            frames=self.frames + other.frames,
            latency=self.latency.merged(other.latency),
            bot_moves=self.bot_moves + other.bot_moves,
            bot_times=self.bot_times.merged(other.bot_times),
            stalls=self.stalls + other.stalls,
        )
