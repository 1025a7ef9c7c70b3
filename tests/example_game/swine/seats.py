"""Swine seated one decision at a time: every hold-or-roll of a seat passes through a ``decide`` hook.

As in boardlab's own games (``engines/pantolino/seats.py``): a :class:`Seat` builds the decision's
:class:`~swine.decisions.Point` and lets ``decide(point, games, propose)`` choose each row's candidate;
``propose()`` is the wrapped policy's own choice. The public checker reads the game's decision points this way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from boardlab.engines import core
from boardlab.engines.expert import Budget
from swine import solver
from swine.decisions import ROLLOUT, Point
from swine.policies import POLICIES
from swine.rules import HOLD, ROLL, Params, View, play_with

Decide = Callable[[Any, np.ndarray, Callable[[], np.ndarray]], np.ndarray]
__all__ = ["HINT_PLAYOUTS", "ROLLOUT", "Seat", "exact_values", "hint_policy", "instances", "play", "watching"]
HINT_PLAYOUTS: Budget = 400  #: hints' playouts per legal move where no exact values are at hand (ours: under 1 s)
EXACT_POLICY = "win-optimal"  #: hints and reviews play this where the exact solution covers the table


def covered(params: Params, players: int) -> bool:
    """Whether the exact solution covers ``players`` seats under ``params``."""
    try:
        solver.check_supported(params, players)
    except ValueError:
        return False
    return True


def hint_policy(params: Params, players: int) -> str:
    """The default strong player of hints and reviews: ``win-optimal`` where it is exact, else the rollout."""
    return EXACT_POLICY if covered(params, players) else ROLLOUT


def exact_values(point: Point, row: int = 0) -> np.ndarray | None:
    """Each candidate's exact chance to win at ``row`` (NaN if illegal) where the solution covers it, else None."""
    if not covered(point.params, point.players):
        return None
    seat = int(point.seat[row])
    score = point.state.score[row]
    chances = solver.solve(point.params).chances(
        score[seat : seat + 1], score[1 - seat : 2 - seat], point.state.total[row : row + 1]
    )[0]
    return np.where(point.legal()[row], chances, np.nan)


def instances(params: Params, names: Sequence[str], players: int) -> list[object]:
    """One implementation per seat name, shared by seats of the same name (as a run builds them)."""
    return core.policy_instances(POLICIES, list(names), params)


class Seat:
    """A policy implementation whose every decision also goes through ``decide``."""

    def __init__(self, inner: object, decide: Decide, asks: bool) -> None:
        """Wrap ``inner``; ``asks``: the decisions are a person's."""
        self.inner, self.decide_hook, self.asks = inner, decide, asks

    def decide(self, view: View) -> np.ndarray:
        """Roll where the hook chooses candidate 1."""
        point = Point.at(view, POLICIES)
        chosen = self.decide_hook(point, view.state.game, lambda: np.where(self.inner.decide(view), ROLL, HOLD))
        return np.asarray(chosen) == ROLL

    def forced(self, view: View) -> None:
        """Show the hook a turn's compulsory first roll (a point whose one legal candidate is rolling)."""
        point = Point.at(view, POLICIES)
        self.decide_hook(point, view.state.game, lambda: np.full(len(view.state.game), ROLL))


def watching(inner: object, decide: Decide) -> Seat:
    """A seat that plays as ``inner`` does in a run, shown to ``decide``."""
    return Seat(inner, decide, False)


def play(params: Params, seats: Sequence[object], n_games: int, source: core.Source) -> core.Outcome:
    """Play ``n_games`` games with one implementation per seat."""
    return play_with(params, seats, n_games, source)
