"""Multi-page PDF reports: a front page saying what was run, then one page per question.

A page's title is the answer, with its interval; under it one figure and a small table. Builds are
reproducible: with ``SOURCE_DATE_EPOCH`` set, two builds of the same numbers are byte-identical.
"""

from __future__ import annotations

import datetime as dt
import os
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis import plots  # noqa: F401  (selects the Agg backend before pyplot is used)
from analysis.files import replacing

A4_LANDSCAPE = (11.69, 8.27)


@dataclass
class Page:
    """One question: ``title`` (the answer), ``draw(subfigure)`` for its figure, a small table, notes."""

    title: str
    draw: Callable[[Any], None]
    table: Any = None
    notes: Sequence[str] = field(default_factory=tuple)


def build_date() -> str:
    """The report date: ``SOURCE_DATE_EPOCH`` when set (reproducible builds), else today (UTC)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = dt.datetime.fromtimestamp(int(epoch), dt.UTC) if epoch else dt.datetime.now(dt.UTC)
    return moment.strftime("%Y-%m-%d")


def _front_page(heading: str, front: Sequence[tuple[str, str]]) -> Any:
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=A4_LANDSCAPE)
    fig.text(0.06, 0.9, heading, fontsize=22, weight="bold", va="top")
    y = 0.8
    for key, value in front:
        lines = textwrap.wrap(value, 110) or [""]
        fig.text(0.06, y, key, fontsize=10, weight="bold", va="top")
        for line in lines:
            fig.text(0.24, y, line, fontsize=10, va="top", family="monospace" if key == "command" else None)
            y -= 0.032
        y -= 0.01
    return fig


MAX_TABLE_ROWS = 16
ROW_INCHES = 0.19  # height of one table row
NOTE_INCHES = 0.15  # height of one line of notes


def _table(ax: Any, frame: Any) -> None:
    """Draw ``frame`` as a table filling ``ax``."""
    ax.axis("off")
    cells = [[_cell(v) for v in row] for row in frame.itertuples(index=False)]
    table = ax.table(cellText=cells, colLabels=[str(c) for c in frame.columns], cellLoc="center", bbox=[0, 0, 1, 1])
    table.auto_set_font_size(False)
    table.set_fontsize(7.5 if len(frame.columns) > 7 else 8.5)
    for (row, _), cell in table.get_celld().items():
        cell.set_edgecolor("#999999")
        if row == 0:
            cell.set_facecolor("#e6e6e6")


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) >= 1000 or value == 0 else f"{value:.4g}"
    return str(value)


def _question_page(page: Page) -> Any:
    """Title (the answer), the figure, then the table and the notes, each given the height it needs."""
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=A4_LANDSCAPE, layout="constrained")
    fig.suptitle("\n".join(textwrap.wrap(page.title, 85)), fontsize=15, weight="bold")
    table = page.table.head(MAX_TABLE_ROWS) if page.table is not None and len(page.table) else None
    notes = [line for note in page.notes for line in textwrap.wrap(note, 180)]
    table_h = 0.0 if table is None else ROW_INCHES * (len(table) + 1)
    notes_h = NOTE_INCHES * len(notes) + (0.1 if notes else 0.0)
    below = table_h + notes_h
    if below == 0:
        page.draw(fig)
        return fig
    top, bottom = fig.subfigures(2, 1, height_ratios=[max(A4_LANDSCAPE[1] - 1.0 - below, 2.5), below])
    page.draw(top)
    if table is not None:
        _table(bottom.add_axes((0.0, notes_h / below, 1.0, table_h / below)), table)
    if notes:
        bottom.text(0.01, 0.0, "\n".join(notes), fontsize=8, va="bottom", color="#333333")
    return fig


def write_report(path: Path | str, heading: str, front: Sequence[tuple[str, str]], pages: Sequence[Page]) -> Path:
    """Write the front page and one page per question to ``path`` (atomically); returns the path."""
    import matplotlib.pyplot as plt
    import seaborn as sns
    from matplotlib.backends.backend_pdf import PdfPages

    path = Path(path)
    with (
        replacing(path) as tmp,
        sns.axes_style("whitegrid"),
        sns.plotting_context("paper"),
        PdfPages(tmp, metadata={"Title": heading, "Creator": "boardlab", "Producer": "boardlab"}) as pdf,
    ):
        for fig in (_front_page(heading, front), *(_question_page(p) for p in pages)):
            pdf.savefig(fig)
            plt.close(fig)
    return path
