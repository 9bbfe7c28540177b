"""Prometheus metrics of one server process (a registry per server, so tests can run several)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.rooms = Gauge("cardroom_rooms", "Rooms open in this process", registry=r)
        self.connections = Gauge("cardroom_connections", "Open WebSocket connections", registry=r)
        self.actions = Counter(
            "cardroom_actions", "Game actions accepted", ["game", "by"], registry=r
        )
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
            buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
            registry=r,
        )

        self.persist = Histogram(
            "cardroom_persist_seconds",
            "Storing one accepted action in the room store, before it is acknowledged",
            buckets=(
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
            ),
            registry=r,
        )

    def render(self) -> bytes:
        return generate_latest(self.registry)
