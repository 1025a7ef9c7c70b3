"""The HTML twin of a report: one self-contained file for reading on screen and sharing, that works offline.

The same pages as the PDF, numbered alike (``#page-N``): the front page with its findings, contents, knobs and
Assumptions box, then one section per question with its figure embedded as a PNG data URI and its table as an
HTML table. No script, no external file, no timestamp beyond the report's date: builds are reproducible.
"""

from __future__ import annotations

import base64
import html
import io
import re
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from boardlab.analysis import glossary, plots  # noqa: F401  (plots selects the Agg backend before pyplot is used)
from boardlab.analysis.book import Book, Page, Report, about_parts, flat
from boardlab.analysis.files import atomic_write
from boardlab.analysis.names import display, humanize
from boardlab.analysis.report_pdf import OVERVIEW_NOTE, assumptions_heading, cell, link, short_value
from boardlab.analysis.style import EDGE_COLOR, INK, PALETTE, TINT_COLOR, drawn_for

FIGURE_INCHES = (11.0, 5.4)
DPI = 96

CSS = f"""
body {{ font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: {INK};
  max-width: 1120px; margin: 0 auto; padding: 1rem 1.5rem 4rem; line-height: 1.45; }}
h1 {{ font-size: 1.7rem; margin: 0.4rem 0; }}
h2 {{ font-size: 1.25rem; margin: 0.2rem 0 0.6rem; }}
h3 {{ font-size: 1.05rem; margin: 1rem 0 0.3rem; }}
section {{ border-top: 3px solid {PALETTE[0]}; margin-top: 2.2rem; padding-top: 0.6rem; }}
a {{ color: {PALETTE[0]}; }}
.game {{ color: #444; }}
.columns {{ display: flex; gap: 2rem; flex-wrap: wrap; }}
.columns > div {{ flex: 1 1 430px; min-width: 0; }}
.findings li {{ margin-bottom: 0.45rem; }}
.contents {{ list-style: none; padding-left: 0.5rem; }}
.assumptions {{ background: {TINT_COLOR}; border: 1.5px solid {EDGE_COLOR}; border-radius: 6px; padding: 0.3rem 0.9rem;
  margin: 0.8rem 0; overflow-wrap: anywhere; }}
.assumed {{ background: {TINT_COLOR}; }}
.detail {{ color: #333; margin-top: -0.3rem; }}
.term {{ color: inherit; text-decoration: underline dotted; }}
.meaning {{ color: {PALETTE[0]}; font-style: italic; }}
.notes {{ font-size: 0.88rem; color: #333; }}
.pageno {{ float: right; font-size: 0.8rem; }}
img {{ max-width: 100%; height: auto; display: block; margin: 0.4rem 0; }}
.wide {{ overflow-x: auto; }}
table {{ border-collapse: collapse; font-size: 0.85rem; margin: 0.4rem 0; }}
th, td {{ border: 1px solid #bbb; padding: 0.2rem 0.5rem; text-align: center; overflow-wrap: anywhere; }}
th {{ background: #e3eef7; }}
dl {{ display: grid; grid-template-columns: max-content 1fr; gap: 0.15rem 0.8rem; font-size: 0.9rem; }}
dt {{ font-weight: bold; }}
dd {{ margin: 0; overflow-wrap: anywhere; }}
"""


def _e(text: Any) -> str:
    return html.escape(flat(str(text)))


def figure_uri(page: Page) -> str:
    """The page's figure drawn alone and embedded as a PNG data URI."""
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=FIGURE_INCHES, layout="constrained")
    try:
        page.draw(fig)
        humanize(fig)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    finally:
        plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def table_html(frame: Any) -> str:
    """``frame`` as an HTML table, every row of it (the PDF says how many it leaves to this twin)."""
    head = "".join(f"<th>{_e(display(str(c)))}</th>" for c in frame.columns)
    cells = [[f"<td>{_e(display(cell(v)))}</td>" for v in row] for row in frame.itertuples(index=False)]
    rows = "".join("<tr>" + "".join(row) + "</tr>" for row in cells)
    return f'<div class="wide"><table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>'


def _front(report: Report, number: int) -> str:
    parts = [f'<section id="{link(number)[1:]}"><span class="pageno">p. {number}</span>']
    parts.append(f"<h1>{_e(report.heading)}</h1>")
    game = dict(report.front).get("game")
    if game:
        parts.append(f'<p class="game">{_e(game)}</p>')
    left = ["<h2>What we found</h2>", '<ul class="findings">']
    for text, index in report.findings():
        target = number + 1 + index
        left.append(f'<li>{_e(text)} <a href="{link(target)}">→&nbsp;p.&nbsp;{target}</a></li>')
    left += ["</ul>", "<h3>Contents</h3>", '<ul class="contents">']
    left.append(f'<li><a href="{link(number)}">p.&nbsp;{number} Summary, knobs and assumptions</a></li>')
    for index, page in enumerate(report.pages):
        target = number + 1 + index
        left.append(f'<li><a href="{link(target)}">p.&nbsp;{target} {_e(page.name)}</a></li>')
    left.append("</ul>")
    right = []
    if report.knobs:
        right.append("<h3>Knobs (defaults) and where each comes from</h3>")
        rows = "".join(
            f"<tr{' class=assumed' if k.assumed else ''}><td>{_e(k.name)}</td>"
            f'<td title="{_e(k.value)}">{_e(short_value(k.value))}</td>'
            f"<td>{_e(k.kind)}</td></tr>"
            for k in report.knobs
        )
        right.append(f"<table><thead><tr><th>knob</th><th>default</th><th>source</th></tr></thead>{rows}</table>")
        right.append(_assumptions(report, number))
    right.append("<h3>What was run</h3><dl>")
    for key, value in report.about:
        if key != "game":
            right.append(f"<dt>{_e(key)}</dt><dd>{'<br>'.join(_e(p) for p in about_parts(key, value))}</dd>")
    right.append("</dl>")
    parts.append(f'<div class="columns"><div>{"".join(left)}</div><div>{"".join(right)}</div></div></section>')
    return "".join(parts)


