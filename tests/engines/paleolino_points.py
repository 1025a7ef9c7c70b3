"""Paleolino decision points met in play, for tests that inspect one stage at one turn."""

from __future__ import annotations

import numpy as np

from boardlab.engines.paleolino import POLICIES, Params
from boardlab.engines.paleolino.decisions import Point
from boardlab.engines.paleolino.rules import play_with


def points_at(params: Params, stage: int, turn: int, n: int = 200, seed: int = 1) -> Point:
    """The decision points of ``stage`` at ``turn`` of ``n`` planner-played games."""
    found: list[Point] = []

    def capture(point: Point, games: np.ndarray, propose) -> np.ndarray:
        if point.stage == stage and int(point.state.turn[0]) == turn:
            found.append(point.take(np.arange(len(games))))
        return propose()

    player = POLICIES["learned"].impl(params, decide=capture)
    play_with(params, [player, player], n, np.random.default_rng(seed))
    (point,) = found
    return point
