"""The per-action metrics are plain numbers exported on scrape: what ``/metrics`` shows for them
is what prometheus_client's own counter and histogram would show for the same updates."""

from __future__ import annotations

import random

import prometheus_client as pc

from server.metrics import LATENCY_BUCKETS, Metrics


def samples(text: bytes, prefix: str) -> list[str]:
    return [
        line
        for line in text.decode().splitlines()
        if line.startswith(prefix) and "_created" not in line
    ]


def test_plain_metrics_render_as_prometheus_client_would() -> None:
    ours = Metrics()
    registry = pc.CollectorRegistry()
    latency = pc.Histogram(
        "cardroom_action_to_view_seconds", "x", buckets=LATENCY_BUCKETS, registry=registry
    )
    actions = pc.Counter("cardroom_actions", "x", ["game", "by"], registry=registry)
    rng = random.Random(7)
    values = [*LATENCY_BUCKETS, 0.0, 2.0] + [rng.expovariate(200) for _ in range(500)]
    for value in values:  # bounds themselves included: a value on a bound is in its bucket
        ours.latency.observe(value)
        latency.observe(value)
    for game, by, n in [
        ("shithead", "player", 1),
        ("sheepshead", "bot", 3),
        ("shithead", "player", 2),
    ]:
        ours.count_actions(game, by, n)
        actions.labels(game, by).inc(n)
    theirs = pc.generate_latest(registry)
    for name in ("cardroom_action_to_view_seconds_bucket", "cardroom_actions_total"):
        assert sorted(samples(ours.render(), name)) == sorted(samples(theirs, name))
    ours_sum = samples(ours.render(), "cardroom_action_to_view_seconds_sum")[0].split()[1]
    assert abs(float(ours_sum) - sum(values)) < 1e-9
