"""Intervals and tests against known values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from boardlab.analysis import stats, wording


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
    assert (shifted["unit"], shifted["units"]) == ("chunks", 30)
    noise = stats.paired_difference(base + rng.normal(0, 0.01, 30), base)
    assert noise["low"] < 0 < noise["high"] and noise["p_value"] > 0.01


@pytest.mark.parametrize("chunks", [1, 2, stats.MIN_PAIRED_UNITS - 1])
def test_too_few_chunks_give_no_interval_rather_than_a_certain_one(chunks: int) -> None:
    rng = np.random.default_rng(1)
    a = rng.normal(0.6, 0.01, chunks)
    d = stats.paired_difference(a, a - 0.01375)
    assert d["difference"] == pytest.approx(0.01375)
    assert math.isnan(d["low"]) and math.isnan(d["high"]) and math.isnan(d["p_value"])
    assert wording.p_figures(d["p_value"]) == "n/a"


def test_no_spread_among_chunks_is_not_certainty() -> None:
    base = np.full(12, 0.5)
    for other in (base, base + 0.01):
        d = stats.paired_difference(other, base)
        assert math.isnan(d["low"]) and math.isnan(d["p_value"])


def test_proportion_difference_matches_newcombe() -> None:
    # Newcombe (1998), table II, example (a): 56/70 - 48/80, method 10 interval (0.0524, 0.3339)
    d = stats.proportion_difference(56, 70, 48, 80)
    assert (round(d["low"], 4), round(d["high"], 4)) == (0.0524, 0.3339)
    assert d["difference"] == pytest.approx(0.2) and (d["unit"], d["units"]) == ("games", 70)
    one_chunk = stats.proportion_difference(2455, 4000, 2400, 4000)  # "difference 0.01375" from one chunk each
    assert one_chunk["low"] < 0 < one_chunk["high"] and 0.1 < one_chunk["p_value"] < 0.5


def test_mean_difference_is_welch() -> None:
    rng = np.random.default_rng(2)
    x, y = rng.normal(10, 2, 400), rng.normal(10.5, 3, 300)
    d = stats.mean_difference((x.sum(), (x * x).sum(), len(x)), (y.sum(), (y * y).sum(), len(y)))
    from scipy import stats as sps

    welch = sps.ttest_ind(x, y, equal_var=False)
    assert d["difference"] == pytest.approx(x.mean() - y.mean())
    assert d["p_value"] == pytest.approx(welch.pvalue, rel=1e-6)
    assert d["low"] < d["difference"] < d["high"]
    assert math.isnan(stats.mean_difference((3.0, 9.0, 1), (4.0, 16.0, 1))["p_value"])


def test_a_certain_difference_prints_as_a_floor_not_as_zero() -> None:
    rng = np.random.default_rng(3)
    base = rng.normal(0.5, 0.05, 40)
    huge = stats.paired_difference(base + 1 + rng.normal(0, 1e-6, 40), base)
    assert wording.p_figures(huge["p_value"]) == "< 1e-12"


def test_two_proportions_and_sample_size() -> None:
    assert stats.two_proportion_p_value(500, 1000, 500, 1000) == 1.0
    assert stats.two_proportion_p_value(550, 1000, 450, 1000) < 1e-4
    n = stats.games_for_half_width(0.01)
    assert n == math.ceil(stats.Z95**2 / 4 / 1e-4)
    assert float(stats.wilson_half_width(n // 2, n)) == pytest.approx(0.01, rel=0.01)


def test_a_histogram_quantile_is_the_first_length_whose_cumulative_count_reaches_it() -> None:
    from boardlab.analysis.stats import histogram_quantile

    lengths = np.array([0, 2, 2, 0, 6])  # games of length 1 and 2 (two each), 4 (six)
    assert [histogram_quantile(lengths, q) for q in (0.1, 0.4, 0.5, 1.0)] == [1, 2, 4, 4]
