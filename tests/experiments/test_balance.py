"""The balance page: game metrics of the default rules and the variants, and a tuning question's best setting."""

from __future__ import annotations

import pytest

from boardlab.engines.record import Balance, Record, Tuning
from boardlab.experiments.chapters import balance
from boardlab.experiments.chapters.common import Plan, local_play, play_pages


@pytest.fixture
def cheap(monkeypatch: pytest.MonkeyPatch) -> None:
    question = Tuning("which rolls?", {"rolls": ("2", "3"), "joker_faces": ("1", "2")}, "first_seat_advantage=0")
    monkeypatch.setattr("boardlab.engines.pantolino.RECORD", Record(balance=Balance("keep-jokers", 2, question)))


def page_for(game: str, n: int) -> tuple:
    plan = Plan(game)
    balance.add_arms(plan, n, 5, n)
    played = play_pages(plan, [balance.page_maker(game)], local_play())
    return plan, played.made[0]


def test_pantolino_page_ranks_the_grid_and_lists_every_variant(cheap: None) -> None:
    from boardlab.engines.pantolino import VARIANTS

    plan, (page, headline) = page_for("pantolino", 1000)
    assert len(plan.arms) == 1 + len(VARIANTS) + 4
    rules = page.table["rules"].tolist()
    assert rules[0] == "default rules" and all(f"variant {v}" in rules for v in VARIANTS)
    assert sum(r.startswith("tuned #") for r in rules) == 3
    assert (
        "the first seat's edge is" in headline
        and "first_seat_advantage" not in headline
        and "none comes detectably closer to 0 than the rest (250 games each; about 1,800 games each" in headline
    )
    assert "simulate tune pantolino" in page.notes[-1]


def test_a_strong_policy_plays_the_default_rules_and_the_grid_again(monkeypatch: pytest.MonkeyPatch) -> None:
    question = Tuning("which rolls?", {"rolls": ("2", "3")}, "first_seat_advantage=0")
    chosen = Balance("keep-jokers", 2, question, strong="turn-optimal")
    monkeypatch.setattr("boardlab.engines.pantolino.RECORD", Record(balance=chosen))
    plan, (page, headline) = page_for("pantolino", 1000)
    strong = [arm for arm in plan.arms if arm.label.startswith("balance pantolino strong ")]
    assert len(strong) == 1 + 2 and all(set(arm.spec.seats) == {"turn-optimal"} for arm in strong)
    rules = page.table["rules"].tolist()
    assert "default rules, everyone turn-optimal" in rules
    assert sum(r.startswith("tuned #") and "under turn-optimal" in r for r in rules) == 2
    assert "when everyone plays turn-optimal it is" in headline
    assert "no setting comes detectably closer than the rest (250 games each; about 380" in headline
    assert "Strong play" in page.notes[-1]


def test_a_cooperative_page_tunes_the_tables_win_rate_and_shows_no_seat_metrics() -> None:
    from boardlab.engines.paleolino import VARIANTS

    question = balance.setup("paleolino").question
    plan, (page, headline) = page_for("paleolino", 400)
    assert len(plan.arms) == 1 + len(VARIANTS) + 12 and len(question.grid["inventions"]) * 3 == 12
    assert list(page.table.columns) == ["rules", "table_win_rate", "duration"]  # no empty seat-metric columns
    assert page.table["table_win_rate"].str.endswith(")").all()  # every rule set has a rate and its interval
    assert sum(r.startswith("tuned #") for r in page.table["rules"]) == 3
    assert "the table's win rate is" in headline and "none comes detectably closer to 0.5" in headline
    command = page.notes[-1].split("A wider search: ")[1]
    assert command.startswith("simulate tune paleolino --policy planner --players 2 --vary 'inventions=")
    assert command.count(";") == 3 and "--vary 'pulls=1,2,3'" in command  # the tuple knob's values split by ';'


