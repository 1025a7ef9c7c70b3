"""What report chapters share (experiments/chapters/common.py): the front page's lines in one order."""

from __future__ import annotations

from boardlab.experiments.chapters.common import Front, Plan, Question, answer, front_page, local_play, plan_of
from boardlab.experiments.run import RunResult


def test_the_front_page_keeps_the_books_order_and_leaves_out_what_a_chapter_does_not_give() -> None:
    lines = front_page(7, Front(reading="r", games="g", policies="p", knobs="k", game="x", closing=("headlines", "h")))
    assert [label for label, _ in lines] == ["game", "knobs", "policies", "games", "seed", "version", "date",
                                             "reading", "headlines"]  # fmt: skip
    assert dict(lines)["seed"] == "7" and dict(lines)["games"] == "g"
    full = front_page(1, Front(game="x", sources="s", knobs="k", policies="p", arms="a", games="g"))
    assert [label for label, _ in full][:6] == ["game", "sources", "knobs", "policies", "arms", "games"]


def _pair(label: str, seats: tuple[str, ...]) -> Question:
    def arms(plan: Plan, n: int, seed: int, chunk: int) -> None:
        plan.add("shared", ["hold-at-20", "hold-at-20"], n, seed, chunk)
        plan.add(label, list(seats), n, seed, chunk)

    def page(results: dict[str, RunResult]) -> tuple[str, str]:
        return f"{label}: {results[label].summary.n_games} and {results['shared'].summary.n_games}", label

    return Question(label, arms, page)


def test_questions_share_an_arm_they_both_need_and_each_answers_from_the_results_by_label() -> None:
    questions = [_pair("one", ("chase", "hold-at-10")), _pair("two", ("hold-at-10", "chase"))]
    plan = plan_of("swine", questions, 40, 3, 20)
    assert [a.label for a in plan.arms] == ["shared", "one", "two"]  # question order; the shared arm once
    played: list[list[str]] = []

    def play(arms):
        played.append([a.label for a in arms])
        return local_play()(arms)

    out = answer(plan, questions, play)
    assert played == [["shared", "one", "two"]] and out.headlines == ["one", "two"]
    assert out.pages == ["one: 40 and 40", "two: 40 and 40"] and out.games == 120
