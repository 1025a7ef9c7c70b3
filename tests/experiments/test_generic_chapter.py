"""The generic chapter asks what a game declares, and names a winner only when its interval clears the next."""

from __future__ import annotations

from boardlab.experiments.chapters import chapter_module, flow, handicap, verdict
from boardlab.experiments.chapters.generic import GenericChapter


def _labels(game: str) -> list[str]:
    return [q.label for q in flow.prepare(game, chapter_module(game), 100, 1, chunk=50).questions]


def test_the_choices_and_decisions_pages_come_where_a_game_declares_what_they_need(monkeypatch) -> None:
    assert flow.restricts("pantolino") and flow.explains("pantolino")
    from boardlab.engines import get_game

    module = get_game("swine").module
    assert flow.strong_player("swine") == "learned" and flow.restricts("swine") and flow.explains("swine")
    everyone = dict(module.POLICIES)
    monkeypatch.setattr(module, "POLICIES", {k: v for k, v in everyone.items() if k != "learned"})
    # no learned model: its expert is the strong player, spelled as the ladder does
    assert flow.strong_player("swine") == "expert:64" and flow.restricts("swine") and flow.explains("swine")
    assert {"choices", "choices: dominant strategy", "decisions"} <= set(_labels("swine"))
    assert flow.choices_share("swine") == 80  # the searching strong player's restricted play: 250 games a seating
    monkeypatch.setattr(module, "POLICIES", {k: v for k, v in everyone.items() if k not in ("learned", "expert")})
    assert flow.strong_player("swine") is None and not flow.restricts("swine") and not flow.explains("swine")


def test_the_standard_pages_follow_a_chapter_s_own_and_read_their_budgets_from_the_record(monkeypatch) -> None:
    import dataclasses

    from boardlab.engines import get_game
    from boardlab.engines.record import Pages, record_of

    own = ["seats", "length", "metrics", "head to head"]
    standard = ["skill", "by skill", "balance", "choices", "choices: dominant strategy", "decisions"]
    assert _labels("swine") == own + standard  # the generic chapter's balance page in the standard place
    arms = flow.prepare("swine", chapter_module("swine"), 800, 1).plan.arms
    assert {a.spec.n_games for a in arms if a.label.startswith("balance swine default")} == {200}  # 1/4 by default
    module = get_game("swine").module
    monkeypatch.setattr(module, "RECORD", dataclasses.replace(record_of(module), pages=Pages(balance_share=8)))
    arms = flow.prepare("swine", chapter_module("swine"), 800, 1).plan.arms
    assert {a.spec.n_games for a in arms if a.label.startswith("balance swine default")} == {100}


def test_the_decisions_page_plays_its_games_on_the_report_s_executor(monkeypatch) -> None:
    from boardlab.experiments import explain as ex

    seen = []

    def explain(request, executor=None):
        seen.append(executor)
        return ex.Explained(request, 0, ())

    monkeypatch.setattr(ex, "explain", explain)
    executor = object()
    planned = flow.prepare("swine", chapter_module("swine"), 100, 1, executor, chunk=50)
    [question] = [q for q in planned.questions if q.label == "decisions"]
    assert "always chose as" in question.answer({})[1] and seen == [executor]


def test_the_length_page_counts_rounds_with_turns_beside() -> None:
    from boardlab.experiments.chapters.common import local_play
    from boardlab.experiments.run import RunSpec
    from boardlab.experiments.spec import Arm

    chapter = GenericChapter("swine")
    arms = [Arm(f"table {k}", RunSpec("swine", ("chase",) * k, 20, 1, chunk_size=20)) for k in chapter.tables()]
    results = dict(zip([a.label for a in arms], local_play()(arms), strict=True))
    page, title = chapter.length_page(results)
    two = results["table 2"].summary
    rounds, turns = two.mean_rounds()[0], two.mean_turns()[0]
    assert f"2 players {rounds:.1f} rounds (" in title and f"; {turns:.1f} turns)" in title and rounds < turns
    assert list(page.table.columns) == ["players", "mean rounds", "10% / median / 90% (rounds)", "mean turns"]


def test_the_top_rung_is_the_strongest_only_when_its_rating_clears_the_next() -> None:
    from types import SimpleNamespace

    import pandas as pd

    from boardlab.experiments.chapters import by_skill

    def ladder(second_high: float) -> SimpleNamespace:
        rows = [("expert", 300, 250, 350), ("chase", 240, 200, second_high), ("random", 0, 0, 0)]
        return SimpleNamespace(ratings=pd.DataFrame(rows, columns=["policy", "rating", "rating_lo", "rating_hi"]))

    order = ["random", "chase", "expert"]
    assert by_skill._top(order, ladder(245), {}) == "the strongest"
    assert by_skill._top(order, ladder(260), {}) == "the highest rated (not detectably above chase)"


