"""What the report tests share: a chapter's arms played on two processes, kept in memory; few expert games."""

from __future__ import annotations

import pytest

from boardlab.experiments.chapters import crossplay, skill
from boardlab.experiments.chapters.common import Play
from boardlab.experiments.run import MemoryStore, Runner, open_executor
from boardlab.experiments.study import run_arms

FEWEST = 10**9
"""A share of the games no test's ``n`` reaches: every arm it divides plays its floor (1 or 2 games)."""


def two_jobs(precision: float | None = None) -> Play:
    """A chapter's ``play``: its arms on this process and one loky worker (to ``precision`` when given)."""

    def play(arms):
        with open_executor("loky", 2) as executor:
            return run_arms(arms, Runner(MemoryStore(), executor), precision).results

    return play


def fewest_expert_games(mp: pytest.MonkeyPatch) -> None:
    """Until ``mp`` is undone, every arm with the expert in a seat plays its fewest games.

    Cross-play arms (the tuning grid's and the choices page's too) and the by-skill page's searching rungs play 2
    games, a skill-ladder seating 1. A report test checks pages, layout and wording, which these arms feed as well
    at 2 games as at 30; the figures' sizes are the chapters' plan tests' and :mod:`tests.experiments.test_crossplay`'s.
    An expert game costs about half a CPU-second at a report test's small batches whatever its budget: most of the
    Pantolino report's arm time (161 of its 227 expert games at n = 600 are saved).
    """
    mp.setattr(crossplay, "SHARE", FEWEST)
    mp.setattr(crossplay, "SLOW_SHARE", 2 * FEWEST)  # still apart: a game whose expert is slow is still told apart
    mp.setattr(skill, "EXPERT_SHARE", FEWEST)
