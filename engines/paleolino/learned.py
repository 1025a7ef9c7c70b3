"""Paleolino's learned player: the cave and the chips kept whose resulting position the value model values most.

The value is the table's chance to win together (self-play's cooperative reward). Builds and payment follow the
expert's rollout policy (the planner), as the expert's do; the two searched decisions are the model's:

- **Keep.** The position after a keep (the next turn's start) is fully public, so the choice is the generic one
  (:func:`engines.learned.choice.choose`).
- **Cave.** What an opened cave holds is known only where the table remembers it. The model values positions
  after the cave is open, but the choice may not look inside: each cave's value is the mean of the model's values
  over :data:`SAMPLES` redraws of the unremembered chips from public information only
  (:meth:`~engines.paleolino.decisions.Point.determinise`, keyed by the position's public search key). Where the
  table forgot nothing (``memory=1``, no fading) one redraw is exact.

Features: :mod:`engines.paleolino.features`. Models are trained by self-play (:mod:`engines.learned.selfplay`):
round 0 plays the baseline, later rounds the model so far. See the package README for the figures.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from boardlab.engines import core
from boardlab.engines.learned import choice, lifecycle, selfplay, training
from boardlab.engines.learned.model import ValueModel
from boardlab.engines.paleolino import features
from boardlab.engines.paleolino.decisions import CAVE, KEEP, Point, Seat
from boardlab.engines.paleolino.rules import INFO, Params, play_with

SAMPLES = 8  #: redraws of the unremembered chips per cave decision (ours; see the README)


def cave_values(point: Point, model: ValueModel) -> np.ndarray:
    """``(B, V)``: each cave's mean model value over redraws of what the table does not remember."""
    st = point.state
    n, caves = len(st.game), point.params.caves
    draws = np.where((st.forgotten != 0).any(axis=1), SAMPLES, 1)  # nothing forgotten: one exact redraw
    rows = np.repeat(np.arange(n), draws)
    sample = np.arange(len(rows)) - np.repeat(np.cumsum(draws) - draws, draws)
    redrawn = point.take(rows)
    keys = core.mix64(point.key[rows] ^ core.mix64(sample.astype(np.uint64) + np.uint64(1)))
    redrawn.determinise(core.StreamSource(keys))
    after = redrawn.take(np.repeat(np.arange(len(rows)), caves))
    after.apply(np.tile(np.arange(caves), len(rows)))
    values = model.predict(after.features()).reshape(len(rows), caves).astype(np.float64)
    starts = np.cumsum(draws) - draws
    return np.add.reduceat(values, starts, axis=0) / draws[:, None]


def choose(point: Point, model: ValueModel) -> np.ndarray:
    """The model's candidate at ``point``: the best-valued legal cave (ties to the lowest), or keep.

    Every cave is legal unless the point is restricted (:mod:`engines.paleolino.restrictions`).
    """
    if point.stage == KEEP:
        return choice.choose(point, model)
    if not len(point.state.game):
        return np.zeros(0, dtype=np.int64)
    return np.where(point.legal(), cave_values(point, model), -np.inf).argmax(axis=1)


def record(
    recorder: selfplay.Recorder, params: Params, point: Point, games: np.ndarray, propose: Callable[[], np.ndarray]
) -> np.ndarray:
    """Self-play's decision: keeps go through the recorder as they are; caves are chosen here.

    Caves are chosen by the baseline in round 0 and by :func:`choose` later (the generic choice would look inside
    the caves), explored uniformly with the recorder's ``explore``, and handed to ``recorder.record``: the position
    recorded is the cave really opened.
    """
    if point.stage != CAVE:
        return recorder(point, games, propose)
    chosen = propose() if recorder.model is None else choose(point, recorder.model)
    draws = recorder.rng.random((len(chosen), 3))
    wild = draws[:, 1] < recorder.explore
    chosen = np.where(wild, (draws[:, 2] * params.caves).astype(np.int64), chosen)
    recorder.record(point, games, chosen, (draws[:, 0] < recorder.keep) | wild)
    return chosen


SPEC = lifecycle.Spec(
    info=INFO,
    n_features=features.n_features,
    features=1,
    unit=1,
    settings=training.Settings(games=60_000, rounds=3, hidden=(64,), epochs=12, sweeps=2, chunk_games=5_000),
    shipped=Path(__file__).parent / "models",
    play=play_with,
    #: every real choice recorded (see the README), λ 0.7, 5% explored (ours)
    sampling=lifecycle.Sampling(keep=1.0, lam=0.7, explore=0.05, extra={"samples": SAMPLES}),
    seat=Seat,
    wraps=True,  #: builds and payment follow the baseline (the rollout policy), which proposes
    unit_choice=lambda seat, point, model, propose: choose(point, model),
    record=record,
)
Learned = lifecycle.player(SPEC, __name__)
