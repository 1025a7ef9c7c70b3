"""Cargolino seated one die at a time: every (snail, die) choice of a seat through a ``decide`` hook.

As in :mod:`engines.pantolino.seats`. A seat's decision point is built from what the seat knows: a seat that
keeps a belief over the deal (a person, whose inner policy is the believing ``detective``, or a believing
policy) gets a point whose other snail owners are a draw from that belief, never the true deal; a policy that
reads the deal gets the true one (as its own search would).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from boardlab.engines import core
from boardlab.engines.cargolino.decisions import ROLLOUT, Point
from boardlab.engines.cargolino.policies import POLICIES
from boardlab.engines.cargolino.rules import N_SNAILS, Params, Step, play_with
from boardlab.engines.expert import Budget

Decide = Callable[[Any, np.ndarray, Callable[[], np.ndarray]], np.ndarray]
HINT_PLAYOUTS: Budget = 200  #: hints' playouts per legal move (ours: hints within 5 s at the largest table)


def hint_policy(params: Params, players: int) -> str:
    """The default strong player of hints and reviews: the expert's rollout policy."""
    return ROLLOUT


def instances(params: Params, names: Sequence[str], players: int) -> list[object]:
    """One implementation per seat name, shared by seats of the same name (as a run builds them)."""
    return core.policy_instances(POLICIES, list(names), params)


def _spread(values: np.ndarray, live: np.ndarray, rows: np.ndarray | slice, n: int) -> np.ndarray:
    """A full-length array holding ``values[live]`` at the state rows ``rows[live]`` (what a Step indexes)."""
    out = np.zeros(n, dtype=values.dtype)
    out[np.arange(n)[rows][live]] = values[live]
    return out


class Seat:
    """A policy implementation whose every die decision also goes through ``decide``."""

    def __init__(self, inner: object, decide: Decide, asks: bool) -> None:
        """Wrap ``inner``; ``asks``: the decisions are a person's."""
        self.inner, self.decide, self.asks = inner, decide, asks

    def __getattr__(self, name: str) -> Any:
        """Whether the inner policy keeps a belief, and its weights: the engine keeps the belief for the seat."""
        if name in ("believes", "weights"):
            return getattr(self.__dict__["inner"], name)
        raise AttributeError(name)

    def choose(self, step: Step) -> tuple[np.ndarray, np.ndarray]:
        """The decided (snail, colour) of every game; snail -1 where no die can move a snail."""
        snail = np.full(len(step.mover), -1, dtype=np.int64)
        colour = np.zeros(len(step.mover), dtype=np.int64)
        live = np.flatnonzero((step.legal != 0).any(axis=1))
        if not len(live):
            if not self.asks:
                return self.inner.choose(step)  # the policy may still draw what it draws every turn
            return snail, colour
        n = len(step.state.game)
        rows = np.arange(n)[step.rows][live]
        sub = Step(
            step.table,
            step.state,
            rows,
            _spread(step.mover, live, step.rows, n),
            _spread(step.own, live, step.rows, n),
            _spread(step.code, live, step.rows, n),
            step.die,
        )
        point = Point.at(sub, POLICIES, truth=not getattr(self.inner, "believes", False))

        def propose() -> np.ndarray:
            inner_snail, inner_colour = self.inner.choose(step)  # every row, as the policy draws for every row
            return inner_snail[live] * N_SNAILS + inner_colour[live]

        chosen = self.decide(point, np.asarray(step.games)[live], propose)
        snail[live], colour[live] = chosen // N_SNAILS, chosen % N_SNAILS
        return snail, colour


def watching(inner: object, decide: Decide) -> Seat:
    """A seat that plays exactly as ``inner`` does, as in a run, and shows ``decide`` every decision."""
    return Seat(inner, decide, False)


def play(params: Params, seats: Sequence[object], n_games: int, source: core.Source) -> core.Outcome:
    """Play ``n_games`` games with one implementation per seat."""
    return play_with(params, seats, n_games, source)
