"""Patolli's learned player: each decision's candidate whose resulting position the value model values most.

Every decision goes through it: the move after a roll, the optional grey extra move and the markers. Features are
:mod:`engines.patolli.features` (public: nothing in Patolli is hidden). Models are trained by self-play
(:mod:`engines.learned.selfplay`): round 0 plays the baseline heuristic, later rounds the model so far; targets
are the returns, then λ-returns under the model just fitted. See the package README for the figures.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from boardlab.engines.learned import lifecycle, selfplay, training
from boardlab.engines.patolli import features
from boardlab.engines.patolli.decisions import MarkerPoint, Seat
from boardlab.engines.patolli.rules import INFO, Params, play_with

MARKER_BASELINE = "random"  #: self-play's marker placement (ours: a variety of layouts to learn from)
MARKER_MODEL = 0.5  #: share of markers the model places in later rounds' self-play (ours; see the README)


def record(
    recorder: selfplay.Recorder, params: Params, point: object, games: np.ndarray, propose: Callable[[], np.ndarray]
) -> np.ndarray:
    """Self-play's decision: the recorder's, but markers are placed by ``MARKER_BASELINE`` and recorded.

    In later rounds the model so far places a ``MARKER_MODEL`` share of them instead.

    Setup positions are all alike, so a model placing every marker would show the next round one layout, and a
    model trained on one layout values the moves of any other at random (it fell to 27% against ``balanced`` with
    ``balanced``'s layouts). With every marker random, the values assumed the other seat's markers random too, and
    seat 0 learned to exploit a seat 1 that never answered as the model does (two learned players: seat 0 won 89%).
    """
    if not isinstance(point, MarkerPoint):
        return recorder(point, games, propose)
    chosen = recorder.mix(point, point.suggest(MARKER_BASELINE), MARKER_MODEL)
    recorder.record(point, games, chosen, recorder.rng.random(len(chosen)) < recorder.keep)
    return chosen


SPEC = lifecycle.Spec(
    info=INFO,
    n_features=features.n_features,
    features=2,
    unit=1,
    settings=training.Settings(games=60_000, rounds=3, hidden=(64,), epochs=12, sweeps=2, chunk_games=2_500),
    shipped=Path(__file__).parent / "models",
    play=play_with,
    #: a quarter of real choices recorded (a game's positions are strongly correlated), λ 0.5 (see the README),
    #: a tenth explored (ours)
    sampling=lifecycle.Sampling(
        keep=0.25,
        lam=0.5,
        explore=0.1,
        extra={"markers": MARKER_BASELINE, "markers by the model": MARKER_MODEL},
        #: the settings not retrained since (head starts, readings) play their models from every marker random
        earlier=({"markers": MARKER_BASELINE},),
    ),
    seat=Seat,
    record=record,
)
Learned = lifecycle.player(SPEC, __name__)
