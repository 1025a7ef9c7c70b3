"""Pantolino's self-play samples and their exact one-turn backups (the learned player's training).

A sample is the position a turn led to, as its mover saw it (:class:`Recorder`); its first target is the share of
the win the mover went on to get, then (:meth:`SelfPlay.backups`) the exact expectation, over the next mover's whole
turn played by the unit (:mod:`engines.pantolino.unit`), of the model's shares where that turn ends.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from boardlab.engines.learned import training
from boardlab.engines.learned.training import Model
from boardlab.engines.pantolino.features import features_of, n_features, view_of
from boardlab.engines.pantolino.rules import Params, State, Turn, finished, play_with, score, take_token
from boardlab.engines.pantolino.unit import Unit

BACKUP_ROWS = 50_000  #: positions backed up at once (bounds memory)


class Recorder:
    """Plays like ``inner``; records the position every turn led to, itself and as features from its mover's view."""

    def __init__(self, inner: object) -> None:
        """Wrap the policy implementation ``inner``."""
        self.inner = inner
        self.features: list[np.ndarray] = []
        self.games: list[np.ndarray] = []
        self.seats: list[np.ndarray] = []
        self.after: list[State] = []

    def keep(self, turn: Turn, code: np.ndarray, rolls_left: int) -> np.ndarray:
        """The inner policy's keep."""
        return self.inner.keep(turn, code, rolls_left)

    def choose(self, turn: Turn, throw: np.ndarray) -> np.ndarray:
        """The inner policy's token; the position after it is recorded."""
        choice = self.inner.choose(turn, throw)
        after = turn.state.keep_rows(np.arange(len(choice)))
        take_token(Turn(turn.params, turn.players, turn.source, after, turn.mover), choice)
        seen = view_of(turn.params, turn.players, after.owner, after.taken_at, turn.mover)
        self.features.append(features_of(turn.params, seen))
        self.games.append(turn.games)
        self.seats.append(turn.mover)
        self.after.append(after)
        return choice


def concat_states(parts: list[State]) -> State:
    """The rows of several states, in order."""
    return State(*(np.concatenate([getattr(p, name) for p in parts]) for name in State.__slots__))


@dataclass(frozen=True)
class SelfPlay:
    """Training samples for :func:`engines.learned.training.train`: self-play, then exact one-turn backups.

    A sample is the position a turn led to, as its mover saw it. Its first target is the share of the win the mover
    went on to get (a Monte Carlo return; with more than two players every seat's). :meth:`backups` then gives each
    sample the exact expectation, over the next mover's whole turn played to maximise its own model share, of the
    model's shares where that turn ends (fitted value iteration; a finished game's target is its result).
    """

    baseline: type  #: round 0's policy implementation class

    def n_features(self, params: Params, players: int) -> int:
        """See :func:`n_features`."""
        return n_features(params, players)

    def n_outputs(self, players: int) -> int:
        """See :func:`outputs`."""
        return outputs(players)

    def samples(
        self, params: Params, players: int, model: Model | None, n_games: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray, State]:
        """Every turn's resulting position (features and state) and the eventual shares of the win.

        Targets are the viewer's share ``(N,)`` with two players (the rival's is the rest), else every seat's
        ``(N, players)``, column ``i`` the share of the seat ``i`` places after the viewer (:func:`outputs`).
        """
        inner = self.baseline(params) if model is None else Unit(params, {players: model})
        recorder = Recorder(inner)
        out = play_with(params, [recorder] * players, n_games, rng, metrics=False)
        winners = out["winners"].astype(np.float64)
        share = winners / np.maximum(winners.sum(axis=1, keepdims=True), 1)
        games, seats = np.concatenate(recorder.games), np.concatenate(recorder.seats)
        after = concat_states(recorder.after)
        after.game = seats  # the seat whose view the sample takes (the state's own game numbers are not needed)
        relative = (seats[:, None] + np.arange(outputs(players))) % players
        targets = share[games[:, None], relative].astype(np.float32)
        return np.concatenate(recorder.features), targets[:, 0] if players == 2 else targets, after

    def backups(
        self, params: Params, players: int, model: Model, positions: list[State], mapper: training.Mapper
    ) -> np.ndarray:
        """Exact one-turn backups of every position's targets (as :meth:`samples` shapes them), in order.

        The positions are backed up in blocks of :data:`BACKUP_ROWS` (bounded memory), each a job of ``mapper``.
        """
        merged = concat_states(positions)
        blocks = [
            np.arange(lo, min(lo + BACKUP_ROWS, len(merged.game))) for lo in range(0, len(merged.game), BACKUP_ROWS)
        ]
        jobs = [(params, players, model, merged.keep_rows(rows)) for rows in blocks]
        return np.concatenate(list(mapper(self.backup, jobs)))

    def backup(self, params: Params, players: int, model: Model, positions: State) -> np.ndarray:
        """Exact one-turn backups of ``positions``' targets.

        A finished game's target is its result. Otherwise the next mover plays its whole turn to maximise its
        own model share; with two players the target is one minus that turn's expected value, with more the
        expectation of every seat's model share where that turn ends.
        """
        impl = Unit(params, {players: model})
        out = np.empty((len(positions.game), players), dtype=np.float32)
        seats = np.arange(players)
        viewer = positions.game
        done = finished(positions)
        _, _, winners = score(params, positions.owner[done], players)
        shares = winners / winners.sum(axis=1, keepdims=True)
        out[done] = shares[np.arange(done.sum())[:, None], (viewer[done, None] + seats) % players]
        live = positions.keep_rows(~done)
        if len(live.game):
            mover = (live.turn % players).astype(np.int64)
            turn = Turn(params, players, None, live, mover)
            if players == 2:
                out[~done, 0] = 1.0 - impl.turn_value(turn)
            else:
                ahead = impl.turn_shares(turn)  # seats from the mover
                offset = (mover - live.game) % players
                out[~done] = ahead[np.arange(len(mover))[:, None], (seats - offset[:, None]) % players]
        return out[:, 0] if players == 2 else out


def outputs(players: int) -> int:
    """Values a model predicts: the viewer's share with two players, every seat's with more."""
    return 1 if players == 2 else players
