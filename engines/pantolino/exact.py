"""Exact chances to win of every candidate at a 2-player base-game decision, from ``win-optimal``'s values.

A candidate's value is the deciding seat's chance of winning if it makes that move and both seats then play
the exact solution. A token's value is one less the opponent's value after it; keeping dice is valued by the
same per-turn dynamic programme the solver uses (keeping every die throws none now and leaves the later throws
open, as in the engine).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from boardlab.engines.pantolino import solver
from boardlab.engines.pantolino.decisions import KEEP, Point
from boardlab.engines.pantolino.rules import Params


def supported(point: Point) -> bool:
    """Whether the exact solution covers the point's knobs and table."""
    try:
        solver.check_supported(point.params, point.players)
    except ValueError:
        return False
    return True


@lru_cache(maxsize=4)
def _solver(params: Params) -> solver.Solver:
    """The solver of ``params``, its table read once per process."""
    return solver.Solver(params, [solver.TABLED])


def values(point: Point, row: int = 0) -> np.ndarray:
    """``(A,)`` chance to win of each candidate of ``row`` (NaN for illegal ones); needs :func:`supported`."""
    exact = _solver(point.params)
    table = exact.table
    mover = int(point.seat[row])
    supply = point.state.supply_bits[row : row + 1]
    boots = point.turn().boots[row]
    d = exact.within(np.array([boots[mover] - boots[1 - mover]], dtype=np.int64))
    take = exact.successor_values(table, supply, d, np.zeros(1, dtype=np.int64))
    stay = 1.0 - table[0, supply, exact.offset - d]
    legal = point.legal()[row]
    if point.stage != KEEP:
        out = np.r_[take[0], stay]
        return np.where(legal, out, np.nan)
    fit = exact.best_fit(take)
    last = np.where(np.isneginf(fit), stay[:, None], fit)  # (1, F): a throw's value when no roll is left
    later = last
    for _ in range(1, point.rolls_left):
        later = (later @ exact.transition.T)[:, exact.options].max(axis=2)
    options = point.keep_options()[row]
    kept = np.maximum(options, 0)
    out = (later @ exact.transition.T)[0, kept]
    return np.where(legal, out, np.nan)


def exact_values(point: Point, row: int = 0) -> np.ndarray | None:
    """Every candidate's exact chance to win where the 2-player solution covers the table, else ``None``.

    Hints and reviews read it (:mod:`engines.seating`: a game's ``exact`` module may offer ``exact_values``).
    """
    return values(point, row) if supported(point) else None
