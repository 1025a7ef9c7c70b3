"""The balance page: game metrics of the default rules and the variants, and a tuning question's best setting."""

from __future__ import annotations

import pytest

from experiments.chapters import balance
from experiments.chapters.common import Plan, play_pages


@pytest.fixture
def cheap(monkeypatch: pytest.MonkeyPatch) -> None:
    question = balance.Question(
        "which rolls?", {"rolls": ("2", "3"), "joker_faces": ("1", "2")}, "first_seat_advantage=0"
    )
    monkeypatch.setitem(balance.SETUPS, "pantolino", balance.Setup("keep-jokers", 2, question))


def page_for(game: str, n: int) -> tuple:
    plan = Plan(game)
    balance.add_arms(plan, n, 5, n)
    played = play_pages(plan, [balance.page_maker(game)], 1, None, None)
    return plan, played.made[0]


def test_pantolino_page_ranks_the_grid_and_lists_every_variant(cheap: None) -> None:
    from engines.pantolino import VARIANTS

    plan, (page, headline) = page_for("pantolino", 1000)
    assert len(plan.arms) == 1 + len(VARIANTS) + 4
    rules = page.table["rules"].tolist()
    assert rules[0] == "default rules" and all(f"variant {v}" in rules for v in VARIANTS)
    assert sum(r.startswith("tuned #") for r in rules) == 3
    assert "first_seat_advantage" in headline and "comes closest to 0" in headline
    assert "simulate tune pantolino" in page.notes[-1]


def test_a_cooperative_game_shows_its_metrics_as_absent() -> None:
    _, (page, headline) = page_for("paleolino", 300)
    assert (page.table["first_seat_advantage"] == "—").all() and (page.table["drama"] == "—").all()
    assert "duration" in headline
