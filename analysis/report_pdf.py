"""The PDF of a :class:`analysis.book.Book`: A4 landscape sheets drawn with matplotlib, then bookmarks and links.

matplotlib writes every sheet; a text meant as a link carries the URL ``#page-N``. :mod:`pypdf` then turns each
such link into a jump to page N, adds a bookmark for every page (nested under its game in a combined book) and
fixes the metadata, so that two builds with the same ``SOURCE_DATE_EPOCH`` are byte-identical.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from boardlab.analysis import glossary, plots  # plots selects the Agg backend before pyplot is used
from boardlab.analysis.book import TITLE_CHARS, Book, Page, Report, about_parts, flat
from boardlab.analysis.files import atomic_write
from boardlab.analysis.names import display, humanize
from boardlab.analysis.style import EDGE_COLOR, INK, PALETTE, TINT_COLOR, drawn_for

A4_LANDSCAPE = (11.69, 8.27)
MAX_TABLE_ROWS = 26  # rows of a table on its page; a longer one ends with a line saying how many more there are
ROW_INCHES = 0.19  # height of one table row
TIGHT_ROWS = 16  # a table longer than this gets rows of TIGHT_ROW_INCHES
TIGHT_ROW_INCHES = 0.155
NOTE_INCHES = 0.15  # height of one line of notes
LINK = PALETTE[0]
CHAR_WIDTH = 0.58  # average glyph width in ems, to wrap text to a column
LINE = 1.32  # line height in font sizes
OVERVIEW_NOTE = (
    "The columns come from each game's 2-player skill ladder (every pair of the game's policies in both "
    "seatings, the same seed and games per arm as the chapters): its chapter's skill page, or played for this "
    "page when the chapter has none. Balance and length pool every ladder game, so the games are compared under "
    "the same mix of play; skill depth is the chain of clear steps up from random; luck is how often the weaker "
    "policy of a pair wins. The 'everyone learned' columns compare the games under the same strong play: both "
    "seats play the game's learned player (its balance-by-skill page). Intervals are 95%. A cooperative game's "
    "table wins together: it has no seat balance, chain or luck share."
)
BOTTOM_MARGIN = 0.3  # inches
VALUE_CHARS = 34  # of a knob's default in the knobs table
FOOTER_INCHES = 0.22  # the strip under a question page for its number and the link back


def link(number: int) -> str:
    """The in-document address of page ``number`` (1-based), in the PDF and in the HTML twin."""
    return f"#page-{number}"


class Column:
    """Writes wrapped text top-down in a column of a figure, in inches from the top; knows where it stands."""

    def __init__(self, fig: Any, left: float, right: float, top: float) -> None:
        self.fig, self.left, self.right, self.y = fig, left, right, top
        self.width, self.height = fig.get_size_inches()

    def chars(self, size: float, indent: float = 0.0) -> int:
        """How many characters of ``size`` points fit on a line."""
        return max(20, int((self.right - self.left - indent) * 72 / (size * CHAR_WIDTH)))

    def text(
        self, text: str, size: float, indent: float = 0.0, url: str | None = None, hang: float = 0.0, **style: Any
    ) -> None:
        """Write ``text`` wrapped to the column, lines after the first ``hang`` inches further in.

        Each line links to ``url`` when given.
        """
        first, *rest = textwrap.wrap(flat(text), self.chars(size, indent)) or [""]
        self.line(first, size, indent, url, **style)
        for line in textwrap.wrap(" ".join(rest), self.chars(size, indent + hang)):
            self.line(line, size, indent + hang, url, **style)

    def line(self, text: str, size: float, indent: float = 0.0, url: str | None = None, **style: Any) -> Any:
        """Write one line as it is."""
        if url:
            style = {"color": LINK, **style}
        handle = self.fig.text(
            (self.left + indent) / self.width, 1 - self.y / self.height, text, fontsize=size, va="top", url=url, **style
        )
        self.y += size * LINE / 72
        return handle

    def skip(self, inches: float) -> None:
        """Leave a gap."""
        self.y += inches

    @property
    def room(self) -> float:
        """Inches left above the bottom margin."""
        return self.height - BOTTOM_MARGIN - self.y

    @property
    def overflows(self) -> bool:
        """Whether the text ran past the bottom margin."""
        return self.room < 0


def _front_sheet(report: Report, number: int, size: float) -> tuple[Any, bool]:
    """The front page at body font ``size``; returns the figure and whether anything ran off the sheet."""
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=A4_LANDSCAPE)
    head = Column(fig, 0.5, A4_LANDSCAPE[0] - 0.5, 0.45)
    head.text(report.heading, 18, weight="bold", color=INK)
    game = dict(report.front).get("game")
    if game:
        head.text(game, size + 0.5, color="#444444")
    head.skip(0.12)
    middle = A4_LANDSCAPE[0] * 0.5
    left = Column(fig, 0.5, middle - 0.15, head.y)
    right = Column(fig, middle + 0.15, A4_LANDSCAPE[0] - 0.5, head.y)
    _findings(left, report, number, size + 1)
    _contents(left, report, number, size + 0.5)
    if report.knobs:
        _knobs(right, report, size)
        _assumptions(right, report, number, size)
    column = right if about_height(report, right, size) <= right.room else left
    column.skip(0.15 if column is left else 0.0)
    _about(column, report, size, skip_game=True)
    return fig, left.overflows or right.overflows


def _findings(col: Column, report: Report, number: int, size: float) -> None:
    col.line("What we found", size + 3, weight="bold", color=INK)
    col.skip(0.04)
    for text, index in report.findings():
        target = number + 1 + index
        col.text(f"•  {text}  → p. {target}", size, indent=0.05, url=link(target), hang=0.14, color=INK)
        col.skip(0.06)
    col.skip(0.12)


def _contents(col: Column, report: Report, number: int, size: float) -> None:
    col.line("Contents", size + 2.5, weight="bold", color=INK)
    col.skip(0.03)
    col.line(f"p. {number}   Summary, knobs and assumptions", size, url=link(number))
    for index, page in enumerate(report.pages):
        target = number + 1 + index
        col.line(f"p. {target}   {page.name}", size, url=link(target))


def _knobs(col: Column, report: Report, size: float) -> None:
    import matplotlib.patches as mpatches

    col.line("Knobs (defaults) and where each comes from", size + 1.5, weight="bold", color=INK)
    width = col.right - col.left
    step = size * LINE / 72
    for k in report.knobs:
        if k.assumed:
            col.fig.add_artist(
                mpatches.Rectangle(
                    (col.left / col.width, 1 - (col.y + step) / col.height),
                    width / col.width,
                    step / col.height,
                    transform=col.fig.transFigure,
                    facecolor=TINT_COLOR,
                    edgecolor="none",
                    zorder=-1,
                )
            )
        y = col.y
        col.line(k.name, size, weight="bold", gid="code")
        col.y = y
        col.line(short_value(k.value), size, indent=width * 0.38, gid="code")
        col.y = y
        col.line(k.kind, size, indent=width * 0.78, style="italic" if k.assumed else "normal")
    col.skip(0.1)


def short_value(value: str) -> str:
    """A knob's default cut to fit the knobs table (a long list ends in "…")."""
    return value if len(value) <= VALUE_CHARS else value[: VALUE_CHARS - 1] + "…"