def test_a_question_names_long_values_shortly() -> None:
    question = Tuning("?", {"inventions": ("s,w", "b,bb"), "pulls": ("1", "2")}, "x=0", names={"s,w": "a"})
    point = {"inventions": "s,w", "pulls": "2"}
    assert question.describe(point) == "inventions=a, pulls=2" and question.short(point) == "a | 2"
    assert question.short({"inventions": "b,bb", "pulls": "1"}) == "b,bb | 1"


def test_two_equal_settings_name_no_closest_and_say_how_many_games_would_tell(monkeypatch) -> None:
    question = Tuning("which rolls?", {"rolls": ("3", "03")}, "first_seat_advantage=0")  # the same rules twice
    chosen = Balance("keep-jokers", 2, question, strong="greedy")
    monkeypatch.setattr("boardlab.engines.pantolino.RECORD", Record(balance=chosen))
    _, (page, headline) = page_for("pantolino", 400)
    assert "comes closest" not in headline and "rolls=03" not in headline.replace("rolls=3", "")
    assert headline.count("none comes detectably closer") + headline.count("no setting comes detectably") == 2
    assert "100 games each; no practical number of games would tell them apart" in headline  # equal: no gap
    assert sum(r.startswith("tuned #") for r in page.table["rules"]) == 4  # the ranking table stays


def test_a_setting_is_named_closest_only_when_its_interval_clears_the_next() -> None:
    from boardlab.analysis.game_metrics import Value

    def ranked(*objectives):
        return [(Value(*o), f"s{k}", Value(0.1, 0.0, 0.2), None, f"s{k}") for k, o in enumerate(objectives)]

    assert balance.closest(ranked((0.01, 0.0, 0.02), (0.05, 0.03, 0.07)))
    assert not balance.closest(ranked((0.01, 0.0, 0.04), (0.05, 0.03, 0.07)))
    assert balance.closest(ranked((0.01, 0.0, 0.04)))  # one setting: nothing to beat


def test_the_strong_grid_is_checked_under_the_second_strong_player(monkeypatch: pytest.MonkeyPatch) -> None:
    from boardlab.experiments.chapters import crossplay

    question = Tuning("which head start?", {"head_start": ("0", "2")}, "first_seat_advantage=0")  # shipped models
    chosen = Balance("random", 2, question, strong="learned")
    import dataclasses

    from boardlab.engines import pantolino

    monkeypatch.setattr(pantolino, "RECORD", dataclasses.replace(pantolino.RECORD, balance=chosen))  # with its expert
    plan = Plan("pantolino")
    balance.add_arms(plan, 40, 5, 40)
    other = crossplay.second("pantolino")
    grid = [a for a in plan.arms if a.label.startswith(crossplay.LABEL) and a.spec.settings]
    assert [a.spec.settings for a in grid] == [(("head_start", "0"),), (("head_start", "2"),)]
    assert all(set(a.spec.seats) == {other} and a.spec.n_games == 2 for a in grid)
    strong = {a.spec.settings: a.label for a in plan.arms if a.spec.seats == ("learned",) * 2}
    own = Plan("pantolino", [a for a in plan.arms if not a.label.startswith(crossplay.LABEL)])
    results = play_pages(own, [], local_play()).results  # the expert's arms stand in by learned's (cheap)
    results |= {a.label: results[strong[a.spec.settings]] for a in plan.arms if a.label not in results}
    headline = balance.page_maker("pantolino")(results)[1]
    assert f"; under {other} " in headline and "not checked" not in headline
    without = {k: v for k, v in results.items() if k not in {a.label for a in grid}}
    assert "the grid not checked under a second strong player" in balance.page_maker("pantolino")(without)[1]


def test_a_grid_too_costly_for_the_second_strong_player_is_left_unchecked() -> None:
    from boardlab.experiments.chapters import crossplay, flow, pantolino

    def grid_checks(n: int) -> int:
        arms = flow.prepare("pantolino", pantolino, n, 5).plan.arms
        return sum(a.label.startswith(crossplay.LABEL) and ("colours", "5") in a.spec.settings for a in arms)

    assert grid_checks(600) == 3  # the grid's three 5-colour settings, a few games each: affordable
    assert grid_checks(20_000) == 0  # a default report: 9 settings × 62 games × 2 searching seats, over the cap
