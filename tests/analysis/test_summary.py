"""Summaries merge exactly, whatever the order."""

from __future__ import annotations

import numpy as np

from boardlab.analysis.summary import Summary
from boardlab.engines.core import Metric

METRICS = {"steals": Metric("seat", "steals"), "hist": Metric("counts", "h"), "acc": Metric("seat", "acc")}


def outcome(rng: np.random.Generator, n: int) -> dict:
    score = rng.integers(0, 40, (n, 2)).astype(np.int32)
    winner = np.where(score[:, 0] > score[:, 1], 0, np.where(score[:, 1] > score[:, 0], 1, -1)).astype(np.int8)
    winners = score == score.max(axis=1, keepdims=True)
    acc = rng.random((n, 2))
    acc[:, 1] = np.nan
    return {
        "score": score,
        "winner": winner,
        "winners": winners,
        "turns": rng.integers(1, 30, n),
        "steals": rng.integers(0, 3, (n, 2)),
        "hist": rng.integers(0, 5, (n, 4)),
        "acc": acc,
    }


def test_merge_equals_summary_of_all_games_in_any_order() -> None:
    rng = np.random.default_rng(1)
    parts = [outcome(rng, n) for n in (50, 7, 120)]
    summaries = [Summary.from_outcome(p, METRICS) for p in parts]
    whole = Summary.from_outcome({k: np.concatenate([p[k] for p in parts]) for k in parts[0]}, METRICS)
    forward = summaries[0].merge(summaries[1]).merge(summaries[2])
    backward = summaries[2].merge(summaries[1]).merge(summaries[0])
    for merged in (forward, backward):
        a, b = merged.to_arrays(), whole.to_arrays()
        assert a.keys() == b.keys()
        for k in a:
            assert np.allclose(a[k], b[k], equal_nan=True), k
    assert whole.n_games == 177 and whole.wins.sum() + (whole.shared_wins.sum() > 0) > 0
    mean, low, high = whole.metric_mean("acc")
    assert np.isnan(mean[1]) and 0.4 < mean[0] < 0.6 and low[0] < mean[0] < high[0]


def test_round_trip_through_arrays() -> None:
    s = Summary.from_outcome(outcome(np.random.default_rng(2), 30), METRICS)
    t = Summary.from_outcome(outcome(np.random.default_rng(2), 30), METRICS)
    back = Summary.from_arrays(s.to_arrays())
    assert all(
        np.array_equal(x, y, equal_nan=True)
        for x, y in zip(back.to_arrays().values(), t.to_arrays().values(), strict=True)
    )