def _assumptions(col: Column, report: Report, number: int, size: float) -> None:
    import matplotlib.patches as mpatches

    top = col.y
    col.skip(0.06)
    col.line(assumptions_heading(report), size + 1, weight="bold", indent=0.08)
    for knob, pages in report.assumptions():
        source = knob.source.split(":", 1)[1].strip()
        unmeasured = "" if pages else " (no page of this report measured its effect)"
        line = f"{knob.name} = {knob.value} ({knob.kind}): {source}{unmeasured}"
        col.text(line, size - 0.5, indent=0.08, hang=0.15, gid="code")
        for index, effect in pages:
            col.text(f"→ p. {number + 1 + index}: {effect}", size - 0.5, indent=0.3, url=link(number + 1 + index))
    if report.undeclared:
        names = ", ".join(f"{k.name} = {short_value(k.value)}" for k in report.undeclared)
        col.text(f"Source not yet declared: {names}", size - 0.5, indent=0.08, hang=0.15, style="italic", gid="code")
    if not report.assumptions() and not report.undeclared:
        col.line("every default is the rulebook's", size - 0.5, indent=0.08, style="italic")
    col.skip(0.06)
    col.fig.add_artist(
        mpatches.FancyBboxPatch(
            (col.left / col.width, 1 - col.y / col.height),
            (col.right - col.left) / col.width,
            (col.y - top) / col.height,
            boxstyle="round,pad=0.002",
            transform=col.fig.transFigure,
            facecolor=TINT_COLOR,
            edgecolor=EDGE_COLOR,
            linewidth=1.0,
            zorder=-1,
        )
    )
    col.skip(0.15)


