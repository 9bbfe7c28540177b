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

    def within(self, values: list[float], limit: float) -> float:
        """Share of ``values`` at most ``limit`` (0 for none)."""
        return sum(v <= limit for v in values) / len(values) if values else 0.0
