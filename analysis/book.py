"""The model of a report a designer reads in five minutes: pages, knobs, reports and books (no drawing, no files).

A :class:`Report` is one game's front page (findings linked to their pages, a contents list, the knobs with
where each default comes from, an Assumptions box, what was run) and one :class:`Page` per question: its title
is the answer with its interval, under it one figure and a small table. A :class:`Book` is one report or
several behind a page comparing them. :func:`analysis.report.write_book` writes the files; this module imports
neither writer, so :mod:`analysis.report_pdf` and :mod:`analysis.report_html` can import it.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardlab.analysis import glossary
from boardlab.analysis.glossary import Term
from boardlab.analysis.names import display

MAX_FINDINGS = 6
SHORT_TITLE = 72  # characters of a page title in the contents list and the bookmarks
TITLE_CHARS = 85  # characters of a title's line at the PDF's width
TITLE_LINES = 2  # lines of a title at most; the rest of a longer answer reads under it
HIDDEN_FRONT_KEYS = ("headlines", "answers")  # front lines the findings list replaces


@dataclass
class Page:
    """One question: ``title`` (the answer), ``draw(subfigure)`` for its figure, a small table, notes.

    The optional hooks make the front page richer; a chapter that sets none still gets a finding (its headline),
    a contents entry and a bookmark for the page:

    - ``finding``: the front page's sentence for this page, with its number and interval ("" leaves it out);
    - ``short``: the page's name in the contents list and the bookmarks;
    - ``meaning``: what the answer means for the design, printed under the title;
    - ``depends_on``: knob → what this page measured about its effect (the Assumptions box names the page);
    - ``metrics``: name → value worded for a table comparing games (``simulate report all``).
    """

    title: str
    draw: Callable[[Any], None]
    table: Any = None
    notes: Sequence[str] = field(default_factory=tuple)
    finding: str | None = None
    short: str | None = None
    meaning: str | None = None
    depends_on: Mapping[str, str] = field(default_factory=dict)
    metrics: Mapping[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The contents and bookmark entry: ``short``, else the title cut at a word."""
        return self.short or textwrap.shorten(flat(display(self.title)), SHORT_TITLE, placeholder=" …")

    @property
    def headline(self) -> tuple[str, str]:
        """The title as at most :data:`TITLE_LINES` lines of headline and the detail that reads under it."""
        return split_title(display(self.title))

    @property
    def so_what(self) -> str:
        """What the answer means as a full sentence ("" when the chapter gave none)."""
        return sentence(display(self.meaning)) if self.meaning else ""

    def texts(self) -> list[str]:
        """Every text the page prints (its figure's aside): title, table headers, meaning, notes."""
        headers = [str(c) for c in self.table.columns] if self.table is not None else []
        return [self.title, *headers, self.meaning or "", *self.notes]


@dataclass(frozen=True)
class Knob:
    """A knob as the front page shows it: its default (worded), where that comes from, and what it means."""

    name: str
    value: str
    source: str
    doc: str = ""

    @property
    def kind(self) -> str:
        """``rulebook``, ``published``, ``ours`` or ``undeclared``."""
        return self.source.split(":", 1)[0].strip() or "undeclared"

    @property
    def assumed(self) -> bool:
        """Whether the default is not the rulebook's (so it belongs in the Assumptions box)."""
        return self.kind != "rulebook"


@dataclass
class Report:
    """One game's (or one study's) report: front page lines, question pages, and optionally knobs and findings."""

    heading: str
    front: Sequence[tuple[str, str]]
    pages: Sequence[Page]
    headlines: Sequence[str] = ()
    knobs: Sequence[Knob] = ()
    name: str = ""
    extra_metrics: Mapping[str, str] = field(default_factory=dict)  # measured outside the pages (``report all``)

    @property
    def about(self) -> list[tuple[str, str]]:
        """The front lines shown as they are (the findings and the knobs table replace some)."""
        hidden = HIDDEN_FRONT_KEYS + (("knobs",) if self.knobs else ())
        return [(k, v) for k, v in self.front if k not in hidden]

    def findings(self) -> list[tuple[str, int]]:
        """Up to :data:`MAX_FINDINGS` ``(sentence, page index)`` in page order.

        A page's sentence is its ``finding``, else its headline (its title when the chapter gave no headlines);
        a page whose ``finding`` is ``""`` has none.
        """
        heads = list(self.headlines) if len(self.headlines) == len(self.pages) else [p.title for p in self.pages]
        chosen = [(flat(p.finding or h), i) for i, (p, h) in enumerate(zip(self.pages, heads, strict=True))]
        return [(display(c), i) for (c, i), p in zip(chosen, self.pages, strict=True) if p.finding != ""][:MAX_FINDINGS]

    def assumptions(self) -> list[tuple[Knob, list[tuple[int, str]]]]:
        """Every knob whose default is declared not the rulebook's, with the pages that measured its effect."""
        return [
            (k, [(i, p.depends_on[k.name]) for i, p in enumerate(self.pages) if k.name in p.depends_on])
            for k in self.knobs
            if k.assumed and k.kind != "undeclared"
        ]

    @property
    def undeclared(self) -> list[Knob]:
        """The knobs whose default's source is not declared (so it cannot be taken for the rulebook's)."""
        return [k for k in self.knobs if k.kind == "undeclared"]

    def metrics(self) -> dict[str, str]:
        """Every page's comparison metrics in page order, then the report's extra ones (the first value wins)."""
        out: dict[str, str] = {}
        for metrics in (*(p.metrics for p in self.pages), self.extra_metrics):
            for key, value in metrics.items():
                out.setdefault(key, value)
        return out

    @property
    def sheets(self) -> int:
        """Pages this report takes: its front page and one per question."""
        return 1 + len(self.pages)


