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
from swine.decisions import ROLLOUT, Point
from swine.policies import POLICIES
from swine.rules import HOLD, ROLL, Params, View, play_with

Decide = Callable[[Any, np.ndarray, Callable[[], np.ndarray]], np.ndarray]
__all__ = ["ROLLOUT", "Seat", "instances", "play", "watching"]


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


def watching(inner: object, decide: Decide) -> Seat:
    """A seat that plays as ``inner`` does in a run, shown to ``decide``."""
    return Seat(inner, decide, False)


def play(params: Params, seats: Sequence[object], n_games: int, source: core.Source) -> core.Outcome:
    """Play ``n_games`` games with one implementation per seat."""
    return play_with(params, seats, n_games, source)
