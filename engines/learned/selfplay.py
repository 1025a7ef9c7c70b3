"""Self-play samples for any game with decision points and the ``Featured`` hook.

A :class:`SelfPlay` is a :class:`~engines.learned.training.Sampler`: it plays a chunk of games through the game's
batched engine, with every seat deciding through one :class:`Recorder` (the game's :class:`Table` builds such a
seat). In round 0 the recorder takes the baseline's choice (``propose()``, the seat's own policy), later the
learned choice of the model so far (:func:`engines.learned.choice.choose`); in every round, with probability
``explore``, a uniform legal candidate instead (so that positions the policy avoids get values too; such choices
are always recorded). At each decision with two or more legal candidates it records the features of the chosen
candidate's resulting position for the deciding seat, with the game and the seat; when the games are over each
record's target is that seat's share of the win (``1/k`` for a win shared by ``k``; cooperative: the table's win).
With ``lam`` below 1, :meth:`SelfPlay.backup` then gives each record the λ-return along its seat's records in that
game under the model just fitted (Sutton 1988, TD(λ) as fitted targets): ``G_t = (1 - λ) V(s_{t+1}) + λ G_{t+1}``,
the last record's ``G`` being the return. A game's returns are one coin flip for dozens of positions; the
bootstrapped targets average the luck of the rest of the game out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from boardlab.engines import core
from boardlab.engines.core import DecisionPoint, Params
from boardlab.engines.expert import seat_reward
from boardlab.engines.learned.choice import choose
from boardlab.engines.learned.model import ValueModel
from boardlab.engines.learned.training import Mapper

Decide = Callable[[Any, np.ndarray, Callable[[], np.ndarray]], np.ndarray]
"""``decide(point, games, propose)``: each row's candidate; ``games`` numbers the rows' games in the outcome,
``propose()`` is the seat's own policy's choice."""
BACKUP_ROWS = 100_000  #: records valued at once (bounds memory)


class Table(Protocol):
    """How a game seats self-play: a seat whose every decision point goes through a recorder, and a run."""

    def seat(self, params: Params, players: int, recorder: Recorder) -> object:
        """A policy implementation whose decisions are ``recorder``'s (``propose()``: the baseline's).

        A seat may make some choices itself (a game's own exploration) and hand them to ``recorder.record``.
        """
        ...

    def play(self, params: Params, seats: Sequence[object], n_games: int, source: core.Source) -> core.Outcome:
        """Play ``n_games`` games, one implementation per seat; the outcome has ``winners`` ``(n, players)``."""
        ...


class Recorder:
    """A ``decide`` hook that decides by the model (or the baseline) and records what each choice led to."""

    def __init__(self, model: ValueModel | None, keep: float, explore: float, rng: np.random.Generator) -> None:
        """Record each decision with a real choice with probability ``keep``; explore with ``explore`` (``rng``)."""
        self.model, self.keep, self.explore, self.rng = model, keep, explore, rng
        self.features: list[np.ndarray] = []
        self.games: list[np.ndarray] = []
        self.seats: list[np.ndarray] = []
        self.cooperative = False

    def __call__(self, point: DecisionPoint, games: np.ndarray, propose: Callable[[], np.ndarray]) -> np.ndarray:
        """Each row's choice; the resulting positions of the recorded rows are kept as samples."""
        chosen = propose() if self.model is None else choose(point, self.model)
        legal = point.legal()
        real = legal.sum(axis=1) >= 2
        draws = self.rng.random((len(chosen), 3))
        wild = np.flatnonzero(real & (draws[:, 1] < self.explore))
        if len(wild):  # a uniform legal candidate: the k-th legal one
            k = (draws[wild, 2] * legal[wild].sum(axis=1)).astype(np.int64)
            chosen[wild] = (np.cumsum(legal[wild], axis=1) > k[:, None]).argmax(axis=1)
        self.record(point, games, chosen, real & ((draws[:, 0] < self.keep) | (draws[:, 1] < self.explore)))
        return chosen

    def mix(self, point: DecisionPoint, chosen: np.ndarray, share: float) -> np.ndarray:
        """``chosen`` (a game's own choices, e.g. a baseline's), the model's choice instead in a ``share`` of rows.

        For decisions a game's table keeps off the model for variety (Patolli's markers, placed at random): alone,
        the values of what they lead to assume every later such choice is as random, the other seats' too, so a
        seat's choice can rely on an answer the model's own play never gives (a private convention). With a share
        of the model's answers among them, the values pay for what the model answers. Nothing changes before the
        first model (``model`` None) or with ``share`` 0.
        """
        if self.model is None or not share:
            return chosen
        rows = np.flatnonzero(self.rng.random(len(chosen)) < share)
        if len(rows):
            chosen[rows] = choose(point.take(rows), self.model)
        return chosen

    def record(self, point: DecisionPoint, games: np.ndarray, chosen: np.ndarray, rows: np.ndarray) -> None:
        """Keep the positions ``chosen`` leads to in the rows of mask ``rows`` (a game's own choices may come here)."""
        rows = np.flatnonzero(rows)
        if len(rows):
            after = point.take(rows)
            after.apply(chosen[rows])
            seat = point.seat[rows]
            self.features.append(after.features(seat))
            self.games.append(np.asarray(games)[rows])
            self.seats.append(seat)
        self.cooperative = point.cooperative

    def trajectories(self, winners: np.ndarray, width: int, players: int) -> Trajectories:
        """Every record, in the order taken, with its seat's share of the win of its game."""
        if not self.features:
            return Trajectories(np.zeros((0, width), np.float32), np.zeros(0, np.int64), np.zeros(0, np.float32))
        games, seats = np.concatenate(self.games), np.concatenate(self.seats)
        returns = seat_reward(winners[games], seats, self.cooperative).astype(np.float32)
        return Trajectories(np.concatenate(self.features), games * players + seats, returns)


@dataclass(frozen=True)
class Trajectories:
    """Records in the order taken: features, whose they are (one id per game and seat), and the returns."""

    features: np.ndarray  # (N, n_features) float32
    owner: np.ndarray  # (N,) int64: game × players + seat, unique within the merged records
    returns: np.ndarray  # (N,) float32


def merge(parts: list[Trajectories]) -> Trajectories:
    """The records of several chunks, in order, their owners kept apart."""
    offsets = np.cumsum([0] + [int(p.owner.max(initial=-1)) + 1 for p in parts[:-1]])
    return Trajectories(
        np.concatenate([p.features for p in parts]),
        np.concatenate([p.owner + o for p, o in zip(parts, offsets, strict=True)]),
        np.concatenate([p.returns for p in parts]),
    )


def lambda_returns(values: np.ndarray, returns: np.ndarray, owner: np.ndarray, lam: float) -> np.ndarray:
    """``G_t = (1 - lam) V(s_{t+1}) + lam G_{t+1}`` along each owner's records in order; the last ``G``: its return."""
    n = len(owner)
    order = np.lexsort((np.arange(n), owner))  # each owner's records together, in the order taken
    v, g = values[order].astype(np.float64), returns[order].astype(np.float64)
    ends = np.flatnonzero(np.r_[owner[order][1:] != owner[order][:-1], True])
    depth = ends[np.searchsorted(ends, np.arange(n))] - np.arange(n)  # records after this one
    by_depth = np.argsort(depth, kind="stable")
    bounds = np.searchsorted(depth[by_depth], np.arange(int(depth.max(initial=0)) + 2))
    for d in range(1, len(bounds) - 1):
        rows = by_depth[bounds[d] : bounds[d + 1]]
        g[rows] = (1 - lam) * v[rows + 1] + lam * g[rows + 1]
    out = np.empty(n, dtype=np.float32)
    out[order] = g
    return out


@dataclass(frozen=True)
class SelfPlay:
    """Training samples by self-play through ``table`` (see the module docstring)."""

    table: Table
    width: Callable[[Params, int], int]  #: features of one position, for these knobs and players
    keep: float = 1.0  #: the share of decisions with a real choice recorded (a game's samples are correlated)
    lam: float = 1.0  #: the λ of the backed-up targets; 1: the returns only (no backup)
    explore: float = 0.0  #: the share of real choices made uniformly at random (positions the policy avoids)

    def n_features(self, params: Params, players: int) -> int:
        """Features of one position."""
        return self.width(params, players)

    def n_outputs(self, players: int) -> int:
        """One value per position: the deciding seat's share of the win."""
        return 1

    def samples(
        self, params: Params, players: int, model: ValueModel | None, n_games: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray, Trajectories]:
        """Play ``n_games`` (the baseline when ``model`` is None); each recorded position and its seat's share."""
        recorder = Recorder(model, self.keep, self.explore, np.random.default_rng(rng.integers(1 << 63)))
        seat = self.table.seat(params, players, recorder)  # one instance: every seat's rows decided at once
        out = self.table.play(params, [seat] * players, n_games, core.as_source(rng))
        winners = np.asarray(out["winners"], dtype=bool)
        records = recorder.trajectories(winners, self.width(params, players), players)
        return records.features, records.returns, records

    def backups(
        self, params: Params, players: int, model: ValueModel, positions: list[Trajectories], mapper: Mapper
    ) -> np.ndarray | None:
        """The λ-returns under ``model`` of the chunks' records (``None`` when ``lam`` is 1), here: they are cheap."""
        return self.backup(model, merge(positions))

    def backup(self, model: ValueModel, positions: Trajectories) -> np.ndarray | None:
        """The λ-returns under ``model`` of ``positions`` (``None`` when ``lam`` is 1)."""
        if self.lam >= 1.0:
            return None
        values = np.concatenate(
            [
                model.predict(positions.features[lo : lo + BACKUP_ROWS])
                for lo in range(0, len(positions.owner), BACKUP_ROWS)
            ]
        )
        return lambda_returns(values, positions.returns, positions.owner, self.lam)
