"""The "Which choices matter?" and "Is there a dominant strategy?" pages (experiments.chapters.choices)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt

from boardlab.experiments.chapters import choices
from boardlab.experiments.chapters.common import answer, local_play, plan_of

GAME = "pantolino"


def test_the_pages_rank_the_restrictions_and_answer_the_dominant_question() -> None:
    questions = choices.questions(GAME, 60, 1, 20)
    plan = plan_of(GAME, questions, 60, 1, 20)
    planned = choices.restrict_plan(GAME, 60, 1, 20)
    cross = choices.cross_plan(GAME, 60, 1, 20)  # the restrictions under the second strong player
    own = [a.label for _, a in planned.arms]
    assert [a.label for a in plan.arms] == own + [a.label for _, a in cross.arms]  # the two questions share arms
    assert all(a.spec.n_games == 30 and a.spec.chunk_size == 20 for a in plan.arms[: len(own)])  # 1/SHARE
    played = answer(plan, questions, local_play())
    matters, dominant = played.pages
    assert matters.title.startswith("Which choices matter? A player who")
    assert list(matters.table["restriction"]) == list(
        choices.played(played.results, planned).restrictions()["restriction"]
    )
    assert (
        matters.notes[2].startswith("Cross-play: every restriction is played again by expert:32")
        and all(n.startswith(("A player who", "What a player who")) for n in matters.notes[3:-1])
        and "Not played: never-steal" in matters.notes[-1]
    )
    assert dominant.title.startswith("Is there a dominant strategy? ") and "learned!" not in dominant.title
    assert "checked against learned; each rule also against expert:32" in dominant.title
    assert dominant.table["policy (simplest first)"].iloc[0] == "random"
    assert matters.finding and dominant.finding
    for page in (matters, dominant):
        fig = plt.figure()
        page.draw(fig)
        assert fig.axes and fig.axes[0].patches  # bars drawn
        plt.close(fig)
