"""Prometheus metrics of one server process (a registry per server, so tests can run several).

The metrics touched on every action (actions, action-to-view latency, persist time) are kept in
plain numbers and turned into Prometheus samples only when ``/metrics`` is scraped:
``prometheus_client``'s own counters and histograms take a lock and look up labels on every
update, a measurable share of the server's time per action under load.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from typing import Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
PERSIST_BUCKETS = (
    0.00005,
    0.0001,
    0.00015,
    0.0002,
    0.0003,
    0.0004,
    0.0005,
    0.00075,
    0.001,
    0.0015,
    0.002,
    0.003,
    0.005,
    0.0075,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    1.0,
)


class Histogram:
    """Observations counted per bucket in plain numbers (one event loop: no lock needed)."""

    def __init__(self, name: str, documentation: str, buckets: tuple[float, ...]) -> None:
        self.name = name
        self.documentation = documentation
        self.bounds = buckets
        self.counts = [0] * (len(buckets) + 1)  # the last one: above every bound (+Inf)
        self.sum = 0.0

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, value)] += 1
        self.sum += value

    def family(self) -> HistogramMetricFamily:
        cumulative: list[tuple[str, float]] = []
        total = 0
        for bound, count in zip((*map(repr, self.bounds), "+Inf"), self.counts, strict=True):
            total += count
            cumulative.append((bound, total))
        return HistogramMetricFamily(
            self.name, self.documentation, buckets=cumulative, sum_value=self.sum
        )


class _Hot(Collector):
    """Exports the plain-number metrics of :class:`Metrics` when scraped."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Metric]:
        m = self.metrics
        actions = CounterMetricFamily(
            "cardroom_actions", "Game actions accepted", labels=["game", "by"]
        )
        for (game, by), count in sorted(m.actions.items()):
            actions.add_metric([game, by], count)
        yield actions
        yield m.latency.family()
        yield m.persist.family()


class ReplayStats(Protocol):
    """What the history API's replay cache tells ``/metrics``."""

    hits: int
    misses: int
    size: int


class DeviceStats(Protocol):
    """What the device issuer tells ``/metrics``."""

    issued: int
    refused: int


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.rooms = Gauge("cardroom_rooms", "Rooms open in this process", registry=r)
        self.connections = Gauge("cardroom_connections", "Open WebSocket connections", registry=r)
        #: accepted game actions by (game, who: player, bot or timer)
        self.actions: dict[tuple[str, str], int] = {}
        self.refused = Counter(
            "cardroom_connections_refused",
            "WebSocket handshakes refused over a connection cap, by cap",
            ["cap"],
            registry=r,
        )
        self.refusals = Counter(
            "cardroom_refusals", "Requests refused, by code", ["code"], registry=r
        )
        self.latency = Histogram(
            "cardroom_action_to_view_seconds",
            "From receiving an action to queueing every view it produced",
            LATENCY_BUCKETS,
        )
        self.persist = Histogram(
            "cardroom_persist_seconds",
            "Storing one accepted action in the room store, before it is acknowledged",
            PERSIST_BUCKETS,
        )
        self.api = Counter(
            "cardroom_api_requests",
            "HTTP API requests, by route and status (429: over the per-address budget)",
            ["route", "status"],
            registry=r,
        )
        r.register(_Hot(self))

    def watch_replays(self, cache: ReplayStats) -> None:
        """Export the history API's replay cache (hits, misses, bytes held) when scraped."""
        r = self.registry
        hits = Gauge("cardroom_replay_cache_hits", "History replays served cached", registry=r)
        misses = Gauge("cardroom_replay_cache_misses", "History games replayed", registry=r)
        held = Gauge("cardroom_replay_cache_bytes", "Bytes of replayed steps kept", registry=r)
        hits.set_function(lambda: cache.hits)
        misses.set_function(lambda: cache.misses)
        held.set_function(lambda: cache.size)

    def watch_devices(self, issuer: DeviceStats) -> None:
        """Export the device identities issued, and those refused over an address's budget."""
        r = self.registry
        issued = Gauge("cardroom_devices_issued", "Device identities issued", registry=r)
        refused = Gauge(
            "cardroom_devices_refused",
            "Device identities refused: the address had its day's share",
            registry=r,
        )
        issued.set_function(lambda: issuer.issued)
        refused.set_function(lambda: issuer.refused)

    def count_actions(self, game: str, by: str, count: int) -> None:
        key = (game, by)
        self.actions[key] = self.actions.get(key, 0) + count

    def render(self) -> bytes:
        return generate_latest(self.registry)
