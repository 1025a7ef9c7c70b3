"""Swine's learned player: a spec only; the learned lifecycle (``boardlab.engines.learned``) does the rest.

The model values the position after hold and after roll from the deciding seat's view (the features hook of
:class:`swine.decisions.Point`: both banked scores and the turn's total over the target, whose turn it is, a roll
pending) and the better is played. A hold that reaches the target wins at once: it is played, valued above any
model value (the unit is terminal-aware: a model's values near 1 cannot tell banking the win from rolling on).
Self-play plays the same unit. Models are trained by self-play: round 0 plays
``chase``, later rounds the model so far, with λ-returns as targets.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from boardlab.engines.learned import lifecycle, training
from boardlab.engines.learned.choice import best_of, model_values
from boardlab.engines.learned.training import Model
from swine.decisions import Point, Seat
from swine.rules import HOLD, INFO, play_with

FEATURES = 5  #: features of one position (:meth:`swine.decisions.Point.features`)


def won_values(seat: object, point: Point, model: Model, propose: object) -> np.ndarray:
    """The model's value of each candidate, a hold that reaches the target valued 1 (a won game)."""
    values = model_values(point, model)
    state = point.state
    wins = state.score[np.arange(len(state.total)), point.seat] + state.total >= point.params.target
    values[:, HOLD] = np.where(wins & point.legal()[:, HOLD], 2.0, values[:, HOLD])  # above any model value
    return best_of(values)


SPEC = lifecycle.Spec(
    info=INFO,
    n_features=lambda params, players: FEATURES,
    features=1,
    unit=1,
    #: ours, from a small search measured by the exact loss against ``win-optimal`` (README): about half a minute
    #: on one core; the closing passes (``anneal_epochs``) settle the values near the hold-or-roll boundary.
    #: ``simulate train swine --search`` picks them again (engines/README.md, "The recipe, step by step")
    settings=training.Settings(
        games=20_000, rounds=3, hidden=(64,), epochs=10, sweeps=2, chunk_games=5_000, anneal_epochs=5
    ),
    shipped=Path(__file__).parent / "models",
    play=play_with,
    sampling=lifecycle.Sampling(keep=0.5, lam=0.7, explore=0.05),
    seat=Seat,
    unit_choice=won_values,
    plays_unit=True,
)
Learned = lifecycle.player(SPEC, __name__)
