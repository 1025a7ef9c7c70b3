"""Declared figure panels: a page states what each axes shows, one function draws it.

A :class:`Panel` is one axes of bars or lines with 95% intervals. The interval of column ``y`` is found by name, in
``<y>_lo`` and ``<y>_hi`` (what :func:`analysis.tables.estimate` writes). :func:`figure` lays the panels side by side
and returns the ``draw`` function a report page takes; :func:`facets` makes one panel per value of a column.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from boardlab.analysis import plots

ZERO = {"color": "#000000", "linewidth": 0.6}  #: the plain line at zero of a panel of differences


@dataclass(frozen=True)
class Panel:
    """One axes: ``frame[y]`` against ``frame[x]`` per ``hue`` value, as bars (whiskers) or lines (bands).

    ``reference`` draws a dashed level (bars only: a fair share); ``zero`` a plain line at 0; ``xticks`` (with
    ``xtick_labels``) and ``ticks`` (keywords of ``tick_params`` for the x axis) adjust the axes after drawing;
    ``legend=False`` drops the panel's own legend; ``ylabel=None`` leaves the y axis unlabelled. ``ylim`` is set
    by :func:`figure` once every panel is drawn (a shared y axis takes the first panel's).
    """

    frame: Any
    x: str
    y: str
    hue: str | None
    ylabel: str | None
    xlabel: str
    reference: float | None = None
    kind: Literal["bar", "line"] = "bar"
    zero: bool = False
    xticks: Sequence[Any] | None = None
    xtick_labels: Sequence[str] | None = None
    ylim: tuple[float, float] | None = None
    ticks: dict[str, Any] = field(default_factory=dict)
    legend: bool = True

    def draw(self, ax: Any) -> None:
        """Draw the panel on ``ax``."""
        columns = (self.frame, self.x, self.y, f"{self.y}_lo", f"{self.y}_hi", self.hue, self.ylabel or "")
        if self.kind == "bar":
            plots.interval_bars(*columns, self.xlabel, ax=ax, reference=self.reference)
        else:
            plots.interval_lines(*columns, self.xlabel, ax=ax)
        if self.zero:
            ax.axhline(0, **ZERO)
        if self.ticks:
            ax.tick_params(axis="x", **self.ticks)
        if not self.legend:
            ax.get_legend().remove()
        if self.xticks is not None:
            ax.set_xticks(list(self.xticks), self.xtick_labels)


def figure(
    *panels: Panel, sharey: bool = False, legend: int | None = None, widths: Sequence[float] | None = None
) -> Callable[[Any], None]:
    """A page's ``draw``: the panels side by side in one row (``sharey``: one y scale; ``widths``: their ratios).

    ``legend``: the columns of one legend above the panels, taken from the first (the panels then drop theirs).
    Each panel's ``ylim`` is set once every panel is drawn.
    """

    def draw(fig: Any) -> None:
        if len(panels) == 1 and not sharey:
            axes = [fig.subplots()]
        else:
            axes = fig.subplots(1, len(panels), sharey=sharey, width_ratios=widths)
        for ax, panel in zip(axes, panels, strict=True):
            panel.draw(ax)
        if legend is not None:
            handles, labels = axes[0].get_legend_handles_labels()
            fig.legend(handles, labels, loc="outside upper center", ncol=legend, frameon=False, fontsize=8)
        for ax, panel in zip(axes, panels, strict=True):
            if panel.ylim is not None:
                ax.set_ylim(*panel.ylim)

    return draw


def facets(panel: Panel, by: str, values: Sequence[Any], **each: Callable[[Any], Any]) -> list[Panel]:
    """``panel`` once per value of column ``by``, on its rows only.

    ``each`` maps a field to a function of the value (``xlabel=lambda k: f"{k} players"``, ``reference=...``).
    """
    return [
        replace(panel, frame=panel.frame[panel.frame[by] == v], **{name: f(v) for name, f in each.items()})
        for v in values
    ]


def around(frame: Any, y: str, low: float, high: float, margin: float = 0.02) -> tuple[float, float]:
    """Y limits that hold ``[low, high]`` and every interval of ``y`` with ``margin`` to spare."""
    return min(low, frame[f"{y}_lo"].min() - margin), max(high, frame[f"{y}_hi"].max() + margin)
