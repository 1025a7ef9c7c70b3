"""Swine's decision points (``engines.core.DecisionPoint``), and the seat adapter every player decides them through.

A :class:`Point` is a batch of positions before a roll that may be declined: candidate 0 holds, 1 rolls (both
legal once the turn's total is above zero, else rolling only). :meth:`Point.apply` records the decision and
:meth:`Point.play_out` resolves it on the source it is given (a roll is chance), then plays on. Nothing is hidden.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from boardlab.engines import core
from boardlab.engines.core import Policy
from boardlab.engines.seating import Adapter
from swine.rules import HOLD, ROLL, Params, State, View, decide, outcome, play_on, step

ROLLOUT = "chase"  # the expert's playout policy and default move


@dataclass(slots=True)
class Point:
    """Positions at a decision; ``action`` is the decision applied (None before :meth:`apply`)."""

    params: Params
    policies: Mapping[str, Policy]  # the registry playouts resolve their policy names in
    state: State  # ``game`` numbers the rows
    key: np.ndarray  # (B,) uint64
    action: np.ndarray | None = None
    cooperative: bool = False

    @classmethod
    def at(cls, view: View, policies: Mapping[str, Policy]) -> Point:
        """The decision of every row of ``view`` (its state copied)."""
        state = view.state.rows(np.arange(len(view.state.game)))
        position = (state.game.astype(np.uint64) << np.uint64(32)) | (state.rolls.astype(np.uint64) << np.uint64(9))
        key = core.mix64(np.uint64(view.source.search_seed) ^ core.mix64(position | state.turn.astype(np.uint64)))
        state.game = np.arange(len(state.game))
        return cls(view.params, policies, state, key)

    @property
    def players(self) -> int:
        """Seats at the table."""
        return self.state.score.shape[1]

    @property
    def seat(self) -> np.ndarray:
        """The mover of each row."""
        return (self.state.turn % self.players).astype(np.int64)

    def legal(self) -> np.ndarray:
        """``(B, 2)``: holding needs points this turn; rolling is always legal."""
        return np.stack([self.state.total > 0, np.ones(len(self.key), dtype=bool)], axis=1)

    def suggest(self, policy: str) -> np.ndarray:
        """The named policy's candidate (its chance, for ``random``, from streams keyed by the decision)."""
        impls = core.policy_instances(self.policies, [policy] * self.players, self.params)
        return np.where(decide(impls, self.params, self.state, core.StreamSource(self.key)), ROLL, HOLD)

    def take(self, rows: np.ndarray) -> Point:
        """Independent copies of ``rows``."""
        state = self.state.rows(rows)
        state.game = np.arange(len(rows))
        action = None if self.action is None else self.action[rows]
        return Point(self.params, self.policies, state, self.key[rows], action)

    def determinise(self, source: core.Source) -> None:
        """Nothing is hidden."""

    def apply(self, actions: np.ndarray) -> None:
        """Record each row's decision; :meth:`play_out` resolves it."""
        if self.action is not None:
            raise ValueError("a decision point takes one decision")
        self.action = np.asarray(actions, dtype=np.int64).copy()

    def play_out(self, seat_policies: Sequence[str], source: core.Source) -> tuple[np.ndarray, np.ndarray]:
        """Resolve the decision on ``source``, then play to the end; every row's winners and scores."""
        if self.action is None:
            raise ValueError("a decision point is played out after its decision is applied")
        impls = core.policy_instances(self.policies, seat_policies, self.params)
        state = self.state.rows(np.arange(len(self.key)))
        step(self.params, state, self.action == ROLL, source)
        over = ~state.live()
        finished = play_on(self.params, impls, state.rows(np.flatnonzero(~over)), source)
        order = np.argsort(np.concatenate([state.game[over], finished.game]), kind="stable")
        both = outcome(state.rows(np.flatnonzero(over))), outcome(finished)
        winners, score = (np.concatenate([o[column] for o in both])[order] for column in ("winners", "score"))
        return winners, score


HINT_PLAYOUTS = 200  #: hints' playouts per legal move


def hint_policy(params: Params, players: int) -> str:
    """The default strong player of hints and reviews: the expert's rollout policy."""
    return ROLLOUT


class Seat(Adapter):
    """Swine's one translation from its hook to decision points: every hold-or-roll of a seat.

    At each decision the seat builds the :class:`Point` and returns ``choice(point, games, propose)``: the
    search's, a person's or a replay's (see :class:`engines.seating.Adapter`; the decide function is held as
    ``choice`` since the game's own hook is named ``decide``). The public checker reads the points this way.
    """

    hook = "choice"

    def decide(self, view: View) -> np.ndarray:
        """Roll where the decide function chooses candidate 1."""
        point = Point.at(view, self.policies)
        own = lambda: np.where(self.inner.decide(view), ROLL, HOLD)  # noqa: E731
        return np.asarray(self.choice(point, view.state.game, self.offer(point, own))) == ROLL
