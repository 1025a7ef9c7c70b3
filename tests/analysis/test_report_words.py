"""Reports in a designer's words: short titles, display names, a glossary, full sentences, no silent cuts, no
overlapping or clipped text (pages drawn without playing)."""

from __future__ import annotations

import pandas as pd
import pytest
from pypdf import PdfReader

from boardlab.analysis import plots, report_html
from boardlab.analysis.book import TITLE_CHARS, Book, Page, Report, split_title
from boardlab.analysis.names import display
from tests.analysis.layout import SNAKE, write_checked

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
    handles, labels = fig.axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncol=2)  # as Patolli's readings page: under the title


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
    assert display("first_seat_advantage") == "first seat's edge"
    assert display("learned!largest-token") == "learned (largest-token)"
    assert display("tune token_values=2,3") == "tune token values=2,3"


def test_every_sheet_lays_out_cleanly_and_the_pdf_says_what_it_cut_and_ends_with_a_glossary(book, tmp_path) -> None:
    pdf = tmp_path / "words.pdf"
    assert write_checked(pdf, book.heading, book.reports[0].front, book.reports[0].pages) == []
    texts = [" ".join(p.extract_text().split()) for p in PdfReader(pdf).pages]
    first = texts[1]
    assert "… 14 more rows in this report's HTML twin" in first and "So what: How fair the rules are." in first
    assert "first seat's edge" in first and not SNAKE.search(first.split("… 14")[0])
    assert "Explained in the glossary (p. 4)" in first and "Markov chain" in first
    assert texts[-1].startswith("Glossary") and "Markov chain" in texts[-1]


def test_the_html_twin_shows_every_row_and_links_each_term_to_the_glossary(book) -> None:
    html = report_html.render(book)
    assert html.count("<tr><td>") == 40 + 1  # every row of the long table, and the short one's
    assert '<a class="term" href="#term-markov-chain">Markov chain</a>' in html and 'id="term-markov-chain"' in html
    assert "first_seat_advantage" not in html and "So what: How fair the rules are." in html
