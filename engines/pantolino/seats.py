"""Pantolino seated one decision at a time: every keep and token of a seat passes through a ``decide`` hook.

A :class:`Seat` wraps a policy implementation for the batched engine. At each keep and each token choice it
builds the :class:`~engines.pantolino.decisions.Point` of that decision and hands it to ``decide(point, games,
propose)``, which returns the candidate of every row; ``propose()`` gives the wrapped policy's own candidates.
A seat that asks (a person) never calls its policy; a seat that does not (a named policy) answers exactly what
its policy answers, so a run replayed through seats plays the same games. Keeping every die throws none now
(the engine's reading of stopping): a person is asked again before each throw left.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from boardlab.engines import core
from boardlab.engines.core import Policy
from boardlab.engines.expert import Budget
from boardlab.engines.pantolino import exact, solver
from boardlab.engines.pantolino.decisions import CHOOSE, KEEP, ROLLOUT, Point
from boardlab.engines.pantolino.policies import POLICIES
from boardlab.engines.pantolino.rules import Params, Turn, play_with

Decide = Callable[[Any, np.ndarray, Callable[[], np.ndarray]], np.ndarray]
#: hints' playouts per legal move by table size (ours: hints within 5 s; 8 seats took 4 s at 200)
HINT_PLAYOUTS: Budget = {2: 200, 6: 100}
EXACT_POLICY = "win-optimal"  #: hints and reviews play this where the exact 2-player solution covers the knobs


def hint_policy(params: Params, players: int) -> str:
    """The default strong player of hints and reviews: ``win-optimal`` where it is exact, else the rollout."""
    try:
        solver.check_supported(params, players)
    except ValueError:
        return ROLLOUT
    return EXACT_POLICY


def instances(params: Params, names: Sequence[str], players: int) -> list[object]:
    """One implementation per seat name, shared by seats of the same name (as a run builds them)."""
    return core.policy_instances(POLICIES, list(names), params)


class Seat:
    """A policy implementation whose every decision point also goes through ``decide`` (see the module)."""

    def __init__(self, inner: object, decide: Decide, asks: bool, whole_turns: bool = False) -> None:
        """Wrap ``inner``; ``asks``: the decisions are a person's; ``whole_turns``: keep ``inner``'s sampler.

        With ``whole_turns`` a policy that draws each turn's last throw whole (as runs do) is left to do so, and
        only its token choices are seen; without, every keep is a decision.
        """
        self.inner, self.decide, self.asks, self.whole_turns = inner, decide, asks, whole_turns
        self.policies: Mapping[str, Policy] = POLICIES

    def __getattr__(self, name: str) -> Any:
        """The inner policy's sampler and its key, only when whole turns are drawn."""
        if name in ("sampler", "turn_key") and self.__dict__.get("whole_turns"):
            return getattr(self.inner, name)
        raise AttributeError(name)

    def prepare(self, players: int) -> None:
        """Let the inner policy refuse the table or build its tables."""
        hook = getattr(self.inner, "prepare", None)
        if hook is not None and not self.asks:
            hook(players)

    def keep(self, turn: Turn, code: np.ndarray, rolls_left: int) -> np.ndarray:
        """The kept dice of every game, as decided."""
        games = np.asarray(turn.games)
        if not len(games):
            return code
        point = Point.at(turn, KEEP, code, rolls_left, self.policies)
        options = point.keep_options()
        codes = point.params.tables.codes

        def propose() -> np.ndarray:
            kept = self.inner.keep(turn, code, rolls_left)
            return (codes[np.maximum(options, 0)] == kept[:, None]).argmax(axis=1)

        chosen = self.decide(point, games, propose)
        return codes[options[np.arange(len(chosen)), chosen]]

    def choose(self, turn: Turn, throw: np.ndarray) -> np.ndarray:
        """The decided token of every game (-1 for none)."""
        games = np.asarray(turn.games)
        if not len(games):
            return np.zeros(0, dtype=np.int64)
        point = Point.at(turn, CHOOSE, throw, 0, self.policies)
        n_tokens = point.params.n_tokens

        def propose() -> np.ndarray:
            token = np.asarray(self.inner.choose(turn, throw))
            return np.where(token < 0, n_tokens, token)

        chosen = self.decide(point, games, propose)
        return np.where(chosen == n_tokens, -1, chosen)


def watching(inner: object, decide: Decide) -> Seat:
    """A seat that plays as ``inner`` does in a run (whole turns drawn where it draws them), shown to ``decide``."""
    return Seat(inner, decide, False, whole_turns=True)


def play(params: Params, seats: Sequence[object], n_games: int, source: core.Source) -> core.Outcome:
    """Play ``n_games`` games with one implementation per seat (seats of the same policy share one)."""
    return play_with(params, seats, n_games, source)


def exact_values(point: Point, row: int = 0) -> np.ndarray | None:
    """Every candidate's exact chance to win where the 2-player solution covers the table, else ``None``."""
    return exact.values(point, row) if exact.supported(point) else None
