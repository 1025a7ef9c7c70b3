"""The Paleolino report builds at a small n, reads back with the expected pages; its studies load."""

from __future__ import annotations

import pytest
from pypdf import PdfReader

from boardlab.analysis.report import write_report
from boardlab.experiments.chapters import flow, paleolino
from boardlab.experiments.spec import load_study, shipped_studies
from tests.analysis.helpers import two_jobs
from tests.analysis.layout import checked_drawing

N = 400


@pytest.fixture(scope="module")
def checked(tmp_path_factory, monkeypatch_module):
    """The chapter, its pages' texts, and the layout problems of its sheets."""
    monkeypatch_module.setenv("SOURCE_DATE_EPOCH", "1767225600")
    chapter = flow.chapter("paleolino", N, None, 2026, two_jobs())
    with checked_drawing() as layout:
        path = write_report(
            tmp_path_factory.mktemp("report") / "paleolino.pdf", chapter.heading, chapter.front, chapter.pages
        )
    *texts, glossary = [page.extract_text() for page in PdfReader(path).pages]
    assert glossary.startswith("Glossary")
    return chapter, texts, layout


@pytest.fixture(scope="module")
def report(checked):
    return checked[:2]


def test_every_page_lays_out_cleanly(checked) -> None:
    layout = checked[2]
    assert layout.sheets == 16 and layout.problems == [], layout  # no overlapping, clipped or identifier text


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def test_front_page_says_what_was_run(report) -> None:
    chapter, texts = report
    assert len(texts) == 15
    for word in (
        "Paleolino",
        "seed",
        "2026",
        "knobs",
        "policies",
        "greedy",
        "planner",
        "expert",
        "Publisher's",
        "Ours",
        "date",
        "2026-01-01",
        "boardlab",
    ):
        assert word in texts[0], word
    arms = flow.prepare("paleolino", paleolino, N, 2026, chunk=N).plan.arms
    games = sum(a.spec.n_games for a in arms)
    assert f"{games:,} in {len(arms)} arms" in texts[0]
    assert len(chapter.headlines) == 14
    assert not any("published rules" in t for t in texts)  # our defaults are never called the publisher's


def test_each_page_title_answers_its_question(report) -> None:
    _, texts = report
    expected = [
        ("With planner play the table wins", "greedy", "random", "the expert", "4 players"),
        ("The easy game lifts", "expert rules", "real experts", "greedy, 2 p"),
        ("Forgetting costs the table", "perfect memory", "no memory", "greedy", "fading"),
        ("Backpacks make the game", "one chip", "help each other"),
        ("Helping is worth", "4 players", "backpack swaps"),
        ("A biased mountain", "even caves", "half the chips", "our default"),
        ("The invention costs we had to guess", "cheap", "dear", "greedy, 2 p"),
        ("Difficulty with planner play", "our defaults", "variant / knobs"),
        ("Skill matters", "random", "planner", "expert", "no memory"),
    ]
    *pages, by_skill, balance, choices, dominant, decides = texts[1:]
    by_skill, choices, dominant, decides = (" ".join(t.split()) for t in (by_skill, choices, dominant, decides))
    assert "The table's win rate is" in by_skill and "when everyone plays random" in by_skill
    assert "learned" in by_skill and "game's length in rounds" in by_skill and "seat" not in by_skill
    assert "Which decisions matter? learned and planner part at" in decides and "the table wins" in decides
    assert "of the table's chance to win per game" in decides and "chips expected" in decides  # never a seat's
    assert "Which choices matter?" in choices and "A table where every player" in choices
    assert "points of table win rate" in choices and "Newcombe" in choices  # cooperative: whole tables
    assert "Is there a dominant strategy?" in dominant and "whole table" in dominant
    flat = " ".join(balance.split())
    assert (
        "table_win_rate" in flat
        and ("comes closest to 0.5" in flat or "detectably closer to 0.5" in flat)
        and "Cooperative" in flat
    )
    assert "simulate tune paleolino" in flat
    for text, words in zip(pages, expected, strict=True):
        flat = " ".join(text.split())
        for word in words:
            assert word in flat, (word, flat[:200])
        assert "%" in flat and "–" in flat  # rates carry their intervals
        assert "Publisher's (rulebook)" in flat and "Ours:" in flat  # every page says whose numbers are whose


def test_planner_and_expert_arms_are_smaller_and_every_arm_played(report) -> None:
    arms = flow.prepare("paleolino", paleolino, N, 2026, chunk=N).plan.arms
    sizes = {a.label: a.spec.n_games for a in arms}
    assert all(n == N // paleolino.PLANNER_SHARE for label, n in sizes.items() if label.startswith("planner"))
    assert all(n == N // paleolino.EXPERT_SHARE for label, n in sizes.items() if label.startswith("expert"))
    heuristic = N // paleolino.HEURISTIC_SHARE
    assert all(n == heuristic for label, n in sizes.items() if label.split(" ")[0] in ("greedy", "random"))
    assert len(sizes) == len(arms)  # labels are unique


def test_precision_runs_hold_the_table_win_rate() -> None:
    from boardlab.analysis import stats
    from boardlab.experiments.run import Precision, local_runner

    planned = flow.prepare("paleolino", paleolino, 200, 2026, chunk=200).plan.arms
    arms = [a for a in planned if a.spec.seats[0] in ("greedy", "random")][:2]
    for result in local_runner().play([a.spec for a in arms], Precision(0.04, 50_000_000)):
        s = result.summary
        assert s.n_games > 200 and s.shared_wins[0] > 0
        assert float(stats.wilson_half_width(s.shared_wins[0], s.n_games)) <= 0.04


@pytest.mark.parametrize("path", shipped_studies("paleolino"), ids=lambda p: p.stem)
def test_shipped_studies_load(path) -> None:
    study = load_study(path)
    assert study.game == "paleolino" and len(study.arms) >= 3 and "won" in study.metrics
