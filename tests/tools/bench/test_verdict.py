"""The load generator's verdict on itself, judged per CPU its workers share
(``server/tools/bench/verdict.py``): from known reports, the way one quiet-machine check of the
load generator saw them (four workers on CPU 1 at 20 % each, their loops lagging 31-55 ms,
which the old per-worker verdict called "mostly idle: the machine did not run it")."""

from __future__ import annotations

from server.tools.bench.histogram import Histogram
from server.tools.bench.verdict import Verdict, busy_shares, cores, cpu_ticks
from server.tools.bench.workers import Report, affinity, describe, was_bottleneck

LAGGING = Histogram.of([0.0001] * 98 + [0.04] * 2)  # p99 at 40 ms
CALM = Histogram.of([0.0001] * 100)


def _worker(index: int, share: float, lag: Histogram, cpus: tuple[int, ...]) -> Report:
    return Report(index, seconds=10.0, cpu=10.0 * share, lag=lag, cpus=cpus)


def test_four_workers_that_fill_their_shared_core_are_busy_not_starved() -> None:
    reports = [_worker(k, 0.20, LAGGING, (1,)) for k in range(4)]
    [core] = cores(reports)
    assert core.cpus == (1,) and round(core.share, 2) == 0.80
    assert core.verdict is Verdict.FULL
    lines = describe(reports)
    assert "CPUs 1: worker(s) 0, 1, 2, 3 used 80% of 1 core(s) together" in lines[-2]
    assert "THE LOAD GENERATOR WAS A BOTTLENECK (full)" in lines[-1]
    assert "did not run it" not in lines[-1]
    assert "would not help" in lines[-1]
    assert was_bottleneck(reports)


def test_a_full_core_is_busy_even_when_no_loop_lags() -> None:
    reports = [_worker(k, 0.20, CALM, (1,)) for k in range(4)]
    assert not any(r.busy for r in reports)  # no worker alone looks busy
    assert cores(reports)[0].verdict is Verdict.FULL
    assert was_bottleneck(reports)


def test_lagging_workers_that_left_their_core_mostly_idle_were_starved() -> None:
    reports = [_worker(k, 0.06, LAGGING, (1,)) for k in range(4)]  # 24 % of CPU 1 together
    assert cores(reports)[0].verdict is Verdict.STARVED
    assert "did not run it" in describe(reports)[-1]


def test_workers_on_different_cpus_are_summed_apart() -> None:
    # two workers on each CPU at 30 %: 60 % of each core, calm loops: not the bottleneck
    reports = [_worker(k, 0.30, CALM, (k % 2,)) for k in range(4)]
    found = cores(reports)
    assert [c.cpus for c in found] == [(0,), (1,)]
    assert [[w.index for w in c.workers] for c in found] == [[0, 2], [1, 3]]
    assert all(c.verdict is Verdict.FINE for c in found)
    assert "not the bottleneck" in describe(reports)[-1]
    assert not was_bottleneck(reports)


def test_a_busy_worker_whose_cpus_have_room_needs_company() -> None:
    # unpinned on two CPUs, one worker at 90 % of a core uses 45 % of them: add workers
    alone = [_worker(0, 0.90, CALM, (0, 1))]
    assert cores(alone)[0].verdict is Verdict.WORKER_BUSY
    assert "add --workers" in describe(alone)[-1]
    # pinned to one CPU, the same worker fills it: more workers there would not help
    pinned = [_worker(0, 0.90, CALM, (1,))]
    assert cores(pinned)[0].verdict is Verdict.FULL
    assert "add --workers" not in describe(pinned)[-1]


def test_the_worst_verdict_is_named_when_cores_differ() -> None:
    reports = [_worker(0, 0.05, LAGGING, (0,)), _worker(1, 0.85, CALM, (1,))]
    assert [c.verdict for c in cores(reports)] == [Verdict.STARVED, Verdict.FULL]
    line = describe(reports)[-1]
    assert "(full)" in line and "CPUs 0" in line and "CPUs 1" in line


def test_lagging_workers_whose_core_others_took_were_starved() -> None:
    # as at 02:27 on a loaded machine: the workers 50 % of CPU 1, other processes the rest
    reports = [_worker(k, 0.125, LAGGING, (1,)) for k in range(4)]
    assert cores(reports)[0].verdict is Verdict.FULL  # without /proc/stat: their own lag
    [core] = cores(reports, {0: 0.4, 1: 0.98})
    assert round(core.others or 0, 2) == 0.48
    assert core.verdict is Verdict.STARVED
    lines = describe(reports, {0: 0.4, 1: 0.98})
    assert "other processes 48% of them" in lines[-2]
    assert "did not run it" in lines[-1]
    # the same lag with the core to themselves: they delayed each other
    assert cores(reports, {1: 0.52})[0].verdict is Verdict.FULL


def test_each_cpus_busy_share_is_read_from_the_kernel() -> None:
    before = {0: (100, 1000), 1: (500, 1000)}
    after = {0: (150, 1100), 1: (590, 1100), 2: (5, 10)}
    assert busy_shares(before, after) == {0: 0.5, 1: 0.9}
    ticks = cpu_ticks()
    assert ticks and all(0 <= busy <= total for busy, total in ticks.values())
    assert set(ticks) >= set(affinity())
