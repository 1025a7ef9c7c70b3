"""Multi-page PDF reports: a front page saying what was run, then one page per question.

A page's title is the answer, with its interval; under it one figure and a small table. Builds are
reproducible: with ``SOURCE_DATE_EPOCH`` set, two builds of the same numbers are byte-identical.
"""

from __future__ import annotations

import datetime as dt
import os
import tempfile
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis import plots  # noqa: F401  (selects the Agg backend before pyplot is used)

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


def _table(ax: Any, frame: Any) -> None:
    ax.axis("off")
    if frame is None or len(frame) == 0:
        return
    cells = [[_cell(v) for v in row] for row in frame.itertuples(index=False)]
    table = ax.table(cellText=cells, colLabels=[str(c) for c in frame.columns], loc="upper center", cellLoc="center")
    table.auto_set_font_size(False)
    table.set_fontsize(7.5 if len(frame.columns) > 7 else 8.5)
    table.scale(1, 1.25)
    for (row, _), cell in table.get_celld().items():
        cell.set_edgecolor("#999999")
        if row == 0:
            cell.set_facecolor("#e6e6e6")


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) >= 1000 or value == 0 else f"{value:.4g}"
    return str(value)


def _question_page(page: Page) -> Any:
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=A4_LANDSCAPE, layout="constrained")
    fig.suptitle("\n".join(textwrap.wrap(page.title, 95)), fontsize=15, weight="bold")
    rows = len(page.table) if page.table is not None else 0
    top, bottom = fig.subfigures(2, 1, height_ratios=[2.4, 0.35 + 0.12 * min(rows, 14)])
    page.draw(top)
    ax = bottom.subplots()
    _table(ax, page.table.head(14) if page.table is not None else None)
    if page.notes:
        lines = [line for note in page.notes for line in textwrap.wrap(note, 180)]
        bottom.text(0.01, 0.0, "\n".join(lines), fontsize=8, va="bottom", color="#333333")
    return fig


def write_report(path: Path | str, heading: str, front: Sequence[tuple[str, str]], pages: Sequence[Page]) -> Path:
    """Write the front page and one page per question to ``path`` (atomically); returns the path."""
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".pdf.tmp", delete=False) as handle:
        tmp = Path(handle.name)
    try:
        with PdfPages(tmp, metadata={"Title": heading, "Creator": "boardlab", "Producer": "boardlab"}) as pdf:
            for fig in (_front_page(heading, front), *(_question_page(p) for p in pages)):
                pdf.savefig(fig)
                plt.close(fig)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path
