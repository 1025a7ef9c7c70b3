"""The Panots report builds at a small n and reads back with the expected pages; its studies load."""

from __future__ import annotations

import pytest
from pypdf import PdfReader

from boardlab.analysis.report import write_report
from boardlab.experiments.chapters import flow, panots
from boardlab.experiments.spec import load_study, shipped_studies
from tests.analysis.helpers import fewest_expert_games, two_jobs
from tests.analysis.layout import checked_drawing


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    """The chapter, its PDF, and the layout problems of its sheets."""
    mp = pytest.MonkeyPatch()
    mp.setenv("SOURCE_DATE_EPOCH", "1767225600")
    fewest_expert_games(mp)
    try:
        chapter = flow.chapter("panots", 3_000, None, 2026, two_jobs())  # 300 games per table
        with checked_drawing() as layout:
            path = write_report(
                tmp_path_factory.mktemp("report") / "panots.pdf", chapter.heading, chapter.front, chapter.pages
            )
    finally:
        mp.undo()
    return chapter, path, layout


@pytest.fixture(scope="module")
def built(checked):
    return checked[:2]


def test_every_page_lays_out_cleanly(checked) -> None:
    layout = checked[2]
    assert layout.sheets == 15 and layout.problems == [], layout  # no overlapping, clipped or identifier text


def test_report_has_a_front_page_and_one_page_per_question(built) -> None:
    chapter, path = built
    *texts, glossary = [" ".join(page.extract_text().split()) for page in PdfReader(path).pages]
    assert glossary.startswith("Glossary")
    assert len(texts) == 14
    for word in ("Panots", "seed", "2026", "knobs", "greedy", "majority-aware", "planner", "denier", "2026-01-01"):
        assert word in texts[0], word
    assert "boardlab" in texts[0] and "300 per table" in texts[0] and "/ 10" in texts[0]
    assert "face gives the most points" in texts[1] and "Under planner play" in texts[1] and "SD" in texts[1]
    assert "majority" in texts[1] and "diagonal" in texts[1] and "greedy" in texts[1]
    assert "Toward balanced faces" in texts[2] and "face_vp=" in texts[2] and "first-order" in texts[2]
    assert "worth of grabbing first" in texts[3] and "not a rulebook mode" in texts[3] and "fair share" in texts[3]
    assert "among planner players grabbing first wins" in texts[3]
    assert "5-player games" in texts[4] and "head to head" in texts[4] and "majority-aware" in texts[4]
    assert "A greedy player scores" in texts[5] and "with 7" in texts[5] and "planner players score" in texts[5]
    assert "Playing solo" in texts[6] and "master or legend" in texts[6] and "planner" in texts[6]
    assert "Skill matters" in texts[7] and "expert:16" in texts[7]
    assert "The first seat's edge is" in texts[8] and "when everyone plays random" in texts[8]
    assert "the first seat's edge is" in texts[9] and "cards_per_player=" in texts[9]
    assert "What head start makes the second seat fair?" in texts[10] and "grabbing in seat order" in texts[10]
    assert "Which choices matter?" in texts[11] and "A player who" in texts[11]
    assert "Is there a dominant strategy?" in texts[12] and "simplest" in texts[12]
    assert "Which decisions matter? learned and planner part at" in texts[13] and "card (serving" in texts[13]
    assert len(chapter.headlines) == 13 and all("%" in h or "VP" in h for h in chapter.headlines[:9])


def test_plan_gives_every_table_a_tenth_of_n() -> None:
    arms = flow.prepare("panots", panots, 20_000, 2026, chunk=2_000).plan.arms
    labels = [a.label for a in arms]
    assert len(labels) == len(set(labels))
    halves = [a for a in arms if a.label.startswith(("table", "h2h"))]
    shared = ("skill", "by skill", "balance panots tune", "choices", "cross")  # own sizes; tuning: n / 4 a setting
    own = [a for a in arms if not a.label.startswith(shared)]
    assert len(halves) == 5 + 20 and {a.spec.n_games for a in halves} == {1_000}
    assert {a.spec.n_games for a in own if a not in halves} == {2_000}
    assert {len(a.spec.seats) for a in own} == set(range(1, 8))
    assert {a.spec.chunk_size for a in own} == {2_000}  # one chunk size: chunk i of every arm shares its seed
    expert = [a for a in arms if "expert" in a.label]
    assert expert and {a.spec.n_games for a in expert} == {20}  # the skill page's expert pairs: n / 10 / 100


@pytest.mark.parametrize("path", shipped_studies("panots"), ids=lambda p: p.stem)
def test_shipped_studies_load(path) -> None:
    study = load_study(path)
    assert study.game == "panots" and len(study.arms) >= 2


def test_there_are_at_least_two_studies() -> None:
    assert len(shipped_studies("panots")) >= 2
