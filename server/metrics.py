"""Prometheus metrics of one server process (a registry per server, so tests can run several).

The metrics touched on every action (actions, action-to-view latency, persist time) are kept in
plain numbers and turned into Prometheus samples only when ``/metrics`` is scraped:
``prometheus_client``'s own counters and histograms take a lock and look up labels on every
update, a measurable share of the server's time per action under load.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from typing import Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from server.bots.pool import PoolStats

#: Seconds a bot request waited in the pool's queue for a worker.
BOT_WAIT_BUCKETS = (0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0)
#: Bounds above 5 ms, shared by the latency histograms below.
_ABOVE_5MS = (0.0075, 0.01, 0.015, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
#: Fine enough below 10 ms that a load test reads the server's own p50 and p99 from the deltas.
LATENCY_BUCKETS = (0.0001, 0.00025, 0.0005, 0.00075, 0.001, 0.0015, 0.0025, 0.005, *_ABOVE_5MS)
#: How late the event loop ran a timer (server/net/loop_lag.py).
LOOP_LAG_BUCKETS = (0.0005, 0.001, 0.002, 0.003, 0.005, *_ABOVE_5MS)
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

    def cumulative(self) -> list[tuple[str, float]]:
        """The buckets as Prometheus counts them: each one counting every bucket below it."""
        cumulative: list[tuple[str, float]] = []
        total = 0
        for bound, count in zip((*map(repr, self.bounds), "+Inf"), self.counts, strict=True):
            total += count
            cumulative.append((bound, total))
        return cumulative

    def family(self) -> HistogramMetricFamily:
        return HistogramMetricFamily(
            self.name, self.documentation, buckets=self.cumulative(), sum_value=self.sum
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
        yield m.loop_lag.family()
        if m.batch_sizes is not None:
            yield m.batch_sizes.family()
        if m.round_trips is not None:
            yield m.round_trips.family()
        if m.queue_waits is not None:
            yield m.queue_waits.family()
        waits = HistogramMetricFamily(
            "cardroom_bot_wait_seconds",
            "Seconds a room's bot request or hint waited in the fair queue for a worker, by level",
            labels=["level"],
        )
        for level, histogram in sorted(m.bot_waits.items()):
            waits.add_metric([level], histogram.cumulative(), histogram.sum)
        yield waits
        if m.bot_stats is not None:
            yield from _bot_families(m.bot_stats, m.bot_held)
        yield from _budget_families(m.budget_counts())
        yield CounterMetricFamily(
            "cardroom_gc_freezes",
            "Times what was alive left the collector's sight after a burst of arrivals (gc.freeze)",
            value=m.gc_freezes,
        )
        yield from _cluster_families(m)


def _budget_families(counts: list[tuple[str, int, int]]) -> Iterator[Metric]:
    full = CounterMetricFamily(
        "cardroom_budget_full",
        "Spends of new addresses refused: every address a budget keeps in memory still in use",
        labels=["budget"],
    )
    fallbacks = CounterMetricFamily(
        "cardroom_budget_fallbacks",
        "Spends counted in this process's memory because Redis was away",
        labels=["budget"],
    )
    for name, refused, fell_back in counts:
        full.add_metric([name], refused)
        fallbacks.add_metric([name], fell_back)
    yield full
    yield fallbacks


def _cluster_families(m: Metrics) -> Iterator[Metric]:
    """Frames and messages through Redis pub/sub beside those sent straight: the fraction
    forwarded is ``relayed_frames / frames_sent`` summed over the processes."""
    yield CounterMetricFamily(
        "cardroom_frames_sent",
        "Frames written to this process's own clients (straight from a room here, or relayed)",
        value=m.frames_sent,
    )
    yield CounterMetricFamily(
        "cardroom_flushes",
        "Passes that wrote the frames waiting for this process's clients: one after each client "
        "frame that produced some, one at the end of a turn for the rest",
        value=m.flushes,
    )
    yield CounterMetricFamily(
        "cardroom_relayed_frames",
        "Frames a room here sent to a client of another process, through Redis pub/sub",
        value=m.relayed_frames,
    )
    forwarded = CounterMetricFamily(
        "cardroom_forwarded_messages",
        "Client messages forwarded through Redis pub/sub (out: to a room's owner; in: from a "
        "process whose client it is)",
        labels=["direction"],
    )
    for direction in ("in", "out"):
        forwarded.add_metric([direction], m.forwarded.get(direction, 0))
    yield forwarded
    yield CounterMetricFamily(
        "cardroom_rooms_placed",
        "Rooms created here and let go at once for the process their code hashes to",
        value=m.rooms_placed,
    )


def _bot_families(stats: PoolStats, held: Callable[[], tuple[int, int]]) -> Iterator[Metric]:
    decisions = CounterMetricFamily(
        "cardroom_bot_decisions", "Slow bots' decisions made in a worker", labels=["level"]
    )
    for level, count in sorted(stats.decisions.items()):
        decisions.add_metric([level], count)
    yield decisions
    fallbacks = CounterMetricFamily(
        "cardroom_bot_fallbacks",
        "Slow bots' decisions the basic bot made instead, by level and why (overran: the "
        "watchdog fired; worker_lost: the worker died or hung; queue_full, owner_full: too many "
        "waiting; failed: the bot raised)",
        labels=["level", "why"],
    )
    for (level, why), count in sorted(stats.fallbacks.items()):
        fallbacks.add_metric([level, why], count)
    yield fallbacks
    yield CounterMetricFamily(
        "cardroom_bot_worker_restarts", "Bot workers started after one died", value=stats.restarts
    )
    yield GaugeMetricFamily(
        "cardroom_bot_queue", "Bot requests waiting for a worker", value=stats.queued
    )
    yield GaugeMetricFamily("cardroom_bot_workers", "Bot workers ready", value=stats.workers)
    states, size = held()
    yield GaugeMetricFamily(
        "cardroom_bot_states", "Slow bots' states held by the open rooms", value=states
    )
    yield GaugeMetricFamily(
        "cardroom_bot_state_bytes", "Bytes of the slow bots' states the open rooms hold", value=size
    )


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
        #: accepted game actions by (game, who: player, bot, timer, or host: start, next_game)
        self.actions: dict[tuple[str, str], int] = {}
        # scale-out: what went through Redis pub/sub, and what went out straight
        self.frames_sent = 0
        self.flushes = 0  # passes writing the frames waiting (server/net/server.py _flush)
        self.gc_freezes = 0  # gc.freeze() calls after arrivals (server/net/server.py)
        self.relayed_frames = 0
        self.forwarded: dict[str, int] = {}  # "in" | "out" -> client messages
        self.rooms_placed = 0
        self.refused = Counter(
            "cardroom_connections_refused",
            "Connections refused at the door, by cap (see server/net/admission.py Cap)",
            ["cap"],
            registry=r,
        )
        self.handshakes = Gauge(
            "cardroom_handshakes_in_progress",
            "Accepted connections whose HTTP request has not arrived yet",
            registry=r,
        )
        self.open_timeouts = Counter(
            "cardroom_handshakes_timed_out",
            "Connections closed for not sending their HTTP request within open_timeout",
            registry=r,
        )
        self.rooms_refused = Counter(
            "cardroom_rooms_refused",
            "Rooms not created over a budget (too_many_rooms), by budget",
            ["budget"],
            registry=r,
        )
        self.refusals = Counter(
            "cardroom_refusals", "Requests refused, by code", ["code"], registry=r
        )
        self.handovers = Counter(
            "cardroom_handovers",
            "Rooms handed over at a planned stop: given to a peer, taken from one, or "
            "let go (this process was stopping or full; the next process takes it over)",
            ["way"],
            registry=r,
        )
        self.latency = Histogram(
            "cardroom_action_to_view_seconds",
            "From receiving an action to queueing every view it produced",
            LATENCY_BUCKETS,
        )
        self.loop_lag = Histogram(
            "cardroom_loop_lag_seconds",
            "How much later than due the event loop ran a timer (a frame arriving then waits "
            "about as long before it is read)",
            LOOP_LAG_BUCKETS,
        )
        self.persist = Histogram(
            "cardroom_persist_seconds",
            "Storing one accepted action in the room store, before it is acknowledged",
            PERSIST_BUCKETS,
        )
        self.batch_sizes: Histogram | None = None  # the Redis store's round trips
        self.round_trips: Histogram | None = None  # and their seconds
        self.queue_waits: Histogram | None = None  # and a write's wait for its round trip
        self.bot_waits: dict[str, Histogram] = {}  # level -> queue waits (a few levels)
        self.bot_stats: PoolStats | None = None
        self.bot_held: Callable[[], tuple[int, int]] = lambda: (0, 0)
        # (budget, new addresses refused when full, spends counted here while Redis was away)
        self.budget_counts: Callable[[], list[tuple[str, int, int]]] = list
        self.api = Counter(
            "cardroom_api_requests",
            "HTTP API requests, by route and status (429: over the per-address budget)",
            ["route", "status"],
            registry=r,
        )
        self.http_refused = Counter(
            "cardroom_http_refused",
            "HTTP requests refused before they were read (400), by reason",
            ["reason"],
            registry=r,
        )
        r.register(_Hot(self))

    def bot_wait(self, level: str, seconds: float) -> None:
        """A bot request of ``level`` waited ``seconds`` for a worker."""
        histogram = self.bot_waits.get(level)
        if histogram is None:
            histogram = self.bot_waits[level] = Histogram("", "", BOT_WAIT_BUCKETS)
        histogram.observe(seconds)

    def watch_bots(self, stats: PoolStats, held: Callable[[], tuple[int, int]]) -> None:
        """Export the bot pool's counts, and ``held()``: the bot states the rooms hold."""
        self.bot_stats = stats
        self.bot_held = held

    def watch_budgets(self, counts: Callable[[], list[tuple[str, int, int]]]) -> None:
        """Export the per-address budgets' refusals when full and their Redis fallbacks."""
        self.budget_counts = counts

    def watch_batches(
        self,
        sizes: Histogram,
        round_trips: Histogram | None = None,
        queue_waits: Histogram | None = None,
    ) -> None:
        """Export the Redis store's writes per round trip (``cardroom_store_batch_size``),
        how long its round trips took (``cardroom_store_round_trip_seconds``) and how long a
        write waited for its round trip (``cardroom_store_queue_seconds``)."""
        self.batch_sizes = sizes
        self.round_trips = round_trips
        self.queue_waits = queue_waits

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

    def watch_keepalive(self, closed: Callable[[], int]) -> None:
        """Export the connections the keepalive sweep closed for a missing pong."""
        gauge = Gauge(
            "cardroom_keepalive_closed",
            "Connections closed by the keepalive: no pong within the ping timeout",
            registry=self.registry,
        )
        gauge.set_function(closed)

    def watch_keepalive_pings(self, pinged: Callable[[], int], spared: Callable[[], int]) -> None:
        """Export the keepalive's pings sent, and those not sent to connections that had just
        sent a message (alive without one)."""
        for name, doc, read in (
            ("cardroom_keepalive_pings", "Keepalive pings sent", pinged),
            (
                "cardroom_keepalive_spared",
                "Keepalive pings not sent: the connection had sent a message since the last sweep",
                spared,
            ),
        ):
            Gauge(name, doc, registry=self.registry).set_function(read)

    def count_actions(self, game: str, by: str, count: int) -> None:
        key = (game, by)
        self.actions[key] = self.actions.get(key, 0) + count

    def render(self) -> bytes:
        return generate_latest(self.registry)