def _assumptions(report: Report, number: int) -> str:
    items = []
    for knob, pages in report.assumptions():
        source = knob.source.split(":", 1)[1].strip()
        where = (
            "; ".join(f'<a href="{link(number + 1 + i)}">p.&nbsp;{number + 1 + i}</a>: {_e(e)}' for i, e in pages)
            if pages
            else "<em>no page of this report measured its effect</em>"
        )
        items.append(f"<li><b>{_e(knob.name)} = {_e(knob.value)}</b> ({_e(knob.kind)}): {_e(source)}. {where}</li>")
    if report.undeclared:
        names = ", ".join(f"{k.name} = {short_value(k.value)}" for k in report.undeclared)
        items.append(f"<li><em>Source not yet declared: {_e(names)}</em></li>")
    body = f"<ul>{''.join(items)}</ul>" if items else "<p><em>every default is the rulebook's</em></p>"
    return f'<div class="assumptions"><h3>{_e(assumptions_heading(report))}</h3>{body}</div>'


def linked_terms(escaped: Sequence[str]) -> list[str]:
    """The page's texts (HTML-escaped) with each glossary term's first use on the page linked to its entry."""
    out = list(escaped)
    for term in glossary.TERMS:
        for i, text in enumerate(out):
            found = term.find(re.sub(r"<[^>]*>", lambda m: " " * len(m[0]), text))  # never inside a tag
            if found:
                link_ = f'<a class="term" href="#{term.anchor}">{found[0]}</a>'
                out[i] = text[: found.start()] + link_ + text[found.end() :]
                break
    return out


def _page(page: Page, number: int, front: int) -> str:
    head, detail = page.headline
    title, detail, meaning, *notes = linked_terms(
        [_e(head), _e(detail), _e(page.so_what), *(_e(note) for note in page.notes)]
    )
    parts = [
        f'<section id="{link(number)[1:]}"><span class="pageno">p. {number} · '
        f'<a href="{link(front)}">back to the summary</a></span>',
        f"<h2>{title}</h2>",
        f'<p class="detail">{detail}</p>' if detail else "",
        f'<img src="{figure_uri(page)}" alt="{_e(page.name)}">',
    ]
    if page.table is not None and len(page.table):
        parts.append(table_html(page.table))
    if page.meaning:
        parts.append(f'<p class="meaning">So what: {meaning}</p>')
    parts += [f'<p class="notes">{note}</p>' for note in notes]
    parts.append("</section>")
    return "".join(parts)


def _glossary(book: Book) -> str:
    entries = "".join(f'<dt id="{t.anchor}">{_e(t.name)}</dt><dd>{_e(t.meaning)}</dd>' for t in book.terms())
    number = book.glossary_page
    return (
        f'<section id="{link(number)[1:]}"><span class="pageno">p. {number}</span>'
        f"<h1>Glossary: the words these pages use</h1><dl>{entries}</dl></section>"
    )


def _overview(book: Book) -> str:
    contents = "".join(
        f'<li><a href="{link(first)}">p.&nbsp;{first} {_e(r.heading)}</a></li>'
        for r, first in zip(book.reports, book.first_pages(), strict=True)
    )
    return (
        f'<section id="{link(1)[1:]}"><span class="pageno">p. 1</span><h1>{_e(book.heading)}</h1>'
        f'{table_html(book.overview)}<h3>Contents</h3><ul class="contents">{contents}</ul>'
        f'<p class="notes">{_e(OVERVIEW_NOTE)}</p></section>'
    )


PAGES_PER_PART = 6
"""Question pages (each with a figure to draw) per task; the parts are drawn apart, in parallel when the caller
can, and joined in order."""


def parts(book: Book) -> list[Callable[[], list[str]]]:
    """Tasks that each write :data:`PAGES_PER_PART` consecutive question pages of ``book``.

    :func:`write` joins their results, in order, with the front pages.
    """
    pages = [
        partial(drawn_for, report.name or None, _page, page, first + 1 + i, first)
        for report, first in zip(book.reports, book.first_pages(), strict=True)
        for i, page in enumerate(report.pages)
    ]
    return [partial(write_sections, pages[i : i + PAGES_PER_PART]) for i in range(0, len(pages), PAGES_PER_PART)]


def write_sections(writers: Sequence[Callable[[], str]]) -> list[str]:
    """The sections ``writers`` write (figures drawn in the twin's style)."""
    import seaborn as sns

    with sns.axes_style("whitegrid"), sns.plotting_context("notebook"):
        return [write() for write in writers]


def render(book: Book, written: Sequence[list[str]] | None = None) -> str:
    """The whole document as one HTML string; ``written``: the results of :func:`parts` (written here if not given)."""
    sections = iter([s for part in (written if written is not None else [t() for t in parts(book)]) for s in part])
    body = [_overview(book)] if book.overview is not None else []
    for report, first in zip(book.reports, book.first_pages(), strict=True):
        body.append(_front(report, first))
        body += [next(sections) for _ in report.pages]
    body.append(_glossary(book))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(book.heading)}</title><style>{CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def write(path: Path, book: Book, written: Sequence[list[str]] | None = None) -> None:
    """Write the HTML twin of ``book`` to ``path`` (atomically); ``written`` as :func:`render` takes it."""
    atomic_write(path, render(book, written).encode("utf-8"))
