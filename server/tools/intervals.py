"""95% intervals over deals, the arena's statistics: the games of one deal are not independent
(the same cards, every rotation, several seats of one level), so deals are the samples.

A rate counted over many plays of each deal (leads, plays) is a ratio of two sums over deals,
``R = Σ hits / Σ chances``; :func:`ratio_interval` gives it the cluster (ratio) estimator's
standard error, ``sqrt(n / (n − 1) · Σ_d (h_d − R·c_d)²) / Σ c`` over the ``n`` deals played.
When every deal has the same rate (0 % or 100 %: the residuals vanish) the interval is Wilson's
over the deals that had a chance, so it stays honest about how few clusters were seen.

>>> rate, lo, hi = ratio_interval([(1, 2), (1, 2), (2, 2)])
>>> round(rate, 3), round(lo, 3), round(hi, 3)
(0.667, 0.34, 0.993)
"""

from __future__ import annotations

import math
import statistics


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (stays within 0..1, unlike mean ± 1.96 sd).

    >>> [round(x, 3) for x in wilson(2, 60)]
    [0.009, 0.114]
    """
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, center - half), min(1.0, center + half))


def over_deals(deal_means: list[float]) -> tuple[float, float, int]:
    """The mean of per-deal results, the half-width of its 95% interval (sample standard
    deviation), and the number of deals: pools runs on other seeds from their ``--json``
    ``deal_means``.

    >>> mean, half, n = over_deals([2.0, 2.0, 3.0])
    >>> round(mean, 3), round(half, 3), n
    (2.333, 0.653, 3)
    """
    if not deal_means:
        return 0.0, 0.0, 0
    mean = statistics.fmean(deal_means)
    sd = statistics.stdev(deal_means) if len(deal_means) > 1 else 0.0
    return mean, 1.96 * sd / math.sqrt(len(deal_means)), len(deal_means)


def ratio_interval(per_deal: list[tuple[int, int]]) -> tuple[float, float, float]:
    """The rate ``Σ hits / Σ chances`` over deals (each ``(hits, chances)``, deals without a
    chance included) and its 95% interval, deals as clusters (see the module docstring).

    >>> ratio_interval([(0, 3), (0, 1), (0, 0)])  # never: Wilson over the 2 deals with chances
    (0.0, 0.0, 0.6576...)
    """
    hits = sum(h for h, _ in per_deal)
    total = sum(c for _, c in per_deal)
    if total == 0:
        return (0.0, 0.0, 1.0)
    rate = hits / total
    n = len(per_deal)
    resid = sum((h - rate * c) ** 2 for h, c in per_deal)
    if n < 2 or resid == 0.0:
        clusters = sum(1 for _, c in per_deal if c)
        lo, hi = wilson(round(rate * clusters), clusters)
        return (rate, min(lo, rate), max(hi, rate))
    half = 1.96 * math.sqrt(n / (n - 1) * resid) / total
    return (rate, max(0.0, rate - half), min(1.0, rate + half))
