"""Intervals and tests: Wilson intervals for rates, normal intervals for means, paired comparisons.

Everything here takes plain counts and sums (what :mod:`analysis.summary` accumulates), so intervals can be
computed from merged chunk summaries without per-game data. Only the standard library and numpy are needed
for intervals; scipy is imported where a p-value is asked for.
"""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054
"""Two-sided 95% standard-normal quantile."""


def wilson(successes: np.ndarray | int, n: np.ndarray | int, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a proportion: ``(low, high)``; ``(0, 1)`` when ``n`` is 0."""
    k, n = np.asarray(successes, dtype=np.float64), np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, k / n, 0.0)
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
        low = np.where(n > 0, np.clip(np.minimum(centre - half, p), 0, 1), 0.0)  # p inside despite rounding at 0 and 1
        high = np.where(n > 0, np.clip(np.maximum(centre + half, p), 0, 1), 1.0)
    return low, high


def wilson_half_width(successes: np.ndarray | int, n: np.ndarray | int) -> np.ndarray:
    """Half the width of the Wilson interval (the precision a run is asked to reach)."""
    low, high = wilson(successes, n)
    return (high - low) / 2


def mean_interval(
    total: np.ndarray | float, total_sq: np.ndarray | float, n: np.ndarray | int, z: float = Z95
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean and normal-approximation interval from a sum and a sum of squares: ``(mean, low, high)``."""
    total, total_sq = np.asarray(total, dtype=np.float64), np.asarray(total_sq, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / n
        var = np.maximum(total_sq / n - mean * mean, 0.0) * n / np.maximum(n - 1, 1)
        half = z * np.sqrt(var / n)
    return mean, mean - half, mean + half


def paired_difference(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """Compare two arms measured on the same chunk seeds (common random numbers).

    ``a`` and ``b`` hold one per-chunk mean each, chunk ``i`` of both arms played from the same seed. Returns
    the mean difference ``a - b``, its 95% interval and the two-sided paired t-test p-value.
    """
    from scipy import stats

    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    diff = a - b
    n = len(diff)
    mean = float(diff.mean())
    if n < 2 or np.all(diff == diff[0]):
        return {"difference": mean, "low": mean, "high": mean, "p_value": 1.0 if mean == 0 else 0.0, "chunks": n}
    se = float(diff.std(ddof=1) / math.sqrt(n))
    t = stats.t.ppf(0.975, n - 1)
    return {
        "difference": mean,
        "low": mean - t * se,
        "high": mean + t * se,
        "p_value": float(stats.ttest_rel(a, b).pvalue),
        "chunks": n,
    }


def two_proportion_p_value(k1: int, n1: int, k2: int, n2: int) -> float:
    """Two-sided p-value that two independent proportions are equal (pooled z-test)."""
    from scipy import stats

    p = (k1 + k2) / (n1 + n2)
    se = math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
    if se == 0:
        return 1.0
    return float(2 * stats.norm.sf(abs(k1 / n1 - k2 / n2) / se))


def games_for_half_width(half_width: float, p: float = 0.5) -> int:
    """Games needed for a proportion near ``p`` to have a 95% half-width of ``half_width``."""
    return math.ceil(Z95 * Z95 * p * (1 - p) / (half_width * half_width))
