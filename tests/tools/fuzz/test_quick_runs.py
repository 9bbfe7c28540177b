"""Quick versions of ``cardroom fuzz`` and ``cardroom soak``, so CI catches a regression: a few
thousand hostile frames against a ``cardroom serve`` child process, and 25 seconds of churn
in process. The long runs are the commands, run by hand."""

from __future__ import annotations

import pytest

from server.tools.fuzz.fuzz import Options, print_report
from server.tools.fuzz.fuzz import _run as run_fuzz
from server.tools.fuzz.soak import print_report as print_soak
from server.tools.fuzz.soak import soak

pytestmark = pytest.mark.slow


async def test_quick_fuzz_finds_nothing() -> None:
    opts = Options(frames=3000, seconds=60, seed=11, workers=4, idle_wait=3)
    report = await run_fuzz(opts)
    print_report(report, opts)  # shown by pytest when the test fails
    assert report.failures() == []
    t = report.tally
    assert t.frames >= 3000 and report.server_alive
    assert t.answers["error:invalid_message"] and t.answers["error:bad_json"]
    assert t.answers["welcome"] and t.answers["joined"]  # valid frames were accepted too
    assert report.games_finished["shithead"] and report.games_finished["sheepshead"]
    assert report.verdict.checked > 500
    assert report.hostile_states > 0  # hostile watchers' views were checked too


async def test_quick_soak_leaves_nothing_behind() -> None:
    report = await soak(minutes=0.4, rooms=6, seed=3, warmup=10)
    print_soak(report, 6)
    assert report.churn["rooms opened"] >= 6 and report.churn["games finished"] >= 1
    assert report.churn["drops"] + report.churn["leaves"] >= 1
    assert report.actions > 100
    # memory is judged by the long run only: half a minute is all warm-up
    assert report.stuck == [] and report.leaked_tasks == []
    assert report.rooms_left == [] and report.connections_left == 0
    assert report.members_left == 0
