"""Figures: each function takes a DataFrame and returns a matplotlib Figure; no file I/O here.

Report figures use seaborn (a run folder's two figures are in :mod:`analysis.run_figures`). Every figure speaks
the one visual language of :mod:`analysis.style`: a policy has the same colour and marker everywhere, intervals
are bands or error bars, and line styles or hatches keep series apart in a greyscale print. Every axis says its
unit. Report functions accept ``fig`` (a figure or subfigure) to draw into.
"""

from __future__ import annotations

from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from boardlab.analysis.style import (
    GREYS,
    HATCHES,
    HEATMAP,
    INK,
    LINESTYLES,
    MARKERS,
    SERIES,
    is_policy,
    policy_style,
    series_styles,
)

__all__ = ["GREYS", "LINESTYLES", "MARKERS", "heatmap", "interval_bars", "interval_lines", "rating_intervals"]


CHAR_EMS = 0.55  # average width of a label's character, in font sizes


def _figure(fig: Any, size: tuple[float, float] = (7, 4)) -> Any:
    return fig if fig is not None else plt.figure(figsize=size, layout="constrained")


def heatmap(matrix: Any, label: str, fig: Any = None, fmt: str = ".1%") -> Any:
    """A square matrix (rows against columns) as an annotated heatmap (colour-blind-safe map); NaN cells blank."""
    import seaborn as sns

    fig = _figure(fig, (7, 5))
    ax = fig.subplots()
    sns.heatmap(
        matrix,
        annot=True,
        fmt=fmt,
        cmap=HEATMAP,
        vmin=0,
        vmax=1,
        cbar_kws={"label": label},
        ax=ax,
        linewidths=0.5,
        linecolor="white",
        annot_kws={"fontsize": 9},
    )
    ax.set_xlabel("opponent policy")
    ax.set_ylabel("policy")
    ax.tick_params(axis="x", rotation=0)
    ax.tick_params(axis="y", rotation=0)
    return fig


def interval_bars(
    frame: Any,
    x: str,
    y: str,
    low: str,
    high: str,
    hue: str | None,
    ylabel: str,
    xlabel: str,
    fig: Any = None,
    ax: Any = None,
    reference: float | None = None,
) -> Any:
    """Grouped bars with 95% interval whiskers, coloured per ``hue`` (a policy's own colour), hatched for greyscale."""
    import numpy as np

    if ax is None:
        fig = _figure(fig)
        ax = fig.subplots()
    groups = list(dict.fromkeys(frame[hue])) if hue else [None]
    xs = list(dict.fromkeys(frame[x]))
    width = 0.8 / len(groups)
    looks = series_styles(groups) if hue else None
    for g, group in enumerate(groups):
        rows = frame if group is None else frame[frame[hue] == group]
        pos = np.array([xs.index(v) for v in rows[x]]) + (g - (len(groups) - 1) / 2) * width
        err = np.vstack([rows[y] - rows[low], rows[high] - rows[y]])
        ax.bar(
            pos,
            rows[y],
            width=width,
            color=looks[g].color if looks else _bar_colours(xs, rows[x]),
            hatch=HATCHES[g % 8],
            edgecolor=INK,
            linewidth=0.5,
            label=group,
            yerr=err,
            capsize=3,
            error_kw={"elinewidth": 0.9, "ecolor": INK},
        )
    if reference is not None:
        ax.axhline(reference, color=INK, linestyle="--", linewidth=0.8)
    ax.set_xticks(range(len(xs)), [str(v) for v in xs])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if hue:
        ax.legend(frameon=True, facecolor="white", framealpha=0.9, edgecolor="#999999", fontsize=8, loc="best")
    return fig


