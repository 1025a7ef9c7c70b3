"""Layout checks for drawn report sheets: every text on the sheet, none overlapping another, none off the sheet."""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardlab.analysis import report_pdf
from boardlab.analysis.book import TITLE_LINES, Page
from boardlab.analysis.report import write_report

SNAKE = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")
"""A ``snake_case`` identifier."""
VERBATIM = ("notes", "code")
"""Texts that may name identifiers: notes (commands, files) and the front page's knobs as typed on the command line."""

SLACK = 1.0  # pixels two boxes may share (antialiasing of touching boxes)
NOTES_POINTS = 8.0
"""The notes' font size on a question sheet (:func:`analysis.report_pdf.question_sheet`): text the PDF check skips."""


def drawn_texts(fig: Any, draw: Callable[[], Any] | None = None) -> tuple[list[tuple[Any, Any]], Any]:
    """Every non-empty text ``draw`` (default: drawing ``fig`` on its canvas) draws, with its box, and the sheet's box.

    Only what is drawn counts (tick labels out of view are not); ``draw`` may be saving ``fig`` to a PDF, so
    checking costs no second drawing.
    """
    from matplotlib.text import Text

    seen: list[tuple[Any, Any]] = []
    sheets: list[Any] = []
    original = Text.draw

    def recording(self: Any, renderer: Any) -> None:
        original(self, renderer)
        if self.get_visible() and self.get_text().strip():
            seen[:] = [(t, box) for t, box in seen if t is not self]  # a layout pass drew it before
            seen.append((self, self.get_window_extent(renderer)))
            sheets[:] = [fig.bbox.frozen()]

    Text.draw = recording  # type: ignore[method-assign]
    try:
        (draw or fig.canvas.draw)()
    finally:
        Text.draw = original  # type: ignore[method-assign]
    return seen, (sheets or [fig.bbox])[0]


def problems(fig: Any, draw: Callable[[], Any] | None = None) -> list[str]:
    """What is wrong with the sheet's layout: texts leaving the sheet, overlapping texts, a title of > 2 lines, an
    identifier (``snake_case``) in any text but the notes; ``draw`` as :func:`drawn_texts` takes it."""
    boxes, sheet = drawn_texts(fig, draw)
    words = [t.get_text() for t, _ in boxes if t.get_gid() not in VERBATIM]
    out = [f"identifier: {text!r}" for text in words if SNAKE.search(text)]
    for text, box in boxes:
        inside = box.x0 >= sheet.x0 - SLACK and box.y0 >= sheet.y0 - SLACK
        if not inside or box.x1 > sheet.x1 + SLACK or box.y1 > sheet.y1 + SLACK:
            out.append(f"off the sheet: {text.get_text()!r}")
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1 :]:
            if a.get_rotation() == b.get_rotation() not in (0.0, 90.0):
                continue  # parallel slanted labels: their upright boxes overlap where their letters do not
            width = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0)
            height = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
            if width > SLACK and height > SLACK:
                out.append(f"overlap: {a.get_text()!r} and {b.get_text()!r}")
    title = fig._suptitle
    if title is not None and len(title.get_text().splitlines()) > TITLE_LINES:
        out.append(f"title of {len(title.get_text().splitlines())} lines: {title.get_text()!r}")
    return out


def text_runs(sheet: Any) -> list[tuple[float, str]]:
    """A PDF page's text as the PDF holds it: runs of consecutive pieces in one font size, ``(size, text)``."""
    runs: list[tuple[float, list[str]]] = []

    def visit(text: str, cm: Any, tm: Any, font: Any, size: float) -> None:
        size = round(float(size), 2)
        if runs and runs[-1][0] == size:
            runs[-1][1].append(text)
        else:
            runs.append((size, [text]))

    sheet.extract_text(visitor_text=visit)
    return [(size, "".join(parts)) for size, parts in runs]


def pdf_problems(raw: bytes, pages: Sequence[Page | None], first: int = 0) -> list[str]:
    """What the PDF's own text shows wrong, sheet by sheet (``pages[k]``: the question sheet ``k`` draws, or None).

    Each problem is prefixed by its page number, the PDF's sheets numbered from ``first + 1``.

    On a question sheet: a ``snake_case`` identifier in any text but the notes (titles, axes, ticks, legends,
    table headers and cells), and a table cut to :data:`~analysis.report_pdf.MAX_TABLE_ROWS` rows without the
    line saying how many more there are.
    """
    from pypdf import PdfReader

    out = []
    for k, (sheet, page) in enumerate(zip(PdfReader(io.BytesIO(raw)).pages, pages, strict=True)):
        if page is None:
            continue
        runs = text_runs(sheet)
        out += [f"p. {first + k + 1}: identifier in the PDF: {text.strip()!r}" for size, text in runs
                if size != NOTES_POINTS and SNAKE.search(text)]  # fmt: skip
        cut = report_pdf.more_rows(page.table) if page.table is not None else ""
        if cut and cut not in " ".join(" ".join(text for _, text in runs).split()):
            out.append(f"p. {first + k + 1}: a table cut to {report_pdf.MAX_TABLE_ROWS} rows without {cut!r}")
    return out


def question_of(draw: Any) -> Page | None:
    """The page a sheet's drawer draws when it draws a question sheet (see :func:`analysis.report_pdf.sheets`)."""
    args = getattr(draw, "args", ())
    return args[args.index(report_pdf.question_sheet) + 1] if report_pdf.question_sheet in args else None


@dataclass
class Checked:
    """What :func:`checked_drawing` saw: the sheets drawn and the :func:`problems` of each, prefixed by its page."""

    sheets: int = 0
    problems: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return "\n".join(self.problems)


@contextmanager
def checked_drawing() -> Iterator[Checked]:
    """For the block, every PDF sheet a report draws in this process is checked as it is saved, and as the PDF reads.

    The drawing's :func:`problems`, then the PDF text's (:func:`pdf_problems`: what a reader's PDF tool finds).

    Sheets are numbered in the order they are drawn (a report drawn here, one part after the other, numbers them
    as its pages). Reports drawn on other processes are not seen: build them with one job.
    """
    import matplotlib.pyplot as plt
    import seaborn as sns
    from matplotlib.backends.backend_pdf import PdfPages

    seen = Checked()
    original = report_pdf.draw_sheets

    def checking(drawers: Sequence[Callable[[], Any]]) -> bytes:
        raw, first = io.BytesIO(), seen.sheets
        with (
            sns.axes_style("whitegrid"),
            sns.plotting_context("paper", font_scale=1.15),
            PdfPages(raw, metadata={"Creator": "boardlab", "CreationDate": None}) as pdf,
        ):
            for draw in drawers:
                fig = draw()
                seen.sheets += 1
                seen.problems += [f"p. {seen.sheets}: {p}" for p in problems(fig, lambda fig=fig: pdf.savefig(fig))]
                plt.close(fig)
        seen.problems += pdf_problems(raw.getvalue(), [question_of(draw) for draw in drawers], first)
        return raw.getvalue()

    report_pdf.draw_sheets = checking  # type: ignore[assignment]
    try:
        yield seen
    finally:
        report_pdf.draw_sheets = original  # type: ignore[assignment]


def write_checked(path: Path, heading: str, front: Sequence[tuple[str, str]], pages: Sequence[Page]) -> list[str]:
    """Write a chapter's PDF as :func:`analysis.report.write_report` does, checking every sheet as it is saved.

    Returns the layout :func:`problems` of every sheet, each prefixed by its page number.
    """
    with checked_drawing() as seen:
        write_report(path, heading, front, pages)
    return seen.problems
