"""Reports as books, without playing: findings, assumptions, page numbers, `report all`, reproducible builds."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pandas as pd
import pytest
from pypdf import PdfReader
from typer.testing import CliRunner

from boardlab.analysis import plots
from boardlab.analysis.book import Book, Knob, Page, Report, knob_value
from boardlab.analysis.report import write_book, write_report
from boardlab.experiments import reporting
from boardlab.experiments.chapters import flow
from boardlab.experiments.chapters.common import Front, Plan, Question
from boardlab.experiments.cli import app
from boardlab.experiments.run import chunk, local_runner, stopping

EPOCH = {"SOURCE_DATE_EPOCH": "1767225600"}


def _draw(fig) -> None:
    frame = pd.DataFrame({"policy": ["random", "greedy"], "rate": [0.3, 0.7], "lo": [0.25, 0.65], "hi": [0.35, 0.75]})
    plots.interval_bars(frame, "policy", "rate", "lo", "hi", None, "win rate", "policy", fig=fig)


def _page(i: int, **hooks) -> Page:
    return Page(f"Answer {i}: greedy wins 70.0% (65.0–75.0%)", _draw, pd.DataFrame({"a": [i]}), [f"note {i}"], **hooks)


def test_findings_come_from_headlines_or_the_pages_own_and_stop_at_six() -> None:
    pages = [_page(i) for i in range(8)]
    report = Report("R", [], pages, [f"headline {i}" for i in range(8)])
    assert report.findings() == [(f"headline {i}", i) for i in range(6)]
    pages[0].finding, pages[1].finding = "first, in my words", ""
    assert report.findings()[:2] == [("first, in my words", 0), ("headline 2", 2)]
    assert Report("R", [], [_page(0)]).findings() == [("Answer 0: greedy wins 70.0% (65.0–75.0%)", 0)]


def test_assumptions_list_every_default_not_from_the_rulebook_with_the_pages_that_measured_it() -> None:
    knobs = [Knob("dice", "4", "rulebook"), Knob("cost", "3", "ours: a guess"), Knob("odd", "1", "")]
    pages = [_page(0), _page(1, depends_on={"cost": "cost 2 gives 40%"})]
    report = Report("R", [], pages, knobs=knobs)
    rows = report.assumptions()
    assert [(k.name, k.kind, where) for k, where in rows] == [("cost", "ours", [(1, "cost 2 gives 40%")])]
    assert [k.name for k in report.undeclared] == ["odd"]  # listed apart: not known to be the rulebook's
    assert knob_value((2, 3, 4)) == "2,3,4" and knob_value(False) == "off"


def test_a_book_numbers_its_pages_and_the_old_call_keeps_one_page_per_question(tmp_path) -> None:
    one, two = Report("One", [], [_page(0), _page(1)]), Report("Two", [], [_page(2)])
    assert Book([one, two], "Both", pd.DataFrame({"game": ["one", "two"]})).first_pages() == [2, 5]
    assert Book([one, two]).first_pages() == [1, 4]
    path = write_report(tmp_path / "old.pdf", "Old", [("seed", "1"), ("knobs", "a=1")], [_page(0), _page(1)])
    assert len(PdfReader(path).pages) == 3 + 1 and not (tmp_path / "old.html").exists()
    assert "a=1" in PdfReader(path).pages[0].extract_text()


def test_a_failed_build_leaves_the_old_pdf_and_html_pair_whole(tmp_path, monkeypatch) -> None:
    from boardlab.analysis import report_html

    book = Book([Report("One", [], [_page(0)])])
    path = write_book(tmp_path / "r.pdf", book)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert sorted(before) == ["r.html", "r.pdf"]

    def broken(*args, **kwargs) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(report_html, "write", broken)
    with pytest.raises(OSError, match="disk full"):
        write_book(path, Book([Report("Two", [], [_page(1), _page(2)])]))
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # no new PDF beside the old HTML


def test_a_combined_book_nests_its_bookmarks_and_links_each_report(tmp_path, monkeypatch) -> None:
    for key, value in EPOCH.items():
        monkeypatch.setenv(key, value)
    reports = [Report("One", [], [_page(0), _page(1)], name="one"), Report("Two", [], [_page(2)], name="two")]
    book = Book(reports, "Both", pd.DataFrame({"game": ["one", "two"], "luck": ["1", "—"]}))
    reader = PdfReader(write_book(tmp_path / "both.pdf", book))
    assert len(reader.pages) == 6 + 1  # the glossary last
    outline = reader.outline
    assert [o.title for o in outline if not isinstance(o, list)] == ["Games compared", "One", "Two", "Glossary"]
    assert [len(o) for o in outline if isinstance(o, list)] == [2, 1]
    html = (tmp_path / "both.html").read_text()
    assert 'href="#page-2"' in html and 'href="#page-5"' in html and 'id="page-6"' in html


EVENTS: list[tuple] = []  # what the fake chapters, the flow and the counting chunk player saw, in order


def _fake_chapter(game: str):
    """Pantolino's fake chapter has a skill page (its metrics); Paleolino's has none, so `all` plays its ladder."""
    ladder = game == "pantolino"

    def arms(plan: Plan, n: int, seed: int, chunk: int) -> None:
        if ladder:
            plan.add("skill a vs b", ("random", "random"), 20, seed, 10)

    def first(results) -> tuple:
        EVENTS.append(("answer", game))
        metrics = {"luck: weaker policy wins": "2026%"} if ladder else {}
        return _page(0, metrics=metrics), "first finding"

    def questions(n: int, seed: int, chunk: int) -> list[Question]:
        EVENTS.append(("questions", game))
        return [Question("first", arms, first), Question("second", arms, lambda results: (_page(1), "second finding"))]

    def front(done) -> Front:
        return Front(game=f"{game} in short", knobs="none", policies="random", games=f"{done.played.games}")

    return SimpleNamespace(HEADING=f"{game} chapter", questions=questions, front=front)


@pytest.fixture
def fake_chapters(monkeypatch):
    games = {"pantolino": "", "paleolino": ""}
    monkeypatch.setattr(reporting, "chapter_games", lambda: list(games))
    monkeypatch.setattr(reporting, "chapter_module", _fake_chapter)

    def no_standard(game, n, seed, chunk, executor=None) -> list[Question]:
        EVENTS.append(("standard", game))
        return []

    monkeypatch.setattr(flow, "standard_questions", no_standard)
    return games


def test_report_all_builds_one_book_comparing_the_games_and_builds_reproducibly(tmp_path, fake_chapters) -> None:
    runner = CliRunner()
    for name in ("a.pdf", "b.pdf"):
        result = runner.invoke(app, ["report", "all", "-n", "7", "--quiet", "--out", str(tmp_path / name)], env=EPOCH)
        assert result.exit_code == 0, result.output
    assert "- pantolino: first finding" in result.stdout
    a, b = tmp_path / "a.pdf", tmp_path / "b.pdf"
    assert a.read_bytes() == b.read_bytes()
    assert a.with_suffix(".html").read_bytes() == b.with_suffix(".html").read_bytes()
    reader = PdfReader(a)
    assert len(reader.pages) == 1 + 3 + 3 + 1
    overview = " ".join(reader.pages[0].extract_text().split())
    assert "Pantolino" in overview and "Paleolino" in overview and "luck" in overview and "2026%" in overview
    assert "length: rounds per game" in overview and "(cooperative)" in overview  # Paleolino's ladder, played


def test_report_all_plays_every_chapter_on_one_pool_and_each_chunk_once(tmp_path, fake_chapters, monkeypatch) -> None:
    play_chunk = chunk.play_chunk

    def counting(spec, index, size, keep_games=False):
        EVENTS.append(("chunk", spec.game, spec.seats, index))
        return play_chunk(spec, index, size, keep_games)

    monkeypatch.setattr(chunk, "play_chunk", counting)
    EVENTS.clear()
    reporting.build_all(7, None, 2026, local_runner(), tmp_path / "all.pdf", lambda total: _Bar())
    chunks = [e for e in EVENTS if e[0] == "chunk"]
    assert len(set(chunks)) == len(chunks) and {e[1] for e in chunks} == {"pantolino", "paleolino"}
    assert len([e for e in chunks if e[1] == "pantolino"]) == 2  # the fake chapter's arm: 20 games in chunks of 10
    assert EVENTS.index(("answer", "pantolino")) > EVENTS.index(chunks[-1])  # every chunk before any page
    built = sorted(e for e in EVENTS if e[0] in ("questions", "standard"))
    assert built == [(kind, game) for kind in ("questions", "standard") for game in ("paleolino", "pantolino")]


def test_an_arm_stopped_short_of_the_precision_is_named_in_a_warning(tmp_path, fake_chapters, monkeypatch) -> None:
    monkeypatch.setattr(stopping, "MAX_CHUNKS", 2)  # the fake arm's chunks of 10 games: 20 at most
    runner = CliRunner()
    args = ["report", "pantolino", "--precision", "0.001", "--jobs", "1", "--quiet", "--json"]
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "p.pdf")], env=EPOCH)
    assert result.exit_code == 0, result.output
    line = "pantolino arm 'skill a vs b': precision 0.001 not reached: stopped at 20 games (2 chunks of 10 games"
    assert f"warning: {line}" in result.stderr
    [warning] = json.loads(result.stdout)["warnings"]
    assert warning.startswith(line)
    _, _, warnings = reporting.build_all(7, 0.001, 2026, local_runner(), tmp_path / "all.pdf", lambda total: _Bar())
    assert any(w.startswith(line) for w in warnings) and any(w.startswith("paleolino arm") for w in warnings)
    _, _, warnings = reporting.build_all(7, 0.3, 2026, local_runner(), tmp_path / "all.pdf", lambda total: _Bar())
    assert warnings == []  # reached: nothing to say
    plain = runner.invoke(app, ["report", "pantolino", "--jobs", "1", "--quiet", "--out", str(tmp_path / "q.pdf")])
    assert plain.exit_code == 0 and "warning" not in plain.stderr


class _Bar:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def advance(self, games: int) -> None:
        pass


def test_the_comparison_has_a_column_per_metric_any_game_gives_and_the_page_count_last() -> None:
    reports = [
        Report("R", [], [_page(0, metrics={"length": "10"})], name="pantolino"),
        Report("R", [], [_page(0, metrics={"length": "12", "table wins": "80%"})], name="paleolino"),
    ]
    frame = reporting.comparison(reports)
    assert list(frame.columns) == ["game", "length", "table wins", "pages"]
    assert frame["table wins"].tolist() == ["—", "80%"]


def test_every_question_list_is_built_once_per_report(tmp_path, fake_chapters) -> None:
    EVENTS.clear()
    reporting.build_report("pantolino", 7, None, 2026, local_runner(), tmp_path / "one.pdf", lambda total: _Bar())
    built = [e for e in EVENTS if e[0] in ("questions", "standard")]
    assert built == [("questions", "pantolino"), ("standard", "pantolino")]  # the progress bar sized from them too
