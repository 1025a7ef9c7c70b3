"""Intervals and tests against known values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from analysis import stats


def test_wilson_matches_the_textbook_example() -> None:
    # 81 successes in 263 trials: Wilson 95% interval (0.2553, 0.3662) (Newcombe 1998, method 3)
    low, high = stats.wilson(81, 263)
    assert (round(float(low), 4), round(float(high), 4)) == (0.2553, 0.3662)
    low, high = stats.wilson(0, 10)
    assert float(low) == 0 and 0.25 < float(high) < 0.35
    assert stats.wilson(0, 0) == (0.0, 1.0)


def test_mean_interval_from_sums() -> None:
    x = np.array([1.0, 2.0, 3.0, 4.0])
    mean, low, high = stats.mean_interval(x.sum(), (x * x).sum(), len(x))
    se = x.std(ddof=1) / 2
    assert mean == 2.5 and high - mean == pytest.approx(stats.Z95 * se) == mean - low


def test_paired_difference_detects_a_shift_and_not_noise() -> None:
    rng = np.random.default_rng(0)
    base = rng.normal(0.5, 0.05, 30)
    shifted = stats.paired_difference(base + 0.02 + rng.normal(0, 0.002, 30), base)
    assert shifted["p_value"] < 1e-6 and shifted["low"] < 0.02 < shifted["high"]
    same = stats.paired_difference(base, base)
    assert same["difference"] == 0 and same["p_value"] == 1.0


def test_two_proportions_and_sample_size() -> None:
    assert stats.two_proportion_p_value(500, 1000, 500, 1000) == 1.0
    assert stats.two_proportion_p_value(550, 1000, 450, 1000) < 1e-4
    n = stats.games_for_half_width(0.01)
    assert n == math.ceil(stats.Z95**2 / 4 / 1e-4)
    assert float(stats.wilson_half_width(n // 2, n)) == pytest.approx(0.01, rel=0.01)
