"""Stopping rules: when a run has played enough. A fixed number of games, or a precision target.

A rule looks at an arm's merged result and says how many games the arm should have in all (whole chunks), or
None when it is done. It depends only on the chunks' results, so a resumed run stops where an uninterrupted
one does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from boardlab.analysis import wording
from boardlab.analysis.summary import Summary
from boardlab.experiments.run.spec import MAX_CHUNKS, MAX_GAMES


class StoppingRule(Protocol):
    """How many games an arm needs in all, given what it has played."""

    def next_games(self, summary: Summary, chunk_size: int) -> int | None:
        """The next total to play (a multiple of ``chunk_size``), or None when the arm is done."""
        ...


@dataclass(frozen=True)
class FixedGames:
    """Play each arm's ``n_games`` and stop."""

    def next_games(self, summary: Summary, chunk_size: int) -> int | None:
        """None: the games asked for are the games played."""
        return None


@dataclass(frozen=True)
class Precision:
    """Add whole chunks until every win rate's 95% half-width is at most ``target`` or ``max_games`` are played.

    Both sole and shared win rates count, so that a cooperative game (where the table's wins are shared) is held
    to the same precision.
    """

    target: float
    max_games: int = 100_000_000

    def __post_init__(self) -> None:
        """Refuse a target outside (0, 0.5)."""
        if not 0 < self.target < 0.5:
            raise ValueError(f"precision={self.target} is out of range; allowed 0 < precision < 0.5")

    def next_games(self, summary: Summary, chunk_size: int) -> int | None:
        """The next total for every win rate to reach the target; None when reached (or at the cap)."""
        from boardlab.analysis import stats

        max_games = min(self.max_games, MAX_GAMES, MAX_CHUNKS * chunk_size)
        if widest_half_width(summary) <= self.target or summary.n_games >= max_games:
            return None
        counts = np.concatenate([summary.wins, summary.shared_wins])
        needed = max(stats.games_for_half_width(self.target, k / summary.n_games) for k in counts)
        total = min(max(needed, summary.n_games + chunk_size), max_games)
        return -(-total // chunk_size) * chunk_size


def widest_half_width(summary: Summary) -> float:
    """The widest 95% Wilson half-width among an arm's sole and shared win rates (what :class:`Precision` bounds)."""
    from boardlab.analysis import stats

    counts = np.concatenate([summary.wins, summary.shared_wins])
    return float(stats.wilson_half_width(counts, summary.n_games).max())


def shortfall(summary: Summary, target: float | None, chunk_size: int) -> str | None:
    """One line when an arm played to ``target`` stopped at its cap of games short of it, else None."""
    if target is None:
        return None
    half = widest_half_width(summary)
    if half <= target:
        return None
    if summary.n_games >= MAX_CHUNKS * chunk_size:
        chunks = f"{MAX_CHUNKS:,} chunks of {wording.count(chunk_size, 'game')}"
        cap = f"{chunks}, the most a run holds: a larger chunk size allows more"
    else:
        cap = "the most games an arm may play to a precision"
    return (
        f"precision {target:g} not reached: stopped at {summary.n_games:,} games ({cap}), "
        f"where the widest 95% half-width is {half:.2g}"
    )


FIXED = FixedGames()
"""The rule of every command that is not given a precision."""


def rule(precision: float | None, max_games: int = 100_000_000) -> StoppingRule:
    """:class:`Precision` when a target is given, else :data:`FIXED`."""
    return FIXED if precision is None else Precision(precision, max_games)
