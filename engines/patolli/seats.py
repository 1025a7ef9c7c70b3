"""Patolli seated one decision at a time: every move, optional extra move and marker through a ``decide`` hook.

As in :mod:`engines.pantolino.seats`: a :class:`Seat` builds the decision point the expert would search
(:class:`~engines.patolli.decisions.Point`, ``ExtraPoint``, ``MarkerPoint``) and lets ``decide(point, games,
propose)`` choose each row's candidate; ``propose()`` is the wrapped policy's own choice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from boardlab.engines import core
from boardlab.engines.expert import Budget
from boardlab.engines.patolli.decisions import ROLLOUT, ExtraPoint, MarkerPoint, Point, action_of, position_key
from boardlab.engines.patolli.policies import POLICIES
from boardlab.engines.patolli.rules import ONE, U64, Moves, Params, State, play_with

Decide = Callable[[Any, np.ndarray, Callable[[], np.ndarray]], np.ndarray]
HINT_PLAYOUTS: Budget = 200  #: hints' playouts per legal move (ours: hints within 5 s at the largest table)


def hint_policy(params: Params, players: int) -> str:
    """The default strong player of hints and reviews: the expert's rollout policy."""
    return ROLLOUT


def instances(params: Params, names: Sequence[str], players: int) -> list[object]:
    """One implementation per seat name, shared by seats of the same name (as a run builds them)."""
    return core.policy_instances(POLICIES, list(names), params)


class Seat:
    """A policy implementation whose every decision point also goes through ``decide``."""

    def __init__(self, inner: object, decide: Decide, asks: bool) -> None:
        """Wrap ``inner``; ``asks``: the decisions are a person's."""
        self.inner, self.decide, self.asks = inner, decide, asks

    def choose(self, moves: Moves) -> np.ndarray:
        """The decided move of every game, as a single-bit source (0 = enter)."""
        if not len(moves.games):
            return np.zeros(0, dtype=U64)
        point = Point.at(moves, POLICIES)
        chosen = self.decide(point, np.asarray(moves.games), lambda: action_of(self.inner.choose(moves) & moves.legal))
        return np.where(chosen == 0, U64(0), ONE << (np.maximum(chosen, 1) - 1).astype(U64))

    def place(self, params: Params, state: State, step: int, source: core.Source) -> np.ndarray:
        """Every game's square for marker ``step``."""
        position = state.keep_rows(np.arange(len(state.game)))
        key = position_key(source.search_seed, position, np.full(len(state.game), 0x100 + step))
        position.game = np.arange(len(state.game))
        point = MarkerPoint(params, POLICIES, position, step, key)

        def propose() -> np.ndarray:
            square = np.asarray(self.inner.place(params, state, step, source), dtype=np.int64)
            legal = point.legal()
            ok = (square >= 0) & (square < legal.shape[1])
            ok[ok] &= legal[np.flatnonzero(ok), square[ok]]
            return np.where(ok, square, legal.argmax(axis=1))  # as the engine reads an illegal pick

        return self.decide(point, np.asarray(state.game), propose)

    def keep_extra(self, params: Params, state: State, rows: np.ndarray, source: core.Source) -> np.ndarray:
        """Whether each mover of ``rows`` takes the extra move of its grey corner."""
        position = state.keep_rows(rows)
        key = position_key(source.search_seed, position, np.full(len(rows), 15))  # 15: no die face
        position.game = np.arange(len(rows))
        point = ExtraPoint(params, POLICIES, position, key)

        def propose() -> np.ndarray:
            rule = getattr(self.inner, "keep_extra", None)
            take = np.ones(len(rows), dtype=bool) if rule is None else rule(params, state, rows, source)
            return (~np.asarray(take, dtype=bool)).astype(np.int64)

        return self.decide(point, np.asarray(state.game)[rows], propose) == 0


def watching(inner: object, decide: Decide) -> Seat:
    """A seat that plays exactly as ``inner`` does, as in a run, and shows ``decide`` every decision."""
    return Seat(inner, decide, False)


def play(params: Params, seats: Sequence[object], n_games: int, source: core.Source) -> core.Outcome:
    """Play ``n_games`` games with one implementation per seat."""
    return play_with(params, seats, n_games, source)
