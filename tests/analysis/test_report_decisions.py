"""The "Which decisions matter?" page (experiments.chapters.decisions): three positions, drawn, ranked, explained."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt

from boardlab.experiments.chapters import decisions
from boardlab.experiments.chapters.common import answer, local_play, plan_of

GAME, N, SEED = "pantolino", 1_000, 2026


def test_the_page_shows_the_three_largest_gaps_drawn_with_every_move_and_why() -> None:
    questions = [decisions.question(GAME, N, SEED)]
    plan = plan_of(GAME, questions, N, SEED, 100)
    assert plan.arms == []  # it plays its own games, no arm
    (page,) = answer(plan, questions, local_play()).pages
    assert page.title.startswith("Which decisions matter? learned and turn-optimal part at ")
    assert page.finding and page.finding in page.title and "points more often (exact)" in page.finding
    gaps = [float(g.split()[0]) for g in page.table["gap, points"]]
    assert len(gaps) == decisions.SHOWN and gaps == sorted(gaps, reverse=True) and gaps[0] > 0
    whys = [n for n in page.notes if n.startswith("#")]
    assert len(whys) == decisions.SHOWN and all("left in the supply" in w for w in whys)
    assert f"{decisions.games_for(N)} games of 2 learned players (seed {SEED})" in page.notes[-1]
    fig = plt.figure(figsize=(11, 5))
    page.draw(fig)
    charts = [ax for ax in fig.axes if ax.get_xlabel()]
    assert len(charts) == decisions.SHOWN
    views = [t.get_text() for sub in fig.subfigs for t in sub.texts if "Supply:" in t.get_text()]
    assert len(views) == decisions.SHOWN  # what the seat sees, in the game's words
    for ax, move in zip(charts, page.table["learned's move"], strict=True):
        labels = [t.get_text() for t in ax.get_yticklabels()]
        assert f"{move}  [learned]" in labels and any(label.endswith("[turn-optimal]") for label in labels)
        assert len(ax.collections) >= 1  # the exact values' diamonds
    plt.close(fig)


def test_games_scale_with_the_chapter_s_games_and_stay_modest() -> None:
    assert [decisions.games_for(n) for n in (100, 1_000, 10_000, 20_000, 1_000_000)] == [2, 2, 5, 10, 10]


def test_playouts_scale_with_the_chapter_s_games_within_their_bounds() -> None:
    assert [decisions.playouts_for(n) for n in (100, 600, 1_000, 4_000, 20_000)] == [20, 30, 50, 200, 200]
    assert decisions.playouts_for(20_000, 100) == 100 and decisions.playouts_for(100, 10) == 10
    assert decisions.question(GAME, 600, SEED).answer.keywords["playouts"] == 30


def test_a_position_with_many_moves_and_long_words_is_drawn_without_overlaps() -> None:
    """Patolli's marker placement: 52 legal squares; Panots's view: a dozen lines. The figure keeps the two
    players' moves and the likeliest others, says how many it left out, and fits the words above the chart."""
    from boardlab.analysis.decision_figure import MOST_MOVES, Panel, draw_positions
    from tests.analysis.layout import problems

    moves = [f"put a safe marker on square {i}" for i in range(52)]
    chance = [0.3 + 0.004 * i for i in range(52)]
    view = [f"Objective {i}: surrounded (2 VP) with blue, red, yellow and flower cards " * 2 for i in range(14)]
    panel = Panel("#1: game 0, turn 3, seat 1: gap +7.0 points", view, moves, chance,
                  [c - 0.1 for c in chance], [c + 0.1 for c in chance], None, 3, 40)  # fmt: skip
    fig = plt.figure(figsize=(11.69 / 3, 5.5), layout="constrained")  # one of a page's three panels
    draw_positions(fig, [panel], "learned", "balanced")
    assert problems(fig) == []
    (chart,) = [ax for ax in fig.axes if ax.get_xlabel()]
    labels = [t.get_text() for t in chart.get_yticklabels()]
    assert len(labels) == MOST_MOVES + 1 and "put a safe marker on square 51" in labels
    assert {"put a safe marker on square 3  [learned]", "put a safe marker on square 40  [balanced]"} <= set(labels)
    assert labels[-1] == "… 38 less likely moves not drawn" and chart.get_xlabel() == "chance to win, % (95% interval)"
    plt.close(fig)