@dataclass
class Book:
    """What one file holds: reports in order, behind an overview page comparing them when there are several."""

    reports: Sequence[Report]
    title: str = ""
    overview: Any = None  # a DataFrame: one row per report (its ``name`` first), or None for no overview page

    def first_pages(self) -> list[int]:
        """The 1-based page number of every report's front page."""
        first, out = 1 + (self.overview is not None), []
        for report in self.reports:
            out.append(first)
            first += report.sheets
        return out

    @property
    def heading(self) -> str:
        """The document's title."""
        return self.title or self.reports[0].heading

    @property
    def glossary_page(self) -> int:
        """The 1-based number of the glossary, the last page."""
        return 1 + (self.overview is not None) + sum(report.sheets for report in self.reports)

    def terms(self) -> list[Term]:
        """The glossary's entries: the terms the book's question pages use."""
        return glossary.used(text for report in self.reports for page in report.pages for text in page.texts())


def outside(text: str, at: int) -> bool:
    """Whether position ``at`` of ``text`` is outside every bracket (a cut there leaves none open)."""
    before = text[:at]
    return before.count("(") == before.count(")") and before.count("[") == before.count("]")


def split_title(title: str, width: int = TITLE_CHARS, lines: int = TITLE_LINES) -> tuple[str, str]:
    """``title`` cut into a headline of at most ``lines`` lines of ``width`` characters and the rest.

    The cut falls after the last clause (``;``, ``:``, ``.``, a dash, else a comma) outside brackets that leaves a
    headline short enough, else at the last word that fits.
    """
    text = flat(title)
    if len(textwrap.wrap(text, width)) <= lines:
        return text, ""
    for marks in (("; ", ": ", ". ", " — "), (", ",)):
        cuts = [m.start() for m in re.finditer("|".join(re.escape(k) for k in marks), text) if outside(text, m.start())]
        fitting = [c for c in cuts if len(textwrap.wrap(text[: c + 1], width)) <= lines and c > width // 2]
        if fitting:
            cut = fitting[-1]
            head, rest = text[:cut].rstrip(), text[cut + 1 :].strip()
            return head, rest
    head = " ".join(textwrap.wrap(text, width - 2)[:lines])  # room for the " …" that says it reads on
    return head + " …", "… " + text[len(head) :].strip()


def sentence(text: str) -> str:
    """``text`` as a full sentence: a capital first letter and a full stop at the end."""
    text = flat(text).strip()
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def flat(text: str) -> str:
    """``text`` on one line with plain spaces (titles glue words with non-breaking spaces and newlines)."""
    return " ".join(text.replace("\xa0", " ").split())


def about_parts(key: str, value: str) -> list[str]:
    """A front line's value as the lines to show: ``name: what it does`` policies one per line, the rest whole."""
    return [part.strip() for part in re.split(r";\s+(?=[a-z][\w:-]*: )", value)] if key == "policies" else [value]


def knob_value(value: Any) -> str:
    """A knob default as a short word: sequences joined by commas, booleans as on/off."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, tuple | list):
        return ",".join(knob_value(v) for v in value)
    return str(value)


def build_date() -> str:
    """The report date: ``SOURCE_DATE_EPOCH`` when set (reproducible builds), else today (UTC).

    Raises:
        ValueError: naming the variable when it is set to anything but whole seconds a date can show.
    """
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not epoch:
        return dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")
    if not (epoch.isascii() and epoch.isdigit()) or int(epoch) > LAST_EPOCH:
        raise ValueError(
            f"SOURCE_DATE_EPOCH={epoch!r} must be whole seconds since 1970-01-01 (e.g. 1700000000), or unset"
        )
    return dt.datetime.fromtimestamp(int(epoch), dt.UTC).strftime("%Y-%m-%d")


LAST_EPOCH = 253_402_300_799  #: 9999-12-31 23:59:59 UTC, the last moment a date can name


def html_path(pdf: Path) -> Path:
    """The HTML twin of a PDF report: the same name ending in ``.html``."""
    return pdf.with_suffix(".html")
