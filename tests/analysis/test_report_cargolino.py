"""The Cargolino Valentino report builds at a small n and reads back with the expected pages; its studies load."""

from __future__ import annotations

import pytest
from pypdf import PdfReader

from boardlab.experiments.chapters import cargolino, decisions
from boardlab.experiments.spec import load_study, shipped_studies
from tests.analysis.helpers import two_jobs
from tests.analysis.layout import write_checked


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("SOURCE_DATE_EPOCH", "1767225600")
    try:
        chapter = cargolino.build(n_games=400, seed=2026, play=two_jobs())
        path = tmp_path_factory.mktemp("report") / "cargolino.pdf"
        layout = write_checked(path, chapter.heading, chapter.front, chapter.pages)
        assert layout == [], "\n".join(layout)  # no overlapping, clipped or identifier text, short titles
    finally:
        mp.undo()
    return chapter, path


def test_report_has_a_front_page_and_one_page_per_question(built) -> None:
    chapter, path = built
    *texts, glossary = [" ".join(page.extract_text().split()) for page in PdfReader(path).pages]
    assert glossary.startswith("Glossary")
    assert len(texts) == 14
    for word in ("Cargolino", "seed", "2026", "knobs", "policies", "selfish", "detective", "date", "2026-01-01"):
        assert word in texts[0], word
    assert "boardlab" in texts[0]
    assert "first player wins" in texts[1] and "2-player games" in texts[1] and "fair share" in texts[1]
    assert "knowing the deal" in texts[2] and "oracle" in texts[2] and "hindmost" in texts[2]
    assert "Open ownership" in texts[3] and "hindmost" in texts[3]
    assert "A race between detectives" in texts[4] and "rounds per race" in texts[4]
    assert "short track" in texts[5] and "edge" in texts[5]
    assert "Shell shape" in texts[6] and "5/3/1" in texts[6] and "seat edge" in texts[6]
    assert "skill" in texts[7].lower()
    assert "The first seat's edge is" in texts[8] and "when everyone plays random" in texts[8]
    assert "the first seat's edge is" in texts[9] and "races=" in texts[9]
    assert "What head start makes the seats fair?" in texts[10] and "detective" in texts[10] and "learned" in texts[10]
    assert "Which choices matter?" in texts[11] and "A player who" in texts[11] and "own snail" in texts[11]
    assert "Is there a dominant strategy?" in texts[12] and "simplest" in texts[12]
    assert "Which decisions matter? learned and detective part at" in texts[13] and "snail(s)" in texts[13]
    played = decisions.playouts_for(400, cargolino.DECISIONS_PLAYOUTS)  # a slow game: fewer playouts
    assert "from the finish" in texts[13] and f"{played} times" in texts[13]
    assert len(chapter.headlines) == 13


def test_plan_shrinks_the_detective_arms() -> None:
    arms = cargolino.plan(20_000, 2026, 10_000).arms
    labels = [a.label for a in arms]
    assert len(labels) == len(set(labels))
    n = {
        label: sum(a.spec.n_games for a in arms if a.label.startswith(label))
        for label in ("hindmost among detective 4@", "oracle among selfish 4@", "detective among selfish 4@")
    }
    assert n == {
        "hindmost among detective 4@": 2_000,
        "oracle among selfish 4@": 20_000,
        "detective among selfish 4@": 10_000,
    }
    strong = [a for a in arms if a.label.split()[0] in ("strong", "open") and len(a.label.split()) == 2]
    assert strong and all(a.spec.n_games == 2_000 for a in strong)
    assert len(strong) == 10 and all(a.spec.variant == "open-ownership" for a in arms if a.label.startswith("open"))


def test_prior_accuracy_matches_the_engine_readme() -> None:
    assert cargolino.prior_accuracy(4) == pytest.approx(0.28)
    assert cargolino.prior_accuracy(2) == pytest.approx(0.5)


@pytest.mark.parametrize("path", shipped_studies("cargolino"), ids=lambda p: p.stem)
def test_shipped_studies_load(path) -> None:
    study = load_study(path)
    assert study.game == "cargolino" and len(study.arms) >= 2


def test_there_are_at_least_two_studies() -> None:
    assert len(shipped_studies("cargolino")) >= 2