def test_a_verdict_needs_intervals_apart_and_says_how_many_games_would_tell() -> None:
    assert verdict.clears((0.0, 0.02), (0.03, 0.05)) and not verdict.clears((0.0, 0.04), (0.03, 0.05))
    assert verdict.games_to_tell(250, 0.02, 0.06) == 2_250  # intervals narrow as 1/sqrt(games): 250 x 3^2
    assert verdict.games_to_tell(250, 0.0, 0.06) is None and verdict.games_to_tell(250, 1e-9, 0.06) is None
    assert verdict.about(2_250) == "about 2,200 games each would tell"
    assert verdict.about(None) == "no practical number of games would tell them apart"


def test_the_ladder_names_its_best_rated_policy_only_when_its_interval_clears_the_next() -> None:
    import pandas as pd

    from boardlab.experiments.chapters import skill

    def rated(second_high: float) -> pd.DataFrame:
        rows = [("expert", 300, 250, 350), ("greedy", 240, 200, second_high), ("random", 0, 0, 0)]
        return pd.DataFrame(rows, columns=["policy", "rating", "rating_lo", "rating_hi"])

    assert skill.best_rated(rated(245)) == "expert" and skill.best_rated_text(rated(245)) == "The best rated is expert."
    assert skill.best_rated(rated(260)) is None
    assert "No policy is rated detectably best" in skill.best_rated_text(rated(260))


def test_a_declared_handicap_adds_its_page(monkeypatch) -> None:
    import dataclasses

    from boardlab.engines import get_game
    from boardlab.engines.record import Handicap, Series, record_of

    module = get_game("swine").module
    assert "handicap" not in [q.label for q in flow.standard_questions("swine", 100, 1, 50)]
    declared = Handicap("target", "point", "the target moves", (Series("chase", "chase", (0, 5)),), "0..10")
    monkeypatch.setattr(module, "RECORD", dataclasses.replace(record_of(module), handicap=declared))
    assert flow.declared_handicap("swine") == declared
    assert "handicap" in [q.label for q in flow.standard_questions("swine", 100, 1, 50)]


def test_head_to_head_names_one_closest_opponent_only_when_its_share_clears_the_next(monkeypatch) -> None:
    import pandas as pd

    from boardlab.experiments.chapters import generic

    def page(chase_points: int) -> str:
        rows = [  # expert beats everyone; chase and hold-at-20 get close to it, hold-at-10 and random do not
            ("expert", "chase", 2000, 2000 - chase_points),
            ("expert", "hold-at-20", 2000, 1200),
            ("expert", "hold-at-10", 2000, 1500),
            ("expert", "random", 2000, 1900),
            ("chase", "hold-at-20", 2000, 1000),
            ("chase", "hold-at-10", 2000, 1200),
            ("chase", "random", 2000, 1800),
            ("hold-at-20", "hold-at-10", 2000, 1200),
            ("hold-at-20", "random", 2000, 1800),
            ("hold-at-10", "random", 2000, 1700),
        ]
        frame = pd.DataFrame(rows, columns=["policy", "opponent", "games", "points"])
        monkeypatch.setattr(generic.lad, "pairs_table", lambda arms, results: frame)
        policies = ["random", "hold-at-20", "hold-at-10", "chase", "expert"]
        monkeypatch.setattr(generic.skill, "ladder_arms", lambda *a: (policies, [], []))
        return GenericChapter("swine").head_to_head_page({})[1]

    assert "its closest opponents, chase and hold-at-20, are not detectably apart" in page(850)
    assert "its closest opponent, chase, still gets 47.5%" in page(950)


def test_the_head_start_closest_to_fair_is_hedged_when_the_next_is_as_close() -> None:
    import pandas as pd

    from boardlab.engines.record import Handicap, Series

    series = Series("chase", "chase", (0, 5, 10))
    cap = Handicap("target", "point", "the target moves", (series,), "0..10")

    def frame(edge_at_10: float) -> pd.DataFrame:
        rows = [(0, 0.2), (5, 0.08), (10, edge_at_10)]
        return pd.DataFrame([{"play": "chase", "h": h, "edge": e, "low": e - 0.03, "high": e + 0.03} for h, e in rows])

    assert "comes closest to fair, though not detectably closer than 10" in handicap.answer(frame(-0.1), cap, series)
    assert "comes closest to fair (the first" in handicap.answer(frame(-0.2), cap, series)
