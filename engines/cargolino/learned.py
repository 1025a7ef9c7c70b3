"""Cargolino's learned player: at every die, the (die, snail) pair whose resulting position the model values most.

The unit is one die (:class:`~engines.cargolino.decisions.Point`): the position after each legal pair, mid-turn
with the dice still to use, is valued for the mover by the value model, and the best is played
(:func:`engines.learned.choice.best_candidates`); at tables with a :data:`MARGIN` (4 players and more) the
baseline's move is played unless the model values another more than the margin above it. Features are
:mod:`engines.cargolino.features`: the mover's own snails, the public board and its *belief* over the others'
tokens (the detective's model, which the engine keeps for a seat that ``believes``), never the true deal. Models
are trained by self-play (:mod:`engines.learned.selfplay`): round 0 plays the baseline heuristic, later rounds the
model so far (its best, with no margin); targets are the λ-returns under the model just fitted. One model per
player count; see the package README for the figures.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from boardlab.engines import core
from boardlab.engines.cargolino import beliefs, features
from boardlab.engines.cargolino.decisions import Point, Seat
from boardlab.engines.cargolino.rules import INFO, Params, Step, play_with
from boardlab.engines.core import Policy
from boardlab.engines.expert import by_table_size
from boardlab.engines.learned import selfplay, store, training
from boardlab.engines.learned.choice import choose
from boardlab.engines.learned.model import ValueModel, checksum

FEATURES = 1  #: bump when the features change: every cached or shipped model is refused and retrained
UNIT = 1  #: bump when the decisions the model drives change (training plays them)
#: how the models ``learned`` plays are trained, by player count (ours; see the README)
SETTINGS: dict[int, training.Settings] = {
    2: training.Settings(games=90_000, rounds=3, hidden=(64,), epochs=10, sweeps=2, chunk_games=2_500),
    4: training.Settings(games=40_000, rounds=3, hidden=(64,), epochs=10, sweeps=2, chunk_games=2_000),
    6: training.Settings(games=20_000, rounds=3, hidden=(64,), epochs=10, sweeps=2, chunk_games=1_000),
}
#: how much more (in share of the win) the model must value another move than the baseline's before playing it, by
#: player count (ours: 0 plays the model's best; at 4 and 6 players its values are too noisy to overrule the
#: detective on small differences; see the README)
MARGIN: dict[int, float] = {2: 0.0, 4: 0.02, 6: 0.03}
KEEP = 0.1  #: share of real choices recorded as samples (ours: a game's dice decisions are strongly correlated)
LAM = 0.7  #: λ of the backed-up targets (ours; see the README)
EXPLORE = 0.05  #: share of real choices made at random in self-play (ours)
SHIPPED = Path(__file__).parent / "models"  #: models shipped with the package, checked like cached ones


class Learned(Seat):
    """``learned``: each die's legal (die, snail) pair with the best-valued resulting position.

    It is the game's seat deciding by the model; ``propose()`` is the baseline's suggestion at the point.

    ``baseline`` (a policy name; round 0 of training plays it) and ``policies`` (the registry decision points
    resolve names in) are set by the registry, so this module needs none. ``decide`` replaces the model's choice
    (self-play records through it); by default the model for the table decides.
    """

    baseline: str
    policies: Mapping[str, Policy]
    believes = True  #: the engine keeps this seat's belief over the deal (the detective's model)
    weights = (float(beliefs.OWN_WEIGHT), float(beliefs.OTHER_WEIGHT))

    def __init__(
        self, params: Params, models: dict[int, ValueModel] | None = None, decide: selfplay.Decide | None = None
    ) -> None:
        """Play ``params``; the model is loaded (or trained) on first use unless given."""
        super().__init__(None, decide or self.best, self.policies)
        self.params = params
        self.models = dict(models or {})

    @staticmethod
    def settings(params: Params, players: int) -> training.Settings:
        """How the model ``learned`` plays with ``players`` seats is trained (``simulate train``'s default)."""
        return by_table_size(SETTINGS, players)

    @classmethod
    def train(
        cls,
        params: Params,
        players: int,
        settings: training.Settings,
        mapper: training.Mapper = training.serial,
        progress: training.Progress | None = None,
        retrain: bool = False,
    ) -> tuple[ValueModel, Path, str]:
        """The model for ``settings`` (``simulate train``): cached, or trained now; ``(model, path, how)``.

        ``simulate train`` sets only the games and the seed; the other settings stay the table size's own.
        """
        chosen = replace(cls.settings(params, players), games=settings.games, seed=settings.seed)
        return obtain(params, players, cls, chosen, None, mapper, progress, retrain, True)

    def prepare(self, players: int) -> None:
        """Load the model for ``players``, or train it now (saying so on stderr) unless training is off."""
        if players not in self.models:
            self.models[players] = playing_model(self.params, players, type(self))

    def fingerprint(self, players: int) -> str:
        """SHA-256 of the model bytes ``players`` seats play with: saved chunks of another model are not reused."""
        self.prepare(players)
        return checksum(self.models[players].to_bytes())

    def best(self, point: Point, games: np.ndarray, propose: Callable[[], np.ndarray]) -> np.ndarray:
        """The model's choice at ``point``, or the baseline's unless the model clearly prefers another (:data:`MARGIN`).

        Without a margin for the table size: the model's best; with one, the baseline's move (``propose()``) unless
        the model values another more than the margin above it (:func:`engines.learned.choice.choose`).
        """
        self.prepare(point.players)
        return choose(point, self.models[point.players], propose, by_table_size(MARGIN, point.players))

    def point_at(self, step: Step) -> Point:
        """The point from what the seat knows: its belief, or the deal in a search's playout.

        In a playout every seat plays the drawn deal as known; the mover's holdings are worked out once, for every
        candidate's features.
        """
        return Point.at(step, self.policies, truth=step.table.playout, keep=True)


@lru_cache(maxsize=32)
def playing_model(params: Params, players: int, player: type[Learned]) -> ValueModel:
    """The model ``player`` plays at ``players`` seats: shipped, cached or trained now (said on stderr).

    Kept for the process: a search builds fresh seats for its playouts, which must not read the file each time.
    """
    say = lambda text: print(text, file=sys.stderr)  # noqa: E731
    return obtain(params, players, player, player.settings(params, players), say)[0]


@dataclass(frozen=True)
class Table:
    """Self-play seating (:class:`engines.learned.selfplay.Table`): ``player`` deciding through a recorder."""

    player: type[Learned]

    def seat(self, params: Params, players: int, recorder: selfplay.Recorder) -> Learned:
        """A ``player`` whose every decision is ``recorder``'s."""
        return self.player(params, decide=recorder)

    def play(self, params: Params, seats: Sequence[object], n_games: int, source: core.Source) -> core.Outcome:
        """The batched engine."""
        return play_with(params, seats, n_games, source)


def sampler(player: type[Learned]) -> selfplay.SelfPlay:
    """Self-play for ``player``'s training."""
    return selfplay.SelfPlay(Table(player), features.n_features, KEEP, LAM, EXPLORE)


def model_key(params: Params, players: int, player: type[Learned], settings: training.Settings) -> dict:
    """Everything that determines a model's bytes."""
    sampling = {"baseline": player.baseline, "keep": KEEP, "lambda": LAM, "explore": EXPLORE}
    return store.model_key(INFO, params, players, FEATURES, UNIT, settings, sampling)


def obtain(
    params: Params,
    players: int,
    player: type[Learned],
    settings: training.Settings,
    say: Callable[[str], None] | None = None,
    mapper: training.Mapper = training.serial,
    progress: training.Progress | None = None,
    retrain: bool = False,
    explicit: bool = False,
) -> tuple[ValueModel, Path, str]:
    """:func:`engines.learned.store.obtain` for Cargolino: ``(model, path, "shipped" | "cached" | "trained")``."""
    key = model_key(params, players, player, settings)
    return store.obtain(
        sampler(player), key, params, players, settings, SHIPPED, say, mapper, progress, retrain, explicit
    )
