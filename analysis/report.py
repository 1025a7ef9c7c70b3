"""Write a :class:`analysis.book.Book`: the PDF (bookmarks and links, :mod:`analysis.report_pdf`) and its HTML twin.

The twin (:mod:`analysis.report_html`) has the same pages, numbered alike. Builds are reproducible: with
``SOURCE_DATE_EPOCH`` set, two builds of the same numbers are byte-identical.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from boardlab.analysis import report_html, report_pdf
from boardlab.analysis.book import Book, Page, Report, html_path
from boardlab.analysis.files import replacing_together

Tasks = Callable[[Sequence[Callable[[], Any]]], list[Any]]
"""Runs argument-free tasks and returns their results in order, in this process or in parallel."""


def one_by_one(tasks: Sequence[Callable[[], Any]]) -> list[Any]:
    """Run ``tasks`` here, in order."""
    return [task() for task in tasks]


def write_book(path: Path | str, book: Book, html: bool = True, run: Tasks = one_by_one) -> Path:
    """Write ``book`` as a PDF at ``path`` (and its HTML twin beside it unless told not to); returns the PDF path.

    Both are written beside the old pair and swapped in together once complete (:mod:`analysis.files`). The
    sheets and the twin's figures are drawn in parts by ``run`` (e.g. on a run's worker pool); the files do not
    depend on how.
    """
    path = Path(path)
    pdf_parts = report_pdf.parts(book)
    drawn = run([*pdf_parts, *(report_html.parts(book) if html else [])])
    with replacing_together(path.parent) as stage:  # the PDF and its twin replace the old pair together
        report_pdf.write(stage / path.name, book, drawn[: len(pdf_parts)])
        if html:
            report_html.write(stage / html_path(path).name, book, drawn[len(pdf_parts) :])
    return path


def write_report(path: Path | str, heading: str, front: Sequence[tuple[str, str]], pages: Sequence[Page]) -> Path:
    """Write one report from its front lines and pages: the PDF only (the form chapters' own tests call)."""
    return write_book(path, Book([Report(heading, front, pages)]), html=False)
