"""The figure of a reviewed game: one seat's chance to win after each of its decisions.

Plain numbers in, a matplotlib Figure out (no file I/O, nothing from ``experiments``): the chance after the move
made, its 95% band, and the chance the strong player's move would have kept, so that every drop between the two
lines is a decision worth a second look.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from boardlab.analysis.style import INK, LINESTYLES, MARKERS, SERIES


def chance_over_game(
    decisions: Sequence[int],
    made: Sequence[float],
    low: Sequence[float],
    high: Sequence[float],
    strong: Sequence[float],
    title: str,
    strong_label: str,
) -> Any:
    """The chance to win after each numbered decision (``made``, band ``low``..``high``) beside the strong move's."""
    fig, ax = plt.subplots(figsize=(7, 3.6), layout="constrained")
    ax.fill_between(decisions, low, high, color=SERIES[0], alpha=0.2, linewidth=0, label="95% interval")
    ax.plot(decisions, made, color=SERIES[0], linestyle=LINESTYLES[0], marker=MARKERS[0], label="after the move made")
    ax.plot(
        decisions,
        strong,
        color=SERIES[1],
        linestyle=LINESTYLES[1],
        marker=MARKERS[1],
        label=f"after {strong_label}'s move",
    )
    ax.set_ylim(0, 1)
    ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.set_xlabel("the seat's decisions with a choice, in order")
    ax.set_ylabel("chance to win (%)")
    ax.set_title(title, color=INK)
    ax.legend(loc="best", frameon=False)
    return fig
