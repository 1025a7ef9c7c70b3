"""Declared panels draw what they declare; estimates become the standard columns and cells; the shared statistics."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from boardlab.analysis import stats
from boardlab.analysis.panels import Panel, around, facets, figure
from boardlab.analysis.tables import cell, cells, estimate, mean


@pytest.fixture
def frame() -> pd.DataFrame:
    rows = [
        {"players": k, "who": who, **estimate("rate", (r, r - 0.1, r + 0.05))}
        for k in (2, 3)
        for who, r in (("seat 0", 0.6), ("seat 1", 0.4))
    ]
    return pd.DataFrame(rows)


def test_estimate_columns_and_cells(frame):
    assert list(frame.columns) == ["players", "who", "rate", "rate_lo", "rate_hi"]
    assert cell(frame.iloc[0], "rate") == "60.0% (50.0–65.0)"
    assert cells(frame, "rate", mean(2))[1] == "0.40 (0.30–0.45)"
    assert around(frame, "rate", 0.45, 0.5) == pytest.approx((0.28, 0.67))


def test_bars_take_their_whiskers_from_the_named_interval(frame):
    fig = plt.figure()
    panel = Panel(frame[frame["players"] == 2], "who", "rate", None, "win rate", "seat", 0.5, ylim=(0, 1))
    figure(panel)(fig)
    (ax,) = fig.axes
    assert [b.get_height() for b in ax.patches] == pytest.approx([0.6, 0.4])
    ((low, high),) = {tuple(sorted(s[:, 1])) for s in ax.collections[0].get_segments()[:1]}
    assert (low, high) == pytest.approx((0.5, 0.65))  # rate_lo and rate_hi, not a symmetric guess
    assert ax.get_ylim() == (0, 1) and ax.get_ylabel() == "win rate" and ax.get_xlabel() == "seat"
    assert [line.get_ydata()[0] for line in ax.lines if line.get_linestyle() == "--"] == [0.5]
    plt.close(fig)


def test_facets_lines_and_one_legend(frame):
    fig = plt.figure()
    panel = Panel(frame, "who", "rate", "who", "win rate", "", kind="line", zero=True, legend=False)
    draw = figure(*facets(panel, "players", (2, 3), xlabel=lambda k: f"{k} players"), sharey=True, legend=2)
    draw(fig)
    assert [ax.get_xlabel() for ax in fig.axes] == ["2 players", "3 players"]
    assert all(ax.get_legend() is None for ax in fig.axes) and len(fig.legends) == 1
    assert all(any(list(line.get_ydata()) == [0, 0] for line in ax.lines) for ax in fig.axes)  # the zero line
    plt.close(fig)


def test_shared_statistics():
    wins = np.array([30, 20, 10])
    assert stats.proportion(3, 4)[0] == 0.75
    value, low, high = stats.seat_edge(wins, 70)
    assert value == pytest.approx(30 / 70 - 60 / 70 / 3) and low < value < high
    apart = stats.seats_apart(wins, 70)
    assert apart[0] == pytest.approx(20 / 70) and 0 <= apart[3] < 0.05
    pooled = stats.contrast([(wins, 70, np.array([1.0, -1.0, 0.0])), (wins[::-1], 70, np.array([0.0, -1.0, 1.0]))])
    assert pooled[0] == pytest.approx(10 / 70)
    first = type("Arm", (), {"wins": np.array([6, 3]), "shared_wins": np.array([1, 1]), "n_games": 10})
    second = type("Arm", (), {"wins": np.array([2, 5]), "shared_wins": np.array([2, 2]), "n_games": 10})
    assert stats.head_to_head(first, second) == (11, 20) and stats.head_to_head(first, second, 0.5) == (12.5, 20)
    gap = stats.gap(60, 100, 3)
    assert gap[0] == pytest.approx(0.6 - 0.4 / 2) and gap[2] - gap[1] == pytest.approx(
        (stats.proportion(60, 100)[2] - stats.proportion(60, 100)[1]) * 1.5
    )
