"""Sequential halving: how the strong bots share their playouts among the candidate actions.

Each round plays every remaining candidate out on the same fresh samples (common random numbers:
the candidates are compared on equal terms), then keeps the better half by the mean so far, so
the close contenders get most of the budget and the clearly worse ones little (Karnin, Koren and
Somekh, "Almost optimal exploration in multi-armed bandits", 2013). Each round ends at its share
of the deadline at the latest; past it, after one sample, the best candidate so far wins.

>>> import random
>>> rng = random.Random(1)
>>> def draw():  # candidate j is worth j on average
...     noise = rng.random()
...     return (lambda j: j + noise), 1.0
>>> best([0, 1, 2, 3, 4], schedule(5, 60), Deadline(None), draw)
4
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from server.bots.base import Deadline

#: A sample drawn for the search: the value of each candidate (by index) on it, and the weight
#: of the sample (1 unless the samples are importance-weighted); ``None`` if none could be drawn.
Draw = Callable[[], tuple[Callable[[int], float], float] | None]


def schedule(n: int, iterations: int, halving: bool = True) -> list[tuple[int, int]]:
    """The rounds for ``n`` candidates and a budget of ``iterations`` playouts: per round, how
    many candidates are still compared and on how many samples. Without ``halving``, or with
    two candidates, one round: every candidate on the same samples.

    >>> schedule(7, 192)
    [(7, 9), (4, 16), (2, 32)]
    >>> schedule(7, 192, halving=False)
    [(7, 27)]
    """
    if not halving or n <= 2:
        return [(n, max(4, iterations // n))]
    rounds = math.ceil(math.log2(n))
    plan = []
    for _ in range(rounds):
        plan.append((n, max(2, iterations // rounds // n)))
        n = (n + 1) // 2
    return plan


def best(
    candidates: Sequence[int],
    plan: list[tuple[int, int]],
    deadline: Deadline,
    draw: Draw,
    preferred: int | None = None,
    means: dict[int, float] | None = None,
) -> int:
    """The candidate (an index) with the highest weighted mean value over the rounds of
    ``plan``; ties go to ``preferred``, and so does the answer if no sample was drawn.
    ``means``, when given, receives each sampled candidate's mean value (a hint explains its
    choice by them)."""
    totals = dict.fromkeys(candidates, 0.0)
    weights = dict.fromkeys(candidates, 0.0)

    def mean(j: int) -> tuple[float, bool]:
        return totals[j] / weights[j] if weights[j] else 0.0, j == preferred

    alive = list(candidates)
    rounds = list(zip(plan, deadline.shares(len(plan)), strict=True))
    for (width, samples), end in rounds:
        if width < len(alive):
            alive = sorted(alive, key=mean, reverse=True)[:width]
        for _ in range(samples):
            started = weights[alive[0]] > 0.0
            if started and end.passed():
                break
            drawn = draw()
            if drawn is None:
                break
            value, w = drawn
            values: list[float] = []
            for j in alive:
                values.append(value(j))
                if started and end.passed():
                    break
            if len(values) < len(alive):
                break  # a half-done sample would favour the candidates tried first
            for j, v in zip(alive, values, strict=True):
                totals[j] += w * v
                weights[j] += w
    if means is not None:
        means.update({j: totals[j] / weights[j] for j in candidates if weights[j]})
    if preferred is not None and not weights[alive[0]]:
        return preferred
    return max(alive, key=mean)


def _paired(
    a: dict[int, float], b: dict[int, float], weights: dict[int, float] | None = None
) -> tuple[int, float, float]:
    """How many samples ``a`` and ``b`` share, and the mean and standard error of their
    paired difference over those; with ``weights`` (by sample: importance weights) the
    self-normalised weighted mean and its standard error."""
    if weights is not None:
        return _weighted_paired(a, b, weights)
    diffs = [v - b[k] for k, v in a.items() if k in b]
    n = len(diffs)
    if n < 2:
        return n, 0.0, math.inf
    mean = math.fsum(diffs) / n
    var = math.fsum((d - mean) ** 2 for d in diffs) / (n - 1)
    return n, mean, math.sqrt(var / n)


def _weighted_paired(
    a: dict[int, float], b: dict[int, float], weights: dict[int, float]
) -> tuple[int, float, float]:
    """:func:`_paired` over importance-weighted samples: mean ``sum(w d) / sum(w)``, standard
    error ``sqrt(sum(w² (d - mean)²)) / sum(w)`` (the delta method's, for a ratio estimate).

    >>> _weighted_paired({0: 1.0, 1: 0.0}, {0: 0.0, 1: 0.0}, {0: 3.0, 1: 1.0})[:2]
    (2, 0.75)
    """
    pairs = [(weights[k], v - b[k]) for k, v in a.items() if k in b]
    n = len(pairs)
    total = math.fsum(w for w, _ in pairs)
    if n < 2 or total <= 0.0:
        return n, 0.0, math.inf
    mean = math.fsum(w * d for w, d in pairs) / total
    spread = math.fsum((w * (d - mean)) ** 2 for w, d in pairs)
    return n, mean, math.sqrt(spread) / total


def weighted_mean(values: dict[int, float], weights: dict[int, float]) -> float:
    """The mean of ``values`` (by sample) under ``weights`` (by sample); 0 with none."""
    total = math.fsum(weights[k] for k in values)
    return math.fsum(weights[k] * v for k, v in values.items()) / total if total else 0.0


def clearly_ahead(a: dict[int, float], b: dict[int, float], z: float) -> bool:
    """Whether values ``a`` lead values ``b`` (each by sample) by more than ``z`` standard
    errors of their paired difference over the samples both have: more than noise, since the
    common random numbers cancel what the two share.

    >>> clearly_ahead({0: 1.0, 1: 1.0, 2: 0.0}, {0: 0.0, 1: 0.0, 2: 0.0}, 2.0)
    False
    >>> clearly_ahead({k: 1.0 for k in range(5)}, {k: 0.0 for k in range(5)}, 2.0)
    True
    """
    n, mean, se = _paired(a, b)
    return n >= 2 and mean > 0.0 and mean > z * se


def settled(
    a: dict[int, float],
    b: dict[int, float],
    z: float,
    margin: float,
    weights: dict[int, float] | None = None,
) -> bool:
    """Whether more samples would hardly change whether values ``a`` lead values ``b`` by
    ``margin``: the paired lead is at least ``margin`` and more than ``z`` standard errors
    (:func:`clearly_ahead`: ``a`` is chosen), or it falls short of ``margin`` by more than one
    standard error (``b`` stays, most likely rightly: a hunt for certainty there costs many
    samples for little). Two actions that lead to the same game tie on every sample: settled.
    ``weights``: the samples' importance weights (:func:`_weighted_paired`), if they have any.

    >>> settled({k: 0.5 for k in range(3)}, {k: 0.5 for k in range(3)}, 2.0, 0.05)
    True
    >>> settled({0: 1.0, 1: 0.0, 2: 1.0}, {0: 0.0, 1: 1.0, 2: 0.0}, 2.0, 0.05)
    False
    """
    n, mean, se = _paired(a, b, weights)
    return n >= 2 and (mean + se < margin or (mean >= margin and mean > z * se))


def resolve(
    pair: tuple[int, int],
    values: Sequence[dict[int, float]],
    draw: Draw,
    cap: int,
    deadline: Deadline,
    *,
    z: float,
    margin: float,
    batch: int = 8,
    weights: dict[int, float] | None = None,
) -> int:
    """Play the two candidates of ``pair`` (indices into ``values``, which ``draw``'s value
    functions fill, sample by sample) out on more common samples until the choice between
    them is :func:`settled` (whether ``a`` leads ``b`` by ``margin``), ``cap`` samples are
    drawn, or ``deadline`` passes (checked between samples); the number of samples drawn
    (``weights``, by sample, which ``draw`` fills too where the samples are weighted, weigh
    them in :func:`settled`; none: all weigh 1). A close decision
    gets the samples, a clear one (or a tie) none: the extra budget goes where it can change
    the answer."""
    a, b = pair
    drawn = 0
    while drawn < cap and not settled(values[a], values[b], z, margin, weights):
        for _ in range(min(batch, cap - drawn)):
            if deadline.passed():
                return drawn
            sample = draw()
            if sample is None:
                return drawn
            value, _ = sample
            value(a)
            value(b)
            drawn += 1
    return drawn
