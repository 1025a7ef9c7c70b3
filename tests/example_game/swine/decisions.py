"""Swine's decision points (``engines.core.DecisionPoint``), and the seat adapter every player decides them through.

A :class:`Point` is a batch of positions before a roll that may be declined: candidate 0 holds, 1 rolls (both
legal once the turn's total is above zero, else rolling only). :meth:`Point.apply` records the decision and
:meth:`Point.play_out` resolves it on the source it is given (a roll is chance), then plays on. Nothing is hidden.

:meth:`Point.features` describes a position for a value model (the learned-player hook) and, once a decision is
applied, the position it leads to: after a hold, the next seat's turn before its first roll, encoded exactly as
that seat's turn-start point is (the public checker compares the two); after a roll, the roll still to come.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from boardlab.engines import core
from boardlab.engines.core import Policy
from boardlab.engines.expert import Budget
from boardlab.engines.seating import Adapter
from swine import solver
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
    def stage(self) -> str:
        """``"first roll"`` for a batch of turns' compulsory first rolls (a watched seat sees them), else ``"roll"``."""
        return "first roll" if not self.state.total.any() else "roll"

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

    def features(self, viewer: np.ndarray | None = None) -> np.ndarray:
        """``(B, 5)`` float32 as seat ``viewer[b]`` sees the position (after the applied decision, if any).

        Its banked score and the best other's (over the target), the turn's total (over the target), whether it
        is the viewer's turn, and whether a roll is pending (an applied roll).
        """
        rows, players = np.arange(len(self.key)), self.players
        seat = self.seat if viewer is None else np.asarray(viewer, dtype=np.int64)
        score, total, mover = self.state.score.copy(), self.state.total.copy(), self.seat.copy()
        pending = np.zeros(len(rows), dtype=bool)
        if self.action is not None:
            hold = np.flatnonzero(self.action == HOLD)
            score[hold, mover[hold]] += total[hold]
            total[hold], mover[hold] = 0, (mover[hold] + 1) % players
            pending = self.action == ROLL
        own = score[rows, seat].copy()
        score[rows, seat] = -1
        columns = (own, score.max(axis=1), total, mover == seat, pending)
        scale = np.array([self.params.target] * 3 + [1, 1], dtype=np.float32)
        return (np.stack(columns, axis=1).astype(np.float32) / scale).astype(np.float32)

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

    def forced(self, view: View) -> None:
        """Show the decide function a turn's compulsory first roll (a point whose one legal candidate is rolling)."""
        point = Point.at(view, self.policies)
        self.choice(point, view.state.game, lambda: np.full(len(view.state.game), ROLL))
