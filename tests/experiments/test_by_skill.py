"""The balance-by-skill question (experiments/chapters/by_skill.py): every rung against itself, ordered by skill."""

from __future__ import annotations

import pytest

from boardlab.analysis.game_metrics import Value
from boardlab.experiments.chapters import by_skill, skill
from boardlab.experiments.chapters.common import answer, local_play, plan_of


def built(game: str, n: int) -> tuple[object, str, list[str]]:
    question = by_skill.question(game)
    plan = plan_of(game, [question], n, 5, n)
    page, title = answer(plan, [question], local_play()).made[0]
    return page, title, [a.label for a in plan.arms]


def test_every_rung_plays_itself_and_the_ladder_gives_the_luck_between_neighbours() -> None:
    page, title, labels = built("swine", 200)
    rungs = by_skill.rungs("swine")
    assert {f"by skill {p}" for p in rungs} <= set(labels)
    assert any(label.startswith(skill.LABEL) for label in labels)  # the ladder's own games, for the luck
    table = page.table
    assert sorted(table["everyone plays"]) == sorted(rungs) and table["everyone plays"].iloc[0] == "random"
    assert table["weaker of it and the rung below wins"].iloc[0] == "—"  # the weakest rung has none below
    assert table["weaker of it and the rung below wins"].iloc[1:].str.endswith(")").all()  # "31.0% (27.1–35.2)"
    assert "the first seat's edge is" in title.lower() and "when everyone plays random" in title
    assert "first_seat_advantage" not in title


def test_a_cooperative_game_ranks_its_rungs_by_the_tables_win_rate() -> None:
    page, title, labels = built("paleolino", 40)
    assert not any(label.startswith(skill.LABEL) for label in labels)  # no ladder: the table wins together
    assert list(page.table.columns)[2:] == ["table's win rate", "game's length in rounds"]
    assert title.startswith("The table's win rate is") and "when everyone plays random" in title
    assert page.short == "Difficulty by skill" and "how hard the game is for beginners and for experts" in page.meaning
    assert "by the table's win rate" in page.notes[0]
    learned = page.table[page.table["everyone plays"] == by_skill.STRONG].iloc[0]
    assert list(page.metrics) == ["everyone learned: table wins", "everyone learned: rounds per game"]
    wins, turns = page.metrics.values()  # report all compares the games under the same strong play
    assert float(wins.split("%")[0]) == pytest.approx(float(learned["table's win rate"].split("%")[0]), abs=0.051)
    length = float(learned["game's length in rounds"].split()[0])
    assert turns.split()[0] == f"{length:.1f}"


def test_a_competitive_game_gives_report_all_its_first_player_s_edge_under_strong_play() -> None:
    page, _, _ = built("pantolino", 100)
    learned = page.table[page.table["everyone plays"] == by_skill.STRONG].iloc[0]
    assert list(page.metrics) == [
        "everyone learned: first seat's edge, points",
        "everyone learned: rounds per game",
        "second strong player: first seat's edge, points",  # cross-play: the expert's edge beside learned's
        "the edge under strong play",
    ]
    assert page.metrics["second strong player: first seat's edge, points"].endswith("(everyone expert:32)")
    assert page.metrics["the edge under strong play"] in ("holds under both", "depends on who plays")
    assert "expert:32 (cross-play)" in set(page.table["everyone plays"])  # its own row, beside learned's
    edge = page.metrics["everyone learned: first seat's edge, points"]
    assert float(edge.split()[0]) == pytest.approx(float(learned["first seat's edge"].split("%")[0]), abs=0.051)
    assert edge.startswith("+")  # the first seat leads by far


def test_a_game_without_a_learned_player_adds_no_strong_play_columns(monkeypatch) -> None:
    from boardlab.engines import get_game

    module = get_game("swine").module
    monkeypatch.setattr(module, "POLICIES", {k: v for k, v in module.POLICIES.items() if k != "learned"})
    assert built("swine", 50)[0].metrics == {}


@pytest.mark.parametrize(("a", "b", "moves"), [((0.0, -0.01, 0.01), (0.1, 0.09, 0.11), True),
                                              ((0.0, -0.05, 0.05), (0.02, -0.03, 0.07), False)])  # fmt: skip
def test_a_change_is_reported_only_beyond_the_two_intervals(a, b, moves) -> None:
    assert (by_skill._p_change(Value(*a), Value(*b)) < by_skill.SIGNIFICANT) is moves
