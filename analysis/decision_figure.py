"""The figure of decisions that matter: side by side, what the seat sees and every move's chance to win.

Plain data in, drawn into a matplotlib (sub)figure (no file I/O, nothing from ``experiments``): per position, the
game's words for the position in monospace above a chart of every legal move's chance to win with its 95%
interval (playouts) and, where known, the exact chance as a black diamond; the strong player's move and the
heuristic's are drawn in their policies' colours. A position with more than :data:`MOST_MOVES` legal moves shows
the two players' moves and the others with the best chances, and says how many it leaves out.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from boardlab.analysis.style import INK, policy_style

OTHER = "#9a9a9a"  #: the moves neither player chose
VIEW_WIDTH = 62  #: characters of a line of the position's words before it wraps
MOST_MOVES = 14  #: moves drawn per position at most (their labels stay apart at the figure's font)
VIEW_SIZE = 6.0  #: points of the position's words, smaller when they would not fit in :data:`MOST_WORDS` of the height
MOST_WORDS = 0.6  #: the share of a panel's height its title and words may take
LINE = 1.25  #: a monospace line's height in font sizes
TITLE_POINTS = 16.0  #: points from the panel's top to its words (the bold title)
LAID_OUT = 0.7  #: the share of a panel's height left once the layout has placed the page's titles above it


@dataclass(frozen=True)
class Panel:
    """One position: its title, what the seat sees, and each move's words, chance, interval and exact chance."""

    title: str
    view: Sequence[str]
    moves: Sequence[str]
    chance: Sequence[float]
    low: Sequence[float]
    high: Sequence[float]
    exact: Sequence[float] | None
    strong: int  #: index in ``moves`` of the strong player's move
    heuristic: int  #: index in ``moves`` of the heuristic's move


def shown_moves(panel: Panel, most: int = MOST_MOVES) -> list[int]:
    """The indices of the moves to draw, in the panel's order: all, or the two players' and the likeliest others."""
    if len(panel.moves) <= most:
        return list(range(len(panel.moves)))
    chosen = {panel.strong, panel.heuristic}
    others = sorted((i for i in range(len(panel.moves)) if i not in chosen), key=lambda i: -panel.chance[i])
    return sorted(chosen | set(others[: most - len(chosen)]))


def draw_positions(fig: Any, panels: Sequence[Panel], strong: str, heuristic: str) -> None:
    """The panels side by side in ``fig``, each position's words above its moves' chances to win (in %)."""
    for sub, whole in zip(fig.subfigures(1, len(panels), squeeze=False)[0], panels, strict=True):
        panel, left_out = _thinned(whole)
        lines = [part for line in panel.view for part in textwrap.wrap(line, VIEW_WIDTH, subsequent_indent="    ")]
        height = LAID_OUT * sub.bbox.height / sub.dpi  # inches, once the page's titles have taken theirs
        size = min(VIEW_SIZE, (MOST_WORDS * height * 72 - TITLE_POINTS) / (LINE * max(len(lines), 1)))
        share = min(MOST_WORDS, (LINE * len(lines) * size + TITLE_POINTS) / 72 / height + 0.06)
        words, chart = sub.subplots(2, 1, height_ratios=[max(share, 0.22), 1 - max(share, 0.22)])
        words.axis("off")  # room for the words, written from the panel's left edge (the chart's labels shift it)
        sub.text(0.02, 0.99, panel.title, fontsize=8.5, weight="bold", va="top", color=INK)
        top = 0.99 - TITLE_POINTS / 72 / height
        sub.text(0.02, top, "\n".join(lines), family="monospace", fontsize=size, va="top", color=INK)
        ys = list(range(len(panel.moves)))[::-1]
        colours = [OTHER] * len(ys)
        colours[panel.strong] = policy_style(strong).color
        colours[panel.heuristic] = policy_style(heuristic).color
        for y, c, lo, hi, colour in zip(ys, panel.chance, panel.low, panel.high, colours, strict=True):
            chart.errorbar(100 * c, y, xerr=[[100 * (c - lo)], [100 * (hi - c)]], fmt="o", ms=3, color=colour, lw=1)
        if panel.exact is not None:
            chart.scatter([100 * e for e in panel.exact], ys, marker="D", s=10, color=INK, zorder=3, label="exact")
            chart.legend(fontsize=6, loc="lower right", bbox_to_anchor=(1.0, 1.0), frameon=False)
        labels = [
            m + "".join(f"  [{name}]" for name, at in ((strong, panel.strong), (heuristic, panel.heuristic)) if at == i)
            for i, m in enumerate(panel.moves)
        ]
        if left_out:  # a last row says what the chart leaves out (the x label stays one line: it fits any page)
            ys, labels, colours = [*ys, -1], [*labels, f"… {left_out} less likely moves not drawn"], [*colours, OTHER]
        chart.set_yticks(ys, labels, fontsize=5.5)
        for tick, colour in zip(chart.get_yticklabels(), colours, strict=True):
            tick.set_color(INK if colour == OTHER else colour)
        chart.set_xlabel("chance to win, % (95% interval)", fontsize=7)
        chart.tick_params(axis="x", labelsize=6.5)
        chart.grid(axis="x", alpha=0.3)


def _thinned(panel: Panel) -> tuple[Panel, int]:
    """The panel with only its :func:`shown_moves`, and how many moves it left out."""
    keep = shown_moves(panel)
    if len(keep) == len(panel.moves):
        return panel, 0

    def pick(values: Sequence[Any]) -> list[Any]:
        return [values[i] for i in keep]

    thinned = replace(
        panel,
        moves=pick(panel.moves),
        chance=pick(panel.chance),
        low=pick(panel.low),
        high=pick(panel.high),
        exact=None if panel.exact is None else pick(panel.exact),
        strong=keep.index(panel.strong),
        heuristic=keep.index(panel.heuristic),
    )
    return thinned, len(panel.moves) - len(keep)
