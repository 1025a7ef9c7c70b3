"""Reports in a designer's words: short titles, display names, a glossary, full sentences, no silent cuts, no
overlapping or clipped text (pages drawn without playing)."""

from __future__ import annotations

import re

import pandas as pd
import pytest
import seaborn as sns
from pypdf import PdfReader

from analysis import plots, report_pdf
from analysis.book import TITLE_CHARS, Book, Page, Report, split_title
from analysis.names import display
from analysis.report import write_book
from tests.analysis.layout import drawn_texts, problems

SNAKE = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")
LONG_TITLE = (
    "Keeping jokers wins 89.2% (85.8–91.9) of games against rerolling them, with the learned player at 94.0% "
    "(91.2–95.9); a second joker face lifts the chance of a 4-boot turn from 42.8% to 62.5% under the exact "
    "Markov chain over dice, and the Elo ratings agree"
)


def _draw(fig) -> None:
    """A figure in a chapter's raw words: identifiers as ticks, axis labels and legend entries."""
    frame = pd.DataFrame(
        {
            "metric": ["first_seat_advantage", "drama", "lead_changes", "first_seat_advantage"],
            "policy": ["learned!largest-token", "learned!largest-token", "turn-optimal", "turn-optimal"],
            "value": [0.1, 0.3, 0.2, 0.15],
        }
    )
    frame["lo"], frame["hi"] = frame["value"] - 0.05, frame["value"] + 0.05
    ylabel = "games won by a player trailing at mid-game, as a share of all the games played (fraction)"
    plots.interval_bars(frame, "metric", "value", "lo", "hi", "policy", ylabel, "skill_depth", fig=fig)


def _pages() -> list[Page]:
    long_table = pd.DataFrame({"first_seat_advantage": range(40), "token_values": ["2,3,4"] * 40})
    return [
        Page(LONG_TITLE, _draw, long_table, ["note: 95% interval"], meaning="how fair the rules are"),
        Page("Regret is small: 1.0 point (0.5–1.5)", _draw, pd.DataFrame({"lead_changes": [1.0]})),
    ]


@pytest.fixture(scope="module")
def book() -> Book:
    return Book([Report("Words", [("game", "a test")], _pages())])


def test_a_long_title_keeps_two_lines_of_headline_and_reads_on_under_it() -> None:
    head, rest = split_title(LONG_TITLE)
    assert head == LONG_TITLE.split(";")[0] and len(head) > TITLE_CHARS
    assert rest.startswith("a second joker face")
    assert split_title("Short: 1.0 (0.5–1.5)") == ("Short: 1.0 (0.5–1.5)", "")


def test_identifiers_read_as_words() -> None:
    assert display("first_seat_advantage") == "first player's edge"
    assert display("learned!largest-token") == "learned, restricted to largest-token"
    assert display("tune token_values=2,3") == "tune token values=2,3"


def test_every_sheet_has_no_overlap_no_clipping_no_identifier_and_short_titles(book) -> None:
    with sns.axes_style("whitegrid"), sns.plotting_context("paper", font_scale=1.15):
        for draw, name, _ in report_pdf.sheets(book):
            fig = draw()
            assert problems(fig) == [], name
            shown = [t.get_text() for t, _ in drawn_texts(fig)]
            assert not [s for s in shown if SNAKE.search(s)], name
            if fig._suptitle is not None:
                assert all(len(line) <= TITLE_CHARS for line in fig._suptitle.get_text().splitlines())


def test_the_pdf_says_what_it_cut_ends_with_a_glossary_and_writes_full_sentences(book, tmp_path) -> None:
    pdf = write_book(tmp_path / "words.pdf", book)
    texts = [" ".join(p.extract_text().split()) for p in PdfReader(pdf).pages]
    first = texts[1]
    assert "… 14 more rows in this report's HTML twin" in first and "39" not in first.split("… 14")[0][-40:]
    assert "So what: How fair the rules are." in first
    assert "first player's edge" in first and not SNAKE.search(first.split("… 14")[0])
    assert "Explained in the glossary (p. 4)" in first and "Markov chain" in first
    assert texts[-1].startswith("Glossary") and "Markov chain" in texts[-1] and "Regret" not in texts[-1][:30]
    html = pdf.with_suffix(".html").read_text()
    assert html.count("<tr><td>") == 40 + 1  # every row of the long table, and the short one's
    assert '<a class="term" href="#term-markov-chain">Markov chain</a>' in html and 'id="term-markov-chain"' in html
