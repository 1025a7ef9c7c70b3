"""Figures: each function takes a DataFrame and returns a matplotlib Figure; no file I/O here.

Run-folder figures use matplotlib alone (it starts in a fraction of the time seaborn takes); report figures
use seaborn. Every figure is readable in greyscale: seats are told apart by hatching and line style too.
"""

from __future__ import annotations

from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

GREYS = ["#111111", "#777777", "#bbbbbb", "#444444", "#999999", "#dddddd", "#222222", "#666666"]
LINESTYLES = ["-", "--", ":", "-.", (0, (5, 1)), (0, (1, 1)), (0, (3, 1, 1, 1)), (0, (5, 5))]


def score_distribution(frame: Any, score_label: str) -> plt.Figure:
    """Share of games by final score, one step line per seat (columns ``seat``, ``policy``, ``score``, ``games``)."""
    fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
    for i, ((seat, policy), rows) in enumerate(frame.groupby(["seat", "policy"], sort=True)):
        share = rows["games"] / rows["games"].sum()
        ax.step(
            rows["score"],
            share,
            where="mid",
            color=GREYS[i % 8],
            linestyle=LINESTYLES[i % 8],
            label=f"seat {seat} ({policy})",
        )
    ax.set_xlabel(f"final score ({score_label})")
    ax.set_ylabel("share of games")
    ax.legend(frameon=False)
    return fig


def game_length(frame: Any) -> plt.Figure:
    """Share of games by length (columns ``turns``, ``games``)."""
    fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
    share = frame["games"] / frame["games"].sum()
    ax.bar(frame["turns"], share, width=1.0, color="#555555", edgecolor="#111111", linewidth=0.3)
    ax.set_xlabel("game length (turns)")
    ax.set_ylabel("share of games")
    return fig