def slant_crowded_ticks(ax: Any, room: float = 0.8) -> None:
    """Slant the x tick labels when the longest would take more than ``room`` of its share of the axes' width.

    Slanted labels (these or a page's own) end at their tick, so the last one stays on the sheet.

    The width is the axes' before the layout trims it, and a label's width an estimate from the characters of its
    longest line. A report's sheet asks this of every axes once its labels are worded (:func:`names.humanize`).
    """
    labels = [t for t in ax.get_xticklabels() if t.get_text()]
    if not labels:
        return
    width = ax.get_window_extent().width / ax.get_figure(root=True).dpi
    chars = max(len(line) for t in labels for line in t.get_text().splitlines())
    longest = chars * labels[0].get_fontsize() * CHAR_EMS / 72
    slanted = labels[0].get_rotation() not in (0.0, 90.0)  # a page may slant its own: they end at their ticks too
    if slanted or longest > room * width / len(labels):
        for t in labels:
            t.set(rotation=t.get_rotation() if slanted else 30, ha="right", rotation_mode="anchor")


def interval_lines(
    frame: Any,
    x: str,
    y: str,
    low: str,
    high: str,
    hue: str | None,
    ylabel: str,
    xlabel: str,
    fig: Any = None,
    ax: Any = None,
) -> Any:
    """Lines with markers and 95% interval bands, one per ``hue`` value (a policy's own look), styled for greyscale."""
    if ax is None:
        fig = _figure(fig)
        ax = fig.subplots()
    groups = list(dict.fromkeys(frame[hue])) if hue else [None]
    looks = series_styles(groups)
    for group, look in zip(groups, looks, strict=True):
        rows = (frame if group is None else frame[frame[hue] == group]).sort_values(x)
        ax.plot(rows[x], rows[y], color=look.color, linestyle=look.linestyle, marker=look.marker, label=group)
        ax.fill_between(rows[x], rows[low], rows[high], color=look.color, alpha=0.2, linewidth=0)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if hue:
        ax.legend(frameon=True, facecolor="white", framealpha=0.9, edgecolor="#999999", fontsize=8, loc="best")
    return fig


def shares(ax: Any, hists: dict[str, Any], xlabel: str, ylabel: str) -> None:
    """Each histogram (label -> counts per value) as a step line of shares, a grey and a line style per series."""
    import numpy as np

    for i, (label, hist) in enumerate(hists.items()):
        ax.step(
            np.arange(len(hist)), hist / hist.sum(), where="mid", color=GREYS[i], linestyle=LINESTYLES[i], label=label
        )
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)


def rating_intervals(
    frame: Any, label: str, highlight: Any = (), fig: Any = None, ax: Any = None, xlabel: str = "rating (Elo points)"
) -> Any:
    """Ratings as points with 95% interval whiskers, one row per ``frame[label]``, strongest at the top.

    ``frame`` has ``rating``, ``rating_lo`` and ``rating_hi``; each row is drawn in its policy's colour and marker,
    rows named in ``highlight`` (e.g. the skill chain) filled, the others hollow.
    """
    if ax is None:
        fig = _figure(fig, (7, max(2.5, 0.4 * len(frame) + 1)))
        ax = fig.subplots()
    rows = frame.sort_values("rating").reset_index(drop=True)
    for y, row in rows.iterrows():
        look = policy_style(str(row[label]))
        ax.errorbar(
            row["rating"],
            y,
            xerr=[[row["rating"] - row["rating_lo"]], [row["rating_hi"] - row["rating"]]],
            fmt=look.marker,
            markersize=8,
            color=look.color,
            markeredgecolor=look.color,
            markerfacecolor=look.color if row[label] in set(highlight) else "white",
            capsize=3,
            elinewidth=1.2,
        )
    ax.set_yticks(range(len(rows)), [str(v) for v in rows[label]])
    ax.axvline(0, color=INK, linestyle=":", linewidth=0.8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("policy")
    return fig


def _bar_colours(xs: list[Any], shown: Any) -> list[str] | str:
    """Bars without ``hue``: each in its policy's colour when the x values are policies, else all in one colour."""
    if all(is_policy(v) for v in xs):
        return [policy_style(str(v)).color for v in shown]
    return SERIES[0]