def assumptions_heading(report: Report) -> str:
    """The Assumptions box's heading: how many defaults are not (or not known to be) the rulebook's."""
    count = sum(k.assumed for k in report.knobs)
    return f"Assumptions: {count} default{'s' if count != 1 else ''} not from the rulebook"


def about_height(report: Report, col: Column, size: float) -> float:
    """Inches the "What was run" block needs in ``col`` at body font ``size``."""
    step = (size - 0.5) * LINE / 72
    lines = 0
    for key, value in report.about:
        if key != "game":
            indent = ABOUT_KEY_INCHES
            first = col.chars(size - 0.5, indent)
            rest = col.chars(size - 0.5, indent + 0.12)
            lines += sum(1 + max(0, -(-(len(flat(p)) - first) // rest)) for p in about_parts(key, value))
    return (size + 1.5) * LINE / 72 + lines * step + 0.03 * len(report.about)


ABOUT_KEY_INCHES = 0.8


def _about(col: Column, report: Report, size: float, skip_game: bool) -> None:
    col.line("What was run", size + 1.5, weight="bold", color=INK)
    key_width = ABOUT_KEY_INCHES
    for key, value in report.about:
        if skip_game and key == "game":
            continue
        y = col.y
        col.line(key, size - 0.5, weight="bold")
        col.y = y
        family = "monospace" if key == "command" else None
        for part in about_parts(key, value):
            col.text(part, size - 0.5, indent=key_width, family=family, hang=0.12, gid="code")
        col.skip(0.03)


def front_sheet(report: Report, number: int) -> Any:
    """The front page: findings linked to their pages, contents, knobs, Assumptions box, what was run.

    The body font shrinks a step at a time (down to 6 pt) until everything fits the sheet.
    """
    import matplotlib.pyplot as plt

    for size in (9.0, 8.5, 8.0, 7.5, 7.0, 6.5, 6.0):
        fig, overflow = _front_sheet(report, number, size)
        if not overflow or size == 6.0:
            return fig
        plt.close(fig)
    raise AssertionError("unreachable")


def _table(ax: Any, frame: Any) -> None:
    """Draw ``frame`` as a table filling ``ax``, each column as wide as its longest text needs."""
    ax.axis("off")
    cells = [[display(cell(v)) for v in row] for row in frame.itertuples(index=False)]
    labels = [display(str(c)) for c in frame.columns]
    widths = [max(len(text) for text in column) + 2 for column in zip(labels, *cells, strict=True)]
    table = ax.table(
        cellText=cells,
        colLabels=labels,
        colWidths=[w / sum(widths) for w in widths],
        cellLoc="center",
        bbox=[0, 0, 1, 1],
    )
    table.auto_set_font_size(False)
    size = 7.5 if len(frame.columns) > 7 or len(frame) > TIGHT_ROWS else 8.5
    inches = ax.get_window_extent().width / ax.get_figure(root=True).dpi
    table.set_fontsize(min(size, inches * 72 / (sum(widths) * CHAR_WIDTH)))  # a long table's text fits its cells
    for (row, _), c in table.get_celld().items():
        c.set_edgecolor("#999999")
        if row == 0:
            c.set_facecolor("#e3eef7")


def cell(value: Any) -> str:
    """A table cell as text: floats to four significant figures."""
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) >= 1000 or value == 0 else f"{value:.4g}"
    return str(value)


def more_rows(frame: Any) -> str:
    """The line under a table cut to :data:`MAX_TABLE_ROWS` rows ("" when it is whole)."""
    extra = len(frame) - MAX_TABLE_ROWS
    if extra <= 0:
        return ""
    return f"… {extra} more row{'s' * (extra != 1)} in this report's HTML twin, which shows every row."


def terms_line(page: Page, glossary_page: int | None) -> str:
    """The footer naming the glossary's terms the page uses ("" without a glossary)."""
    terms = glossary.used(page.texts()) if glossary_page else []
    return f"Explained in the glossary (p. {glossary_page}): {', '.join(t.name for t in terms)}" if terms else ""


def question_sheet(page: Page, number: int, front: int, glossary_page: int | None = None) -> Any:
    """Title (the answer), the figure, then the table, what it means and the notes, each given the height it needs.

    A title longer than two lines keeps its headline on top and reads on, smaller, under it.
    """
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    fig = plt.figure(figsize=A4_LANDSCAPE, layout="constrained")
    fig.get_layout_engine().set(rect=(0, FOOTER_INCHES / A4_LANDSCAPE[1], 1, 1 - FOOTER_INCHES / A4_LANDSCAPE[1]))
    head, detail = page.headline
    fig.suptitle("\n".join(textwrap.wrap(head, TITLE_CHARS)), fontsize=15, weight="bold")
    footer = f"p. {number}  ·  back to the summary (p. {front})"
    fig.text(0.99, 0.008, footer, fontsize=7.5, ha="right", va="bottom", color=LINK, url=link(front))
    terms = terms_line(page, glossary_page)
    if terms:
        short = textwrap.shorten(terms, 150, placeholder=" …")
        fig.text(0.01, 0.008, short, fontsize=7.5, va="bottom", color=LINK, url=link(glossary_page or 0))
    table = page.table.head(MAX_TABLE_ROWS) if page.table is not None and len(page.table) else None
    notes = [line for note in page.notes for line in textwrap.wrap(note, 180)]
    if table is not None and more_rows(page.table):
        notes.insert(0, more_rows(page.table))
    meaning = textwrap.wrap(f"So what: {page.so_what}", 150) if page.meaning else []
    row = TIGHT_ROW_INCHES if table is not None and len(table) > TIGHT_ROWS else ROW_INCHES
    table_h = 0.0 if table is None else row * (len(table) + 1)
    meaning_h = 0.19 * len(meaning) + (0.08 if meaning else 0.0)
    notes_h = NOTE_INCHES * len(notes) + (0.1 if notes else 0.0)
    below = table_h + meaning_h + notes_h
    if below == 0:
        top = fig.subfigures(1, 1) if detail else fig
    else:
        top, bottom = fig.subfigures(2, 1, height_ratios=[max(A4_LANDSCAPE[1] - 1.0 - below, 2.5), below])
    if detail:
        top.suptitle("\n".join(textwrap.wrap(detail, 150)), fontsize=10, color="#333333")
        top = top.subfigures(1, 1)  # a figure's legend "outside upper" then stays under the detail, not on it
    page.draw(top)
    humanize(top)
    for ax in top.findobj(Axes):
        plots.slant_crowded_ticks(ax)
    if below == 0:
        return fig
    if table is not None:
        _table(bottom.add_axes((0.0, (notes_h + meaning_h) / below, 1.0, table_h / below)), table)
    if meaning:
        bottom.text(
            0.01, notes_h / below, "\n".join(meaning), fontsize=9.5, va="bottom", color=PALETTE[0], style="italic"
        )
    if notes:
        bottom.text(0.01, 0.0, "\n".join(notes), fontsize=8, va="bottom", color="#333333", gid="notes")
    return fig


def glossary_sheet(book: Book) -> Any:
    """The last page: every term the book's pages use, in plain words."""
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=A4_LANDSCAPE)
    col = Column(fig, 0.5, A4_LANDSCAPE[0] - 0.5, 0.45)
    col.text("Glossary: the words these pages use", 18, weight="bold", color=INK)
    col.skip(0.12)
    for term in book.terms():
        y = col.y
        col.line(term.name, 10, weight="bold", color=INK)
        col.y = y
        col.text(term.meaning, 10, indent=2.2, color=INK)
        col.skip(0.08)
    return fig


def overview_sheet(book: Book) -> Any:
    """The page before the reports of a combined book: one row per report, its name linked to its front page."""
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=A4_LANDSCAPE)
    col = Column(fig, 0.5, A4_LANDSCAPE[0] - 0.5, 0.45)
    col.text(book.heading, 18, weight="bold", color=INK)
    col.skip(0.1)
    frame = book.overview
    ax = fig.add_axes(
        (
            0.04,
            1 - (col.y + ROW_INCHES * 1.6 * (len(frame) + 1)) / A4_LANDSCAPE[1],
            0.92,
            ROW_INCHES * 1.6 * (len(frame) + 1) / A4_LANDSCAPE[1],
        )
    )
    _table(ax, frame)
    col.y += ROW_INCHES * 1.6 * (len(frame) + 1) + 0.3
    col.line("Contents", 12, weight="bold", color=INK)
    for report, first in zip(book.reports, book.first_pages(), strict=True):
        col.line(f"p. {first}   {report.heading}", 10, url=link(first))
    col.skip(0.15)
    col.text(OVERVIEW_NOTE, 8.5, color="#444444")
    return fig


