"""The Patolli chapter builds at a small n into a PDF with one page per question; its studies load."""

from __future__ import annotations

import numpy as np
import pytest
from pypdf import PdfReader

from boardlab.analysis.report import write_report
from boardlab.engines.patolli import Params, play
from boardlab.experiments.chapters import flow, patolli
from boardlab.experiments.spec import load_study, shipped_studies
from tests.analysis.helpers import fewest_expert_games, two_jobs
from tests.analysis.layout import checked_drawing


@pytest.fixture(scope="module")
def checked(tmp_path_factory) -> tuple[list[str], list[str]]:
    """The texts of the PDF's pages before the glossary, and the layout problems of its sheets."""
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    fewest_expert_games(monkeypatch)
    try:
        chapter = flow.chapter("patolli", 200, None, 2026, two_jobs())
        with checked_drawing() as layout:
            path = write_report(
                tmp_path_factory.mktemp("patolli") / "patolli.pdf", chapter.heading, chapter.front, chapter.pages
            )
    finally:
        monkeypatch.undo()
    assert len(chapter.headlines) == 14
    # titles glue their lines with non-breaking spaces; read them back as plain text
    *texts, glossary = [" ".join(page.extract_text().replace("\xa0", " ").split()) for page in PdfReader(path).pages]
    assert glossary.startswith("Glossary")
    return texts, layout


@pytest.fixture(scope="module")
def pdf_texts(checked) -> list[str]:
    return checked[0]


def test_every_page_lays_out_cleanly(checked) -> None:
    layout = checked[1]
    assert layout.sheets == 16 and layout.problems == [], layout  # no overlapping, clipped or identifier text


def test_front_page_says_what_was_run(pdf_texts) -> None:
    assert len(pdf_texts) == 15
    front = pdf_texts[0]
    for word in ("Patolli", "knobs", "policies", "balanced", "seed", "2026", "date", "2026-01-01", "boardlab", "200"):
        assert word in front, word


def test_one_page_per_question_with_the_answer_in_its_title(pdf_texts) -> None:
    first, policies, markers, bankruptcy, length, variants, tokens, skill, by_skill, balance = pdf_texts[1:11]
    fair, matters, dominant, decides = pdf_texts[11:]
    assert "The first player wins" in first and "balanced players" in first and "p (first = 50%)" in first
    assert "between two learned players" in first
    assert "is the strongest policy" in policies and "games head to head" in policies
    assert "Markers near one start tilt the game: seat 0 wins" in markers and "test layout" in markers
    assert "players' rule" in markers and "random markers" in markers and "players" in markers
    assert "end by bankruptcy" in bankruptcy and "finished race" in bankruptcy and "lost roll" in bankruptcy
    assert "between two learned players" in bankruptcy
    assert "a game lasts" in length and "turns on average" in length and "median" in length
    assert "free overshoot skips" in variants and "capture-proof grey corners" in variants
    assert "grey extra always" in variants and "restricted markers" in variants and "learned vs learned" in variants
    assert "The starting purse decides how games end" in tokens and "40" in tokens
    assert "Skill matters" in skill and "Skill chain" in skill and "expert" in skill
    assert "The first seat's edge is" in by_skill and "everyone plays" in by_skill
    assert (
        "the first seat's edge is" in balance
        and "tokens=" in balance
        and ("comes closest to 0" in balance or "detectably closer to 0" in balance)
    )
    assert "What head start makes the second seat fair?" in fair and "balanced" in fair and "learned" in fair
    assert "Which choices matter?" in matters and "never captures" in matters and "never-enter" in matters
    assert "Is there a dominant strategy?" in dominant and "simplest" in dominant and "balanced" in dominant
    assert "Which decisions matter? learned and balanced part at" in decides and "points more often" in decides
    assert "button(s) home and" in decides and any(f"seat {s} wins" in decides for s in (0, 1))


def test_plan_has_unique_arms_for_every_question() -> None:
    arms = flow.prepare("patolli", patolli, 100, 1, chunk=100).plan.arms
    labels = [a.label for a in arms]
    assert len(labels) == len(set(labels))
    specs = {a.spec for a in arms}
    assert {a.spec.seats for a in arms} >= {(a, b) for a in patolli.POLICY_ORDER for b in patolli.POLICY_ORDER}
    # every contested reading is played by every heuristic, and by the learned player where the page says so
    settings = {(a.spec.seats, a.spec.settings) for a in arms}
    for name, knobs in patolli.RULES.items():
        players = patolli.SELF_PLAY if name in patolli.STRONG_RULES else patolli.POLICY_ORDER
        for policy in players:
            assert any(seats == (policy, policy) and dict(knobs).items() <= dict(s).items() for seats, s in settings)
    strong = [a for a in arms if a.spec.seats == (patolli.STRONG,) * 2 and a.label.startswith(("h2h", "rules"))]
    assert len(strong) == len(patolli.STRONG_RULES) and all(a.spec.n_games == 100 for a in strong)  # as many games
    assert len(specs) < len(labels)  # the ladder's seatings are head-to-head arms: played once
    layouts = {a.spec.settings for a in arms if a.label.startswith("markers ") or a.label == "h2h balanced balanced"}
    assert len(layouts) == len(patolli.LAYOUTS)  # every marker layout is its own run


def test_first_won_flags_the_first_player_winning_alone() -> None:
    out = play(Params(), ["balanced", "random"], 300, np.random.default_rng(7))
    assert (out["first_won"] == (out["winner"] == out["first_player"])).all()


@pytest.mark.parametrize("path", shipped_studies("patolli"), ids=lambda p: p.stem)
def test_shipped_studies_load(path) -> None:
    study = load_study(path)
    assert study.game == "patolli" and len(study.arms) >= 2


def test_at_least_two_studies_ship() -> None:
    assert len(shipped_studies("patolli")) >= 2
