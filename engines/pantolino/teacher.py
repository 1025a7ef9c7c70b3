"""Training Pantolino's 3-player learned player from a teacher: the exact best reply to two ``turn-optimal`` rivals.

Self-play's targets (returns, then one-turn backups under the model so far) leave the 3-player network about two points
below that reply (the README). Where the reply can be solved (:func:`engines.pantolino.response.solvable`: 3 players,
the base game, at most 12 million positions), training fits the network to the reply's exact values instead. A sample is
a candidate the learned unit compares at a turn: the position after each token the mover could take, and after taking
nothing, as the mover sees it; its target is the mover's share there when it plays the reply from then on (the network's
one output). Samples come from games of one recorded seat among two ``turn-optimal`` rivals, the seat rotating over the
three places: half of them played by the reply itself, half by the learner (``turn-optimal`` in round 0, the model
fitted so far in later rounds), so the fit also meets the positions the learner reaches (dataset aggregation, DAgger:
Ross, Gordon and Bagnell 2011, with values as labels).

The reply is solved once and cached (:func:`engines.pantolino.response.cached_solution`; about three minutes on two
cores and 1.7 GB at default knobs): the first of a pool's workers to ask solves it while the others wait, then each
reads it once (:func:`reply_for`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from boardlab.engines.learned.training import Model
from boardlab.engines.pantolino import learned, response
from boardlab.engines.pantolino.rules import Params, Turn, play_with


@lru_cache(maxsize=1)
def reply_for(params: Params) -> response.BestReply:
    """The best reply of ``params``, read from the cache (or solved) on first use in this process."""
    return response.BestReply(params, response.cached_solution(params))


class Recording:
    """Plays like ``inner``; at each of its token choices records every candidate's features and teacher value."""

    def __init__(self, inner: object, reply: response.BestReply) -> None:
        """Wrap the policy implementation ``inner``; ``reply`` values the candidates."""
        self.inner, self.reply = inner, reply
        self.features: list[np.ndarray] = []
        self.targets: list[np.ndarray] = []

    def prepare(self, players: int) -> None:
        """Prepare the inner policy."""
        if hasattr(self.inner, "prepare"):
            self.inner.prepare(players)

    def keep(self, turn: Turn, code: np.ndarray, rolls_left: int) -> np.ndarray:
        """The inner policy's keep."""
        return self.inner.keep(turn, code, rolls_left)

    def choose(self, turn: Turn, throw: np.ndarray) -> np.ndarray:
        """The inner policy's token; this turn's candidates are recorded (those the mover could reach)."""
        view = learned.candidate_views(turn)
        n, width = view.supply.shape[:2]
        features = learned.features_of(turn.params, view).reshape(n, width, -1)
        take, stay = self.reply.successors(turn)
        values = np.concatenate([take, stay[:, None]], axis=1)
        reachable = np.isfinite(values)
        self.features.append(features[reachable])
        self.targets.append(values[reachable].astype(np.float32))
        return self.inner.choose(turn, throw)


@dataclass(frozen=True)
class Taught:
    """Training samples for :func:`engines.learned.training.train` whose targets are the best reply's values."""

    baseline: type  #: the learner in round 0 (``turn-optimal``); rivals always play it

    def n_features(self, params: Params, players: int) -> int:
        """See :func:`engines.pantolino.learned.n_features`."""
        return learned.n_features(params, players)

    def n_outputs(self, players: int) -> int:
        """One: the mover's share under the reply."""
        return 1

    def samples(
        self, params: Params, players: int, model: Model | None, n_games: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray, None]:
        """The candidates of the recorded seat's turns and their values: half the games the reply's, half the learner's.

        The games are split as evenly as whole games allow over (reply, learner) × the recorded seat's three places.

        Raises:
            ValueError: for knobs or players the teacher cannot solve.
        """
        if not response.solvable(params, players):
            raise ValueError(f"the {learned.TEACHER} teacher needs 3 players and the base game ({players} given)")
        reply = reply_for(params)
        rival = self.baseline(params)  # one for every seat and group: its keep tables and throw samplers are built once
        learner = rival if model is None else learned.Learned(params, {players: model})
        recording = [Recording(inner, reply) for inner in (reply, learner)]
        groups = [(r, seat) for r in recording for seat in range(players)]
        for i, (recorder, seat) in enumerate(groups):
            games = n_games // len(groups) + (i < n_games % len(groups))
            if games:
                impls: list[object] = [rival] * players
                impls[seat] = recorder
                play_with(params, impls, games, rng, metrics=False)
        features = np.concatenate([f for r in recording for f in r.features])
        targets = np.concatenate([t for r in recording for t in r.targets])
        return features, targets, None

    def backups(
        self, params: Params, players: int, model: Model, positions: list[None], mapper: object
    ) -> np.ndarray | None:
        """None: the teacher's values are exact already."""
        return None
