"""Swine's restrictions: choices a player can give up, as masks over its decision points (see engines.restrict).

Each restriction is one rule on what the mover sees (its banked score, the best opponent's, the turn's total),
``rule(own, other, total, params) -> (hold allowed, roll allowed)``. The rule gives both forms a strong player
needs: the mask over a :class:`~swine.decisions.Point`'s candidates (0 hold, 1 roll) that the expert's search
reads, and the ``unit`` that ``win-optimal`` is solved under (:mod:`swine.solver`). A mask reads the point's
``state`` and ``seat`` rather than testing its class, so it applies through any wrapper that passes them on
(:class:`engines.restrict.RestrictedPoint` does). A hold that wins the game is never forbidden.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardlab.engines.restrict import OnPoints, Restriction
from swine.rules import Params
from swine.solver import Rule, WinOptimal


def hold_from(points: int) -> Rule:
    """Holding only with at least ``points`` this turn (or a winning total)."""

    def rule(own: np.ndarray, other: np.ndarray, total: Any, params: Params) -> tuple[np.ndarray, np.ndarray]:
        return np.asarray((total >= points) | (own + total >= params.target)), np.ones(1, dtype=bool)

    return rule


def stop_at(points: int) -> Rule:
    """Rolling only with fewer than ``points`` this turn."""

    def rule(own: np.ndarray, other: np.ndarray, total: Any, params: Params) -> tuple[np.ndarray, np.ndarray]:
        return np.ones(1, dtype=bool), np.asarray(total < points)

    return rule


def mask(rule: Rule) -> Callable[[Any], np.ndarray]:
    """The rule as a ``(B, 2)`` mask over a point's candidates (hold, roll)."""

    def allowed(point: Any) -> np.ndarray:
        state, rows = point.state, np.arange(len(point.seat))
        own = state.score[rows, point.seat]
        others = state.score.copy()
        others[rows, point.seat] = -1
        hold, roll = rule(own, others.max(axis=1), state.total, point.params)
        return np.stack(np.broadcast_arrays(hold, roll, np.zeros(len(rows), dtype=bool))[:2], axis=1)

    return allowed


def restriction(name: str, does: str, rule: Rule) -> Restriction:
    """A restriction whose mask and ``win-optimal`` unit are the one ``rule``."""
    return Restriction(name, does, mask(rule), unit=rule)


#: in the order of how much of the game each removes (ours: every long turn, then holds under 25, under 10)
RESTRICTIONS: dict[str, Restriction] = {
    r.name: r
    for r in (
        restriction("never-roll-at-25", "never rolls on with 25 or more points this turn", stop_at(25)),
        restriction("never-hold-under-25", "never holds under 25 points this turn unless it wins", hold_from(25)),
        restriction("never-hold-under-10", "never holds under 10 points this turn unless it wins", hold_from(10)),
    )
}


@dataclass(frozen=True)
class AllOf:
    """Several rules at once: a move is allowed where every rule allows it (hashable, so solutions are kept)."""

    rules: tuple[Rule, ...]

    def __call__(self, own: np.ndarray, other: np.ndarray, total: Any, params: Params) -> tuple[np.ndarray, ...]:
        """Both masks, each the conjunction of the rules'."""
        masks = [r(own, other, total, params) for r in self.rules]
        return tuple(np.logical_and.reduce([np.asarray(m[i]) for m in masks]) for i in range(2))


def restricted(impl: Any, restrictions: tuple[Restriction, ...]) -> Any:
    """A fresh ``win-optimal`` or ``expert`` implementation that plays under ``restrictions``.

    The expert is the game's seat adapter, whose decide function :class:`engines.restrict.OnPoints` restricts
    (the adapter names it: ``choice``, since Swine's own hook is ``decide(view)``).
    """
    if isinstance(impl, WinOptimal):
        return WinOptimal(impl.params, AllOf(tuple(r.unit for r in restrictions)))
    return OnPoints()(impl, restrictions)