SHEETS_PER_PART = 6
"""Sheets drawn per task: the parts are drawn apart (in parallel when the caller can) and then joined. The split
depends only on the book, so the PDF's bytes do not depend on how many processes drew it."""


def sheets(book: Book) -> list[tuple[Callable[[], Any], str, int | None]]:
    """Every sheet in order: what draws it, its bookmark title and its parent bookmark's index (None: top level)."""
    out: list[tuple[Callable[[], Any], str, int | None]] = []
    if book.overview is not None:
        out.append((partial(overview_sheet, book), "Games compared", None))
    for report, first in zip(book.reports, book.first_pages(), strict=True):
        parent = len(out) if len(book.reports) > 1 else None
        title = report.heading if parent is not None else "Summary, knobs and assumptions"
        out.append((partial(front_sheet, report, first), title, None))
        for index, page in enumerate(report.pages):
            draw = partial(
                drawn_for, report.name or None, question_sheet, page, first + 1 + index, first, book.glossary_page
            )
            out.append((draw, page.name, parent))
    out.append((partial(glossary_sheet, book), "Glossary", None))
    return out


def parts(book: Book) -> list[Callable[[], bytes]]:
    """Tasks that each draw :data:`SHEETS_PER_PART` consecutive sheets of ``book`` as a PDF.

    :func:`write` joins their results in order.
    """
    drawers = [draw for draw, _, _ in sheets(book)]
    return [partial(draw_sheets, drawers[i : i + SHEETS_PER_PART]) for i in range(0, len(drawers), SHEETS_PER_PART)]


