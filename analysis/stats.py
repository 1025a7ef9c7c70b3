"""Intervals and tests: Wilson intervals for rates, normal intervals for means, paired comparisons.

Everything here takes plain counts and sums (what :mod:`analysis.summary` accumulates), so intervals can be
computed from merged chunk summaries without per-game data. Only the standard library and numpy are needed
for intervals; scipy is imported where a p-value is asked for.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

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


def proportion(successes: float, n: int) -> tuple[float, float, float]:
    """A proportion and its 95% Wilson interval: ``(rate, low, high)``."""
    low, high = wilson(successes, n)
    return successes / n, float(low), float(high)


def gap(wins: int, n: int, k: int) -> tuple[float, float, float]:
    """One player's win rate (``wins`` of ``n``) minus each of the other ``k - 1`` players', with its 95% interval."""
    rate, low, high = proportion(wins, n)
    value = rate - (1 - rate) / (k - 1)
    half = (high - low) / 2 * (1 + 1 / (k - 1))
    return value, value - half, value + half


def contrast(parts: Sequence[tuple[np.ndarray, int, np.ndarray]]) -> tuple[float, float, float, float]:
    """``weights @ sole-win rates`` over ``(sole wins per seat, games, weights)`` parts, per game of all parts.

    Each part's games are independent multinomial draws (one sole winner or none), so the variance of the pooled
    contrast is the games-weighted sum of each part's. Returns the value, its normal 95% interval and the
    two-sided p-value that it is 0.
    """
    total = sum(n for _, n, _ in parts)
    value = var = 0.0
    for wins, n, weights in parts:
        p = wins / n
        mean = float(weights @ p)
        value += mean * n / total
        var += max(float((weights * weights) @ p - mean * mean), 0.0) * n / total**2
    se = math.sqrt(var)
    p_value = math.erfc(abs(value) / se / math.sqrt(2)) if se > 0 else 1.0
    return value, value - Z95 * se, value + Z95 * se, p_value


def seat_edge(wins: np.ndarray, n: int, seat: int = 0) -> tuple[float, float, float]:
    """``seat``'s sole-win rate minus the mean seat's, with its normal 95% interval (:func:`contrast`)."""
    weights = np.full(len(wins), -1 / len(wins))
    weights[seat] += 1
    return contrast([(wins, n, weights)])[:3]


def seats_apart(wins: np.ndarray, n: int, first: int = 0, last: int = -1) -> tuple[float, float, float, float]:
    """Seat ``first``'s sole-win rate minus seat ``last``'s on the same games (:func:`contrast`, with p-value)."""
    eye = np.eye(len(wins))
    return contrast([(wins, n, eye[first] - eye[last])])


def head_to_head(first: Any, second: Any, tie: float = 0.0) -> tuple[int | float, int]:
    """Games won by one player over two arms' summaries, seat 0 of ``first`` and seat 1 of ``second``, and games.

    Without ``tie`` only sole wins count (a whole number); with it each shared win counts ``tie`` (e.g. a half).
    """
    wins, n = first.wins[0] + second.wins[1], first.n_games + second.n_games
    if not tie:
        return int(wins), n
    return float(wins + tie * (first.shared_wins[0] + second.shared_wins[1])), n


def paired_shares(a: np.ndarray, b: np.ndarray, z: float = Z95) -> tuple[float, float, float]:
    """The mean of ``a - b`` for paired shares in [0, 1] and its 95% interval: ``(difference, low, high)``.

    Newcombe's hybrid score interval for paired proportions (Newcombe 1998, Stat. Med. 17:2635, method 10): the
    Wilson interval of each mean, combined with the correlation of the pairs (here their Pearson correlation,
    which for 0/1 outcomes is Newcombe's phi; a share of a tie counts as a fraction of a win). Unlike a normal
    interval it stays inside what a difference of chances can be, [-1, 1], however few the pairs.
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    n = len(a)
    if n == 0:
        return 0.0, -1.0, 1.0
    p1, p2 = float(a.mean()), float(b.mean())
    (l1, u1), (l2, u2) = (tuple(float(x) for x in wilson(p * n, n, z)) for p in (p1, p2))
    with np.errstate(invalid="ignore", divide="ignore"):
        phi = float(np.corrcoef(a, b)[0, 1]) if n > 1 else 0.0
    phi = 0.0 if not math.isfinite(phi) else phi
    d = p1 - p2
    low = d - math.sqrt(max((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2, 0.0))
    high = d + math.sqrt(max((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2, 0.0))
    return d, max(low, -1.0), min(high, 1.0)


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


MIN_PAIRED_UNITS = 10
"""Paired comparisons need at least this many chunks: fewer give a t interval from one or a handful of chunk
means, which is valid only for normal chunk means and reads, at 1 chunk, as a certain difference."""


def paired_difference(a: np.ndarray, b: np.ndarray) -> dict[str, float | int | str]:
    """Compare two arms measured on the same chunk seeds (common random numbers), chunk by chunk.

    ``a`` and ``b`` hold one per-chunk mean each, chunk ``i`` of both arms played from the same seed. Returns
    the mean difference ``a - b``, its 95% t interval and the two-sided paired t-test p-value, with the unit
    (``chunks``) and how many. With fewer than :data:`MIN_PAIRED_UNITS` chunks, or no spread among the chunks'
    differences, the interval and p-value are NaN (nothing can be said from them); callers then compare the
    games themselves (:func:`proportion_difference`, :func:`mean_difference`).
    """
    diff = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    n = len(diff)
    mean = float(diff.mean()) if n else math.nan
    out: dict[str, float | int | str] = {"difference": mean, "unit": "chunks", "units": n}
    spread = float(diff.std(ddof=1)) if n >= 2 else 0.0
    if n < MIN_PAIRED_UNITS or spread == 0:
        return {**out, "low": math.nan, "high": math.nan, "p_value": math.nan}
    from scipy import stats

    se = spread / math.sqrt(n)
    t = stats.t.ppf(0.975, n - 1)
    p = 2 * float(stats.t.sf(abs(mean) / se, n - 1))
    return {**out, "low": mean - t * se, "high": mean + t * se, "p_value": p}


def proportion_difference(k1: int, n1: int, k2: int, n2: int) -> dict[str, float | int | str]:
    """Difference of two proportions ``k1/n1 - k2/n2`` with Newcombe's hybrid score interval (method 10).

    The interval treats the two samples as independent, which is valid at any size and conservative for arms
    played on common random numbers (their positive correlation only narrows the true spread). The p-value is
    the pooled z-test's (:func:`two_proportion_p_value`). Unit: games (the smaller arm's count).
    """
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = (float(x) for x in wilson(k1, n1))
    l2, u2 = (float(x) for x in wilson(k2, n2))
    d = p1 - p2
    low = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    p = two_proportion_p_value(k1, n1, k2, n2)
    return {"difference": d, "low": low, "high": high, "p_value": p, "unit": "games", "units": min(n1, n2)}


def mean_difference(a: tuple[float, float, int], b: tuple[float, float, int]) -> dict[str, float | int | str]:
    """Difference of two means from ``(sum, sum of squares, count)`` each: Welch's interval and test.

    Independent samples (valid, and conservative under common random numbers); NaN interval and p-value when
    either arm has fewer than 2 games or both have no spread. Unit: games (the smaller arm's count).
    """
    from scipy import stats

    (s1, q1, n1), (s2, q2, n2) = a, b
    out: dict[str, float | int | str] = {"unit": "games", "units": int(min(n1, n2))}
    if min(n1, n2) < 2:
        return {**out, "difference": math.nan, "low": math.nan, "high": math.nan, "p_value": math.nan}
    m1, m2 = s1 / n1, s2 / n2
    v1 = max(q1 / n1 - m1 * m1, 0.0) * n1 / (n1 - 1)
    v2 = max(q2 / n2 - m2 * m2, 0.0) * n2 / (n2 - 1)
    w1, w2 = v1 / n1, v2 / n2
    d = m1 - m2
    if w1 + w2 == 0:
        return {**out, "difference": d, "low": math.nan, "high": math.nan, "p_value": math.nan}
    se = math.sqrt(w1 + w2)
    df = (w1 + w2) ** 2 / (w1 * w1 / (n1 - 1) + w2 * w2 / (n2 - 1))
    t = stats.t.ppf(0.975, df)
    p = 2 * float(stats.t.sf(abs(d) / se, df))
    return {**out, "difference": d, "low": d - t * se, "high": d + t * se, "p_value": p}


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


def histogram_quantile(hist: np.ndarray, q: float) -> int:
    """The smallest bin (a game length) whose cumulative count reaches ``q`` of the histogram's total."""
    return int(np.searchsorted(np.cumsum(hist), q * hist.sum()))
