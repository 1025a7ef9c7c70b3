"""Cargolino's learned player: at every die, the (die, snail) pair whose resulting position the model values most.

The unit is one die (:class:`~engines.cargolino.decisions.Point`): the position after each legal pair, mid-turn
with the dice still to use, is valued for the mover by the value model, and the best is played
(:func:`engines.learned.choice.best_candidates`); at tables with a margin (4 players and more) the
baseline's move is played unless the model values another more than the margin above it. Features are
:mod:`engines.cargolino.features`: the mover's own snails, the public board and its *belief* over the others'
tokens (the detective's model, which the engine keeps for a seat that ``believes``), never the true deal. Models
are trained by self-play (:mod:`engines.learned.selfplay`): round 0 plays the baseline heuristic, later rounds the
model so far (its best, with no margin); targets are the λ-returns under the model just fitted. One model per
player count; see the package README for the figures.
"""

from __future__ import annotations

from pathlib import Path

from boardlab.engines.cargolino import beliefs, features
from boardlab.engines.cargolino.decisions import Point, Seat
from boardlab.engines.cargolino.rules import INFO, Step, play_with
from boardlab.engines.learned import lifecycle, training


class Believing(Seat):
    """Cargolino's seat as the learned player is: it keeps a belief over the deal (the detective's model)."""

    believes = True  #: the engine keeps this seat's belief over the deal
    weights = (float(beliefs.OWN_WEIGHT), float(beliefs.OTHER_WEIGHT))

    def point_at(self, step: Step) -> Point:
        """The point from what the seat knows: its belief, or the deal in a search's playout.

        In a playout every seat plays the drawn deal as known; the mover's holdings are worked out once, for every
        candidate's features.
        """
        return Point.at(step, self.policies, truth=step.table.playout, keep=True)


SPEC = lifecycle.Spec(
    info=INFO,
    n_features=features.n_features,
    features=1,
    unit=1,
    #: how the models ``learned`` plays are trained, by player count (ours; see the README)
    settings={
        2: training.Settings(games=90_000, rounds=3, hidden=(64,), epochs=10, sweeps=2, chunk_games=2_500),
        4: training.Settings(games=40_000, rounds=3, hidden=(64,), epochs=10, sweeps=2, chunk_games=2_000),
        6: training.Settings(games=20_000, rounds=3, hidden=(64,), epochs=10, sweeps=2, chunk_games=1_000),
    },
    shipped=Path(__file__).parent / "models",
    play=play_with,
    #: a tenth of real choices recorded (a game's dice decisions are strongly correlated), λ 0.7, 5% explored (ours)
    sampling=lifecycle.Sampling(keep=0.1, lam=0.7, explore=0.05),
    seat=Believing,
    #: how much more (in share of the win) the model must value another move than the baseline's before playing
    #: it, by player count (ours: 0 plays the model's best; at 4 and 6 players its values are too noisy to overrule
    #: the detective on small differences; see the README)
    margin={2: 0.0, 4: 0.02, 6: 0.03},
)
Learned = lifecycle.player(SPEC, __name__)