def draw_sheets(drawers: Sequence[Callable[[], Any]]) -> bytes:
    """The sheets ``drawers`` draw, as one PDF."""
    import matplotlib.pyplot as plt
    import seaborn as sns
    from matplotlib.backends.backend_pdf import PdfPages

    raw = io.BytesIO()
    with (
        sns.axes_style("whitegrid"),
        sns.plotting_context("paper", font_scale=1.15),
        PdfPages(raw, metadata={"Creator": "boardlab", "CreationDate": None}) as pdf,
    ):
        for draw in drawers:
            fig = draw()
            pdf.savefig(fig)
            plt.close(fig)
    return raw.getvalue()


def write(path: Path, book: Book, drawn: Sequence[bytes] | None = None) -> None:
    """Write ``book`` as a PDF at ``path`` (atomically), with bookmarks and working links.

    ``drawn``: the results of :func:`parts`, in order (drawn here when not given).
    """
    drawn = [task() for task in parts(book)] if drawn is None else drawn
    marks = [(title, parent) for _, title, parent in sheets(book)]
    atomic_write(path, _linked(drawn, marks, book.heading))


def _linked(drawn: Sequence[bytes], marks: Sequence[tuple[str, int | None]], title: str) -> bytes:
    """The PDFs ``drawn`` joined, ``#page-N`` links made jumps, a bookmark per page, and fixed metadata."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import ArrayObject, NameObject

    writer = PdfWriter()
    for part in drawn:
        writer.append(PdfReader(io.BytesIO(part)), import_outline=False)
    pages = writer.pages
    for page in pages:
        for ref in page.get("/Annots", []):
            annot = ref.get_object()
            uri = str(annot.get("/A", {}).get("/URI", ""))
            if uri.startswith("#page-"):
                target = pages[int(uri.removeprefix("#page-")) - 1]
                del annot[NameObject("/A")]
                annot[NameObject("/Dest")] = ArrayObject([target.indirect_reference, NameObject("/Fit")])
    parents: dict[int, Any] = {}
    for index, (name, parent) in enumerate(marks):
        item = writer.add_outline_item(
            title=name, page_number=index, parent=parents.get(parent) if parent is not None else None
        )
        parents[index] = item
    writer.page_mode = "/UseOutlines"
    writer.add_metadata({"/Title": title, "/Creator": "boardlab", "/Producer": "boardlab"})
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
