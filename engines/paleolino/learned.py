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

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from boardlab.engines import core
from boardlab.engines.core import Policy
from boardlab.engines.learned import choice, selfplay, store, training
from boardlab.engines.learned.model import ValueModel, checksum
from boardlab.engines.paleolino import features
from boardlab.engines.paleolino.decisions import CAVE, KEEP, Point, Seat
from boardlab.engines.paleolino.rules import INFO, Params, play_with

FEATURES = 1  #: bump when the features change: every cached or shipped model is refused and retrained
UNIT = 1  #: bump when the decisions the model drives change (training plays them)
SAMPLES = 8  #: redraws of the unremembered chips per cave decision (ours; see the README)
SETTINGS = training.Settings(games=60_000, rounds=3, hidden=(64,), epochs=12, sweeps=2, chunk_games=5_000)
RECORDED = 1.0  #: share of real choices recorded as samples (ours: every one, see the README)
LAM = 0.7  #: λ of the backed-up targets (ours; see the README)
EXPLORE = 0.05  #: share of real choices made at random in self-play (ours)
SHIPPED = Path(__file__).parent / "models"  #: models shipped with the package, checked like cached ones


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


class Learned(Seat):
    """``learned``: caves and keeps by the value model (module docstring); builds and payment as the baseline.

    It is the game's seat deciding by the model, wrapping the baseline (the rollout policy), which proposes.

    ``baseline`` (a policy name; round 0 of training plays it) and ``policies`` (the registry decision points
    resolve names in) are set by the registry, so this module needs none. ``decide`` replaces the model's choice
    (self-play records through it); by default the model for the table decides.
    """

    baseline: str
    policies: Mapping[str, Policy]

    def __init__(
        self, params: Params, models: dict[int, ValueModel] | None = None, decide: selfplay.Decide | None = None
    ) -> None:
        """Play ``params``; the model is loaded (or trained) on first use unless given."""
        (base,) = core.policy_instances(self.policies, [self.baseline], params)
        super().__init__(base, decide or self.best, self.policies)
        self.params = params
        self.models = dict(models or {})

    @staticmethod
    def settings(params: Params, players: int) -> training.Settings:
        """How the model ``learned`` plays is trained (``simulate train``'s default; one table size, any knobs)."""
        return SETTINGS

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

        ``simulate train`` sets only the games and the seed; the other settings stay Paleolino's own.
        """
        chosen = replace(SETTINGS, games=settings.games, seed=settings.seed)
        return obtain(params, players, cls, chosen, None, mapper, progress, retrain, True)

    def prepare(self, players: int) -> None:
        """Load the model for ``players``, or train it now (saying so on stderr) unless training is off."""
        if players not in self.models:
            say = lambda text: print(text, file=sys.stderr)  # noqa: E731
            self.models[players] = obtain(self.params, players, type(self), SETTINGS, say)[0]

    def fingerprint(self, players: int) -> str:
        """SHA-256 of the model bytes ``players`` seats play with: saved chunks of another model are not reused."""
        self.prepare(players)
        return checksum(self.models[players].to_bytes())

    def best(self, point: Point, games: np.ndarray, propose: Callable[[], np.ndarray]) -> np.ndarray:
        """The model's choice at ``point`` (:func:`choose`)."""
        self.prepare(point.players)
        return choose(point, self.models[point.players])


@dataclass(frozen=True)
class Table:
    """Self-play seating (:class:`engines.learned.selfplay.Table`): ``player`` deciding through a recorder.

    Keeps go through the recorder as they are. Caves are chosen here, by the baseline in round 0 and by
    :func:`choose` later (the generic choice would look inside the caves), explored uniformly with the recorder's
    ``explore``, and handed to ``recorder.record``: the position recorded is the cave really opened.
    """

    player: type[Learned]

    def seat(self, params: Params, players: int, recorder: selfplay.Recorder) -> Learned:
        """A ``player`` whose every decision is ``recorder``'s (caves chosen as the class docstring says)."""

        def hook(point: Point, games: np.ndarray, propose: Callable[[], np.ndarray]) -> np.ndarray:
            if point.stage != CAVE:
                return recorder(point, games, propose)
            chosen = propose() if recorder.model is None else choose(point, recorder.model)
            draws = recorder.rng.random((len(chosen), 3))
            wild = draws[:, 1] < recorder.explore
            chosen = np.where(wild, (draws[:, 2] * params.caves).astype(np.int64), chosen)
            recorder.record(point, games, chosen, (draws[:, 0] < recorder.keep) | wild)
            return chosen

        return self.player(params, decide=hook)

    def play(self, params: Params, seats: Sequence[object], n_games: int, source: core.Source) -> core.Outcome:
        """The batched engine."""
        return play_with(params, seats, n_games, source)


def sampler(player: type[Learned]) -> selfplay.SelfPlay:
    """Self-play for ``player``'s training."""
    return selfplay.SelfPlay(Table(player), features.n_features, RECORDED, LAM, EXPLORE)


def model_key(params: Params, players: int, player: type[Learned], settings: training.Settings) -> dict:
    """Everything that determines a model's bytes."""
    sampling = {"baseline": player.baseline, "keep": RECORDED, "lambda": LAM, "explore": EXPLORE, "samples": SAMPLES}
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
    """:func:`engines.learned.store.obtain` for Paleolino: ``(model, path, "shipped" | "cached" | "trained")``."""
    key = model_key(params, players, player, settings)
    return store.obtain(
        sampler(player), key, params, players, settings, SHIPPED, say, mapper, progress, retrain, explicit
    )
