"""Sequential halving, the strong bots' way of sharing playouts among candidates."""

from __future__ import annotations

import random
from collections.abc import Callable

from server.bots.base import Deadline
from server.bots.halving import (
    best,
    clearly_ahead,
    resolve,
    schedule,
    settled,
    weighted_mean,
)


def _noisy(
    worth: list[float], seed: int
) -> tuple[Callable[[], tuple[Callable[[int], float], float]], list[int]]:
    """Draws where candidate j is worth ``worth[j]`` plus noise shared by every candidate (common
    random numbers), and a list counting how often each candidate was played out."""
    rng = random.Random(seed)
    played = [0] * len(worth)

    def draw() -> tuple[Callable[[int], float], float]:
        noise = rng.gauss(0.0, 3.0)

        def value(j: int) -> float:
            played[j] += 1
            return worth[j] + noise + rng.gauss(0.0, 0.3)

        return value, 1.0

    return draw, played


def test_the_best_candidate_wins_and_gets_the_most_playouts() -> None:
    worth = [0.0, 0.2, 1.0, 0.1, 0.9, 0.3, 0.0]
    draw, played = _noisy(worth, 1)
    plan = schedule(len(worth), 192)
    assert best(range(len(worth)), plan, Deadline(None), draw) == 2
    assert sum(played) == sum(w * s for w, s in plan)
    # The two finalists (the two good ones) were played out far more than the rest.
    assert min(played[2], played[4]) > 2 * max(played[j] for j in (0, 1, 3, 5, 6))


def test_weights_count() -> None:
    # Candidate 1 wins on the samples that matter (weight 1), candidate 0 on the unlikely ones.
    flips = iter(range(1000))

    def draw() -> tuple[Callable[[int], float], float]:
        heavy = next(flips) % 2 == 0
        return (lambda j: float(j == 1) if heavy else 3.0 * (j == 0)), 1.0 if heavy else 0.1

    assert best([0, 1], schedule(2, 40), Deadline(None), draw) == 1


def test_no_sample_answers_with_the_preferred_candidate() -> None:
    assert best([0, 1, 2], schedule(3, 30), Deadline(None), lambda: None, preferred=1) == 1


def test_ties_go_to_the_preferred_candidate() -> None:
    def draw() -> tuple[Callable[[int], float], float]:
        return (lambda j: 0.5), 1.0

    assert best(range(5), schedule(5, 40), Deadline(None), draw, preferred=3) == 3


def test_a_passed_deadline_stops_after_one_sample() -> None:
    draw, played = _noisy([0.0, 1.0, 0.5], 2)
    assert best(range(3), schedule(3, 300), Deadline(-1.0), draw) in (0, 1, 2)
    assert played == [1, 1, 1]


def _recording(
    worth: list[float], seed: int
) -> tuple[Callable[[], tuple[Callable[[int], float], float]], list[dict[int, float]]]:
    """As :func:`_noisy`, each value also kept by sample, as the Shithead search keeps them."""
    noisy, _ = _noisy(worth, seed)
    values: list[dict[int, float]] = [{} for _ in worth]
    drawn = 0

    def draw() -> tuple[Callable[[int], float], float]:
        nonlocal drawn
        k, drawn = drawn, drawn + 1
        value, w = noisy()

        def keep(j: int) -> float:
            v = values[j][k] = value(j)
            return v

        return keep, w

    return draw, values


def test_a_close_call_gets_samples_until_it_is_clear() -> None:
    # expert: 0.2 apart under noise of 0.42 per paired sample is a close call on a
    # few samples and clear on a few dozen; resolve stops once it is, well short of its cap.
    ahead, spent = 0, []
    for seed in range(20):
        draw, values = _recording([0.0, 0.2], seed)
        assert not settled(values[1], values[0], 2.0, 0.05)  # nothing sampled yet
        spent.append(resolve((1, 0), values, draw, 2_000, Deadline(None), z=2.0, margin=0.05))
        assert settled(values[1], values[0], 2.0, 0.05)
        ahead += clearly_ahead(values[1], values[0], 2.0)
    assert ahead >= 17, ahead
    assert max(spent) < 2_000 and sum(spent) / len(spent) > 16, spent


def test_a_tie_or_a_clear_call_gets_no_samples() -> None:
    # Two actions that lead to the same game tie on every sample: nothing to resolve.
    same, values = _recording([0.5, 0.5], 4)
    values[0].update({0: 0.3, 1: 0.7})
    values[1].update({0: 0.3, 1: 0.7})
    assert resolve((0, 1), values, same, 100, Deadline(None), z=2.0, margin=0.01) == 0
    clear, values = _recording([0.0, 5.0], 5)
    for _ in range(3):
        value, _ = clear()
        value(0), value(1)
    assert resolve((1, 0), values, clear, 100, Deadline(None), z=2.0, margin=0.01) == 0


def test_resolve_stops_at_its_cap_and_at_the_deadline() -> None:
    # Equal in truth, noisy per sample, and asked for a certainty noise never gives (100
    # standard errors): never settled, so the cap ends it, or a passed deadline at once.
    draw, values = _recording([0.0, 0.0], 6)
    assert resolve((0, 1), values, draw, 40, Deadline(None), z=100.0, margin=-1.0) == 40
    assert len(values[0]) == len(values[1]) == 40
    assert resolve((0, 1), values, draw, 40, Deadline(-1.0), z=100.0, margin=-1.0) == 0


def test_importance_weights_decide_whether_a_call_is_settled() -> None:
    # Sheepshead expert: the samples weigh what the others' plays make them likely;
    # three unlikely samples where a leads and one likely one where it loses by far: weighted,
    # b clearly stays (settled); unweighted, a's lead is within noise of the margin (close).
    a = {0: 1.0, 1: 1.0, 2: 1.0, 3: -10.0}
    b = dict.fromkeys(a, 0.0)
    weights = {0: 0.01, 1: 0.01, 2: 0.01, 3: 10.0}
    assert settled(a, b, 2.0, 0.05, weights)
    assert not settled(a, b, 2.0, 0.05)
    assert weighted_mean(a, weights) < -9.9
    # equal weights settle as the unweighted test does on a clear lead
    lead = {k: 1.0 + 0.1 * k for k in range(6)}
    zero = dict.fromkeys(lead, 0.0)
    assert settled(lead, zero, 2.0, 0.05, dict.fromkeys(lead, 1.0)) and settled(
        lead, zero, 2.0, 0.05
    )
