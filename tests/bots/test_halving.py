"""Sequential halving, the strong bots' way of sharing playouts among candidates."""

from __future__ import annotations

import random
from collections.abc import Callable

from server.bots.base import Deadline
from server.bots.halving import best, schedule


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
