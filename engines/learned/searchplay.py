"""Expert iteration's samples: positions valued by a search that plays out with the learned policy.

Expert iteration (Anthony, Tian and Barber 2017) alternates two steps: a search improves on a fast policy, and the
fast policy learns from the search. Here the fast policy is ``learned`` with the model so far, and the search is
the expert's (:func:`engines.expert.candidate_values`): at a share of the decisions with a real choice, every legal
candidate is played out ``playouts`` times with the model in every seat, on the same streams for every candidate,
after redrawing what the deciding seat cannot see. Each candidate's resulting position, as that seat sees it, is
recorded with a target that takes the differences between the row's candidates from the search and their level
from the model: the search's value of the candidate, less the search's mean over the row's candidates, plus the
model's mean over them (clipped to [0, 1]). The candidates share their streams, so most of a value's noise is the
row's and cancels in the differences; the level is what the model knows from many games (Panots's README measures
what centring bought over the plain search values). Unlike a
game's return (one coin flip for dozens of positions) such a target averages many playouts, and it covers the
candidates the policy did not take, so the model is told how the candidates compare as the search sees them. The
games themselves are played by the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from boardlab.engines import core
from boardlab.engines.core import DecisionPoint, Params
from boardlab.engines.expert import candidate_values
from boardlab.engines.learned import selfplay
from boardlab.engines.learned.choice import choose
from boardlab.engines.learned.training import Model

ROLLOUT = "learned"  #: the policy name whose playouts the searching seat's decision points give the model


class SearchTable(selfplay.Table, Protocol):
    """A self-play table whose seats can also search: their decision points play ``ROLLOUT`` out with a model."""

    def searching_seat(self, params: Params, players: int, recorder: SearchRecorder, model: Model) -> object:
        """A seat whose decisions are ``recorder``'s and whose decision points play ``ROLLOUT`` with ``model``."""
        ...


def centred(values: np.ndarray, model: Model, features: np.ndarray) -> np.ndarray:
    """Each legal candidate's target: the search's ``values`` less their row mean, plus the model's row mean.

    ``features`` are the legal candidates' resulting positions in row-major order (``np.nonzero`` of the legal
    mask, which is where ``values`` is not NaN); the targets come in that order, clipped to [0, 1].
    """
    row, candidate = np.nonzero(~np.isnan(values))
    own = np.full(values.shape, np.nan)
    own[row, candidate] = model.predict(features)
    moved = values - np.nanmean(values, axis=1, keepdims=True) + np.nanmean(own, axis=1, keepdims=True)
    return np.clip(moved, 0.0, 1.0)[row, candidate].astype(np.float32)


class SearchRecorder:
    """A ``decide`` hook that plays the model's choice and records search-valued candidates at a share of rows."""

    def __init__(self, model: Model, share: float, playouts: int, rng: np.random.Generator) -> None:
        """Search a row with a real choice with probability ``share``; ``playouts`` per candidate."""
        self.model, self.share, self.playouts, self.rng = model, share, playouts, rng
        self.features: list[np.ndarray] = []
        self.targets: list[np.ndarray] = []

    def __call__(self, point: DecisionPoint, games: np.ndarray, propose: object) -> np.ndarray:
        """Each row's choice by the model; the searched rows' candidates are kept with their values."""
        chosen = choose(point, self.model)
        legal = point.legal()
        rows = np.flatnonzero((legal.sum(axis=1) >= 2) & (self.rng.random(len(chosen)) < self.share))
        if len(rows):
            searched = point.take(rows)
            row, candidate = np.nonzero(legal[rows])
            after = searched.take(row)
            after.apply(candidate)
            features = after.features(searched.seat[row])
            self.features.append(features)
            self.targets.append(centred(candidate_values(searched, ROLLOUT, self.playouts), self.model, features))
        return chosen

    def samples(self, width: int) -> tuple[np.ndarray, np.ndarray]:
        """Every recorded position's features and value, in the order taken."""
        if not self.features:
            return np.zeros((0, width), np.float32), np.zeros(0, np.float32)
        return np.concatenate(self.features), np.concatenate(self.targets)


@dataclass(frozen=True)
class SearchPlay(selfplay.SelfPlay):
    """:class:`engines.learned.selfplay.SelfPlay` that also offers expert iteration's samples (a ``Searcher``).

    Its ``table`` must be a :class:`SearchTable`.
    """

    search_share: float = 0.1  #: the share of decisions with a real choice that are searched (ours)

    def search_samples(
        self, params: Params, players: int, model: Model, n_games: int, rng: np.random.Generator, playouts: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Play ``n_games`` with ``model``; each searched candidate's position and its mean share of the win."""
        recorder = SearchRecorder(model, self.search_share, playouts, np.random.default_rng(rng.integers(1 << 63)))
        table: SearchTable = self.table  # type: ignore[assignment]
        seat = table.searching_seat(params, players, recorder, model)
        table.play(params, [seat] * players, n_games, core.as_source(rng))
        return recorder.samples(self.width(params, players))
