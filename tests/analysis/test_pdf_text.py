"""The PDF check of every report build (tests/analysis/layout.py: ``pdf_problems``) reads what a reader's PDF tool
reads: it finds an identifier the drawing left in a title, axis or table header, and a table cut silently."""

from __future__ import annotations

from functools import partial

import pandas as pd
import pytest

from boardlab.analysis import report_pdf
from boardlab.analysis.book import Page
from tests.analysis.layout import pdf_problems


def _draw(fig) -> None:
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1], label="lead_changes")
    ax.set_xlabel("head_start")
    ax.legend()


PAGE = Page(
    "The first_seat_advantage shrinks",
    _draw,
    pd.DataFrame({"first_seat_advantage": range(report_pdf.MAX_TABLE_ROWS + 3)}),
    ["simulate tune panots --vary head_start=0..8"],  # notes may name what a designer types
)


def test_a_sheet_drawn_as_reports_are_reads_clean() -> None:
    raw = report_pdf.draw_sheets([partial(report_pdf.question_sheet, PAGE, 2, 1)])
    assert pdf_problems(raw, [PAGE], first=1) == []


def test_identifiers_left_in_the_drawing_and_a_silent_cut_are_found(monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as raw_words:  # a sheet drawn without its display names and its cut line
        raw_words.setattr(report_pdf, "display", lambda text: text)
        raw_words.setattr(report_pdf, "humanize", lambda fig: None)
        raw_words.setattr(report_pdf, "more_rows", lambda frame: "")
        raw = report_pdf.draw_sheets([partial(report_pdf.question_sheet, PAGE, 2, 1)])
    found = pdf_problems(raw, [PAGE], first=1)
    assert any(p.startswith("p. 2: identifier in the PDF") and "head_start" in p for p in found), found
    assert any("lead_changes" in p for p in found) and any("first_seat_advantage" in p for p in found), found
    assert any(p.startswith("p. 2: a table cut to 26 rows without") and "… 3 more rows" in p for p in found), found
    assert not any("simulate tune" in p for p in found)  # the notes are not checked
