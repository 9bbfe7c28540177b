"""The arena's 95% intervals are computed over deals: games that share a deal are not independent
samples, so more rotations of the same deals must not narrow the interval."""

from __future__ import annotations

import math
import time

import pytest

from server.bots.base import Deadline, cpu_clock
from server.tools.arena import GameRecord, Summary, over_deals, play_one


def summary(units_by_deal: list[list[float]], players: int = 2) -> Summary:
    """Deal d's rotations give level "a" (entry 0) the results ``units_by_deal[d]``."""
    s = Summary("sheepshead", ["a", "b"][:players])
    for d, results in enumerate(units_by_deal):
        for rotation, u in enumerate(results):
            s.add(GameRecord(d * players + rotation, [u, -u], times=[[], []]))
    return s


def test_repeating_a_deals_result_in_more_rotations_does_not_narrow_the_interval() -> None:
    deals = [[1.0, 1.0], [3.0, 3.0], [-2.0, -2.0], [0.0, 0.0]]
    once = summary([[d[0]] for d in deals]).stats()["levels"]["a"]
    twice = summary(deals).stats()["levels"]["a"]
    assert twice["seat_games"] == 2 * once["seat_games"]
    assert twice["deals"] == once["deals"] == 4
    assert twice["ci95"] == once["ci95"]


def test_the_interval_uses_the_sample_standard_deviation_of_the_deal_means() -> None:
    # deal means 2, 2, 3 (rotations averaged first): mean 7/3, sample sd sqrt(1/3)
    s = summary([[1.0, 3.0], [2.0, 2.0], [5.0, 1.0]])
    e = s.stats()["levels"]["a"]
    half = 1.96 * math.sqrt(1 / 3) / math.sqrt(3)
    assert math.isclose(e["units_per_hand"], 7 / 3)
    lo, hi = e["ci95"]
    assert math.isclose(lo, 7 / 3 - half) and math.isclose(hi, 7 / 3 + half)


def test_the_json_gives_each_deals_mean_so_runs_on_other_seeds_can_be_pooled() -> None:
    first = summary([[1.0, 3.0], [2.0, 2.0]]).stats()["levels"]["a"]
    second = summary([[5.0, 1.0]]).stats()["levels"]["a"]
    assert first["deal_means"] == [2.0, 2.0] and second["deal_means"] == [3.0]
    mean, half, deals = over_deals(first["deal_means"] + second["deal_means"])
    pooled = summary([[1.0, 3.0], [2.0, 2.0], [5.0, 1.0]]).stats()["levels"]["a"]
    assert deals == 3 and math.isclose(mean, pooled["units_per_hand"])
    assert math.isclose(mean - half, pooled["ci95"][0])


def test_the_arena_plays_sheepshead_under_house_rules() -> None:
    # rule SS-10.4: the arena deals every hand under the options given (cracks change stakes)

    plain = [play_one("sheepshead", ["basic"] * 5, i, seed=4, cap=500) for i in range(10)]
    crack = [
        play_one("sheepshead", ["basic"] * 5, i, seed=4, cap=500, options={"crack": True})
        for i in range(10)
    ]
    assert [r.units for r in plain] != [r.units for r in crack]
    assert all(math.isclose(sum(r.units), 0.0, abs_tol=1e-9) for r in crack)


@pytest.mark.slow
def test_an_arena_with_cpu_time_keeps_the_bots_deadlines_off_the_wall_clock() -> None:
    # On a busy machine the wall clock runs on while other processes have the cores: with
    # --cpu a deadline counts this process's CPU time, so the load cannot cut a search short.
    with cpu_clock():
        deadline = Deadline(0.05)
        time.sleep(0.1)  # wall time passes, hardly any CPU time
        assert not deadline.passed()
    deadline = Deadline(0.05)
    time.sleep(0.1)
    assert deadline.passed()  # wall time again outside
    play_one("shithead", ["random", "random"], 0, seed=1, cap=5, cpu=True)
    deadline = Deadline(0.05)
    time.sleep(0.1)
    assert deadline.passed()  # an arena game leaves the wall clock to the rest of the process
