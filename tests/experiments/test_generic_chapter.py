"""The generic chapter asks what a game declares, and names a winner only when its interval clears the next."""

from __future__ import annotations

from boardlab.experiments.chapters import verdict
from boardlab.experiments.chapters.generic import GenericChapter


def test_the_choices_and_decisions_pages_come_where_a_game_declares_what_they_need() -> None:
    assert GenericChapter("pantolino").restricts() and GenericChapter("pantolino").explains()
    assert not GenericChapter("swine").restricts() and not GenericChapter("swine").explains()


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
    assert "handicap" not in [q.label for q in GenericChapter("swine").questions(100, 1, 50)]
    declared = Handicap("target", "point", "the target moves", (Series("chase", "chase", (0, 5)),), "0..10")
    monkeypatch.setattr(module, "RECORD", dataclasses.replace(record_of(module), handicap=declared))
    assert GenericChapter("swine").handicap() == declared
    assert "handicap" in [q.label for q in GenericChapter("swine").questions(100, 1, 50)]
