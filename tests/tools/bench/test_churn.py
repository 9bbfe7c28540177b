"""``cardroom bench churn`` runs, bounded, and sees what the room frames' budget holds: the
player gets about one room frame a second however fast strangers watch and leave."""

from __future__ import annotations

import argparse

import pytest

from server.tools.bench.churn import run

pytestmark = pytest.mark.slow


async def test_the_churn_bench_measures_the_player() -> None:
    args = argparse.Namespace(flood="churn", attackers=4, rate=20.0, acts=20, pause=0.05)
    got = await run(args)
    assert got["acts"] == 20
    assert 0 < got["p50_ms"] <= got["p99_ms"] <= got["max_ms"]
    assert got["room_frames_per_s"] <= 3  # 80 changes a second: one frame a second, and the last
