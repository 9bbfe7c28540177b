"""Faults under load over real processes (``cardroom bench faults``, short runs), each run
checked whole by the history checker: nothing acknowledged lost, no version going back, no two
views of one version, no state shown that the store does not hold, and play resumes by itself.
The long runs and their figures are in docs/benchmarks.md."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from server.tools.bench.faults import disk_full, failover, owner_pause, redis_pause

pytestmark = pytest.mark.slow


async def test_the_primary_killed_under_replicated_loses_nothing(tmp_path: Path) -> None:
    """The replicas are left behind for a second and a half, then the primary dies: what it
    took meanwhile was refused, never acknowledged, so nothing acknowledged is lost."""
    figures = await failover(
        "replicated", rooms=8, seconds=9, think=0.2, directory=tmp_path, lag=1.5
    )
    assert figures.verdict.ok, figures.lines()
    assert figures.verdict.acknowledged > 50 and figures.verdict.lost == 0
    assert figures.refusals.get("store_unavailable", 0) > 0  # what no replica confirmed
    assert figures.resumed is not None and figures.resumed < 15  # Sentinel's promotion
    assert figures.all_resumed is not None  # every room plays on, on the new primary


async def test_the_primary_killed_under_local_loses_what_the_replicas_lacked(
    tmp_path: Path,
) -> None:
    """The same fault under ``local``: the actions acknowledged while the replicas were behind
    are lost, the checker counts them, and the rooms play on from what the replica held."""
    figures = await failover("local", rooms=8, seconds=9, think=0.2, directory=tmp_path, lag=1.5)
    assert figures.verdict.lost > 0 and figures.verdict.backwards > 0, figures.lines()
    assert figures.verdict.conflicts == 0 and figures.verdict.gaps == 0
    assert figures.all_resumed is not None


@pytest.mark.parametrize("pause", [2.0, 20.0])
async def test_redis_stopped_refuses_then_resumes(pause: float, tmp_path: Path) -> None:
    figures = await redis_pause(rooms=8, pause=pause, seconds=9, think=0.2, directory=tmp_path)
    assert figures.verdict.ok, figures.lines()
    assert figures.all_resumed is not None and figures.all_resumed < 10
    if pause > 10:
        assert figures.refusals.get("store_unavailable", 0) > 0  # told, not left waiting
        assert 503 in figures.extra["healthz_while_stopped"]  # degraded
        assert 0 not in figures.extra["healthz_while_stopped"]  # and said at once
    assert figures.extra["healthz_after"] == [200]


async def test_a_paused_owner_writes_nothing_once_its_rooms_moved(tmp_path: Path) -> None:
    figures = await owner_pause(rooms=20, seconds=9, think=0.2, directory=tmp_path)
    assert figures.verdict.ok, figures.lines()
    assert figures.extra["frames_written_by_a_fenced_owner"] == 0
    assert figures.extra["rooms_moved_to_the_new_owner"] == 20
    assert figures.all_resumed is not None


@pytest.mark.skipif(os.geteuid() != 0, reason="a full disk is made with a tmpfs: needs root")
async def test_a_full_disk_refuses_and_loses_nothing(tmp_path: Path) -> None:
    figures = await disk_full(rooms=8, seconds=12, think=0.2, directory=tmp_path)
    assert figures.verdict.ok, figures.lines()
    assert figures.refusals.get("store_unavailable", 0) > 0
    assert figures.resumed is not None
