"""What the report tests share: a chapter's arms played on two processes, kept in memory."""

from __future__ import annotations

from boardlab.experiments.chapters.common import Play
from boardlab.experiments.run import MemoryStore, Runner, open_executor
from boardlab.experiments.study import run_arms


def two_jobs(precision: float | None = None) -> Play:
    """A chapter's ``play``: its arms on this process and one loky worker (to ``precision`` when given)."""

    def play(arms):
        with open_executor("loky", 2) as executor:
            return run_arms(arms, Runner(MemoryStore(), executor), precision).results

    return play
