"""The two figures of a run folder, drawn straight from summary histograms and saved as PNG files.

They use matplotlib's object interface with the Agg canvas (no pyplot, no pandas, no seaborn): a ``simulate``
command pays for as little start-up as possible. They speak the reports' visual language (:mod:`analysis.style`):
each seat's line in its policy's colour, seats told apart by line style.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from boardlab.analysis.style import LINESTYLES, SERIES, policy_style

SIZE_INCHES = (7, 4)
DPI = 100


def _axes(xlabel: str) -> tuple[Figure, object]:
    fig = Figure(figsize=SIZE_INCHES, dpi=DPI)
    FigureCanvasAgg(fig)
    fig.subplots_adjust(left=0.1, right=0.97, bottom=0.13, top=0.96)
    ax = fig.add_subplot()
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share of games")
    return fig, ax


def score_distribution(score_hist: np.ndarray, policies: list[str], score_label: str) -> Figure:
    """Share of games by final score: one step line per seat from ``score_hist`` (seats x score)."""
    fig, ax = _axes(f"final score ({score_label})")
    for seat, (counts, policy) in enumerate(zip(score_hist, policies, strict=True)):
        scores = np.flatnonzero(counts)
        ax.step(
            scores,
            counts[scores] / max(counts.sum(), 1),
            where="mid",
            color=policy_style(policy).color,
            linestyle=LINESTYLES[seat % len(LINESTYLES)],
            label=f"seat {seat} ({policy})",
        )
    ax.legend(frameon=False)
    return fig


def game_length(turns_hist: np.ndarray) -> Figure:
    """Share of games by length in turns, as bars, from ``turns_hist`` (games by turns)."""
    fig, ax = _axes("game length (turns)")
    turns = np.flatnonzero(turns_hist)
    share = turns_hist[turns] / max(turns_hist.sum(), 1)
    ax.bar(turns, share, width=1.0, color=SERIES[0], edgecolor="#222222", linewidth=0.3)
    return fig


def save_png(fig: Figure, path: Path) -> None:
    """Render ``fig`` into the PNG file ``path``."""
    fig.savefig(path, format="png")
