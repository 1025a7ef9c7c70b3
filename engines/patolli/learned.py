"""Patolli's learned player: each decision's candidate whose resulting position the value model values most.

Every decision goes through it: the move after a roll, the optional grey extra move and the markers. Features are
:mod:`engines.patolli.features` (public: nothing in Patolli is hidden). Models are trained by self-play
(:mod:`engines.learned.selfplay`): round 0 plays the baseline heuristic, later rounds the model so far; targets
are the returns, then λ-returns under the model just fitted. See the package README for the figures.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from boardlab.engines import cachedir, core
from boardlab.engines.core import Policy
from boardlab.engines.learned import cache, selfplay, store, training
from boardlab.engines.learned.choice import choose
from boardlab.engines.learned.model import ValueModel, checksum
from boardlab.engines.patolli import features
from boardlab.engines.patolli.decisions import MarkerPoint, Seat
from boardlab.engines.patolli.rules import INFO, Params, play_with

FEATURES = 2  #: bump when the features change: every cached or shipped model is refused and retrained
UNIT = 1  #: bump when the decisions the model drives change (training plays them)
SETTINGS = training.Settings(games=60_000, rounds=3, hidden=(64,), epochs=12, sweeps=2, chunk_games=2_500)
KEEP = 0.25  #: share of real choices recorded as samples (ours: a game's positions are strongly correlated)
LAM = 0.5  #: λ of the backed-up targets (ours; see the README)
EXPLORE = 0.1  #: share of real choices made at random in self-play (ours)
MARKER_BASELINE = "random"  #: self-play's marker placement, every round (ours: a variety of layouts to learn from)
MARKER_MODEL = 0.5  #: share of markers the model places in later rounds' self-play (ours; see the README)
SHIPPED = Path(__file__).parent / "models"  #: models shipped with the package, checked like cached ones


class Learned(Seat):
    """``learned``: each decision's legal candidate with the best-valued resulting position.

    It is the game's seat deciding by the model; ``propose()`` is the baseline's suggestion.

    ``baseline`` (a policy name; round 0 of training plays it) and ``policies`` (the registry decision points
    resolve names in) are set by the registry, so this module needs none. ``decide`` replaces the model's choice
    (self-play records through it); by default the model for the table decides.
    """

    baseline: str
    policies: Mapping[str, Policy]  # type: ignore[misc]

    def __init__(
        self, params: Params, models: dict[int, ValueModel] | None = None, decide: selfplay.Decide | None = None
    ) -> None:
        """Play ``params``; the model is loaded (or trained) on first use unless given."""
        super().__init__(None, decide or self.best, self.policies)
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

        ``simulate train`` sets only the games and the seed; the other settings stay Patolli's own.
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

    def best(self, point: object, games: np.ndarray, propose: Callable[[], np.ndarray]) -> np.ndarray:
        """The model's choice at ``point`` (see :func:`engines.learned.choice.choose`)."""
        self.prepare(point.players)
        return choose(point, self.models[point.players])


@dataclass(frozen=True)
class Table:
    """Self-play seating (:class:`engines.learned.selfplay.Table`): ``player`` deciding through a recorder.

    Markers are placed by ``MARKER_BASELINE`` in every round (and recorded): setup positions are all alike, so a
    model placing them would show the next round one layout, and a model trained on one layout values the moves
    of any other at random (it fell to 27% against ``balanced`` with ``balanced``'s layouts).
    """

    player: type[Learned]

    def seat(self, params: Params, players: int, recorder: selfplay.Recorder) -> Learned:
        """A ``player`` whose every decision is ``recorder``'s, markers ``MARKER_BASELINE``'s."""

        def hook(point: object, games: np.ndarray, propose: Callable[[], np.ndarray]) -> np.ndarray:
            if not isinstance(point, MarkerPoint):
                return recorder(point, games, propose)
            chosen = recorder.mix(point, point.suggest(MARKER_BASELINE), MARKER_MODEL)
            recorder.record(point, games, chosen, recorder.rng.random(len(chosen)) < recorder.keep)
            return chosen

        return self.player(params, decide=hook)

    def play(self, params: Params, seats: Sequence[object], n_games: int, source: core.Source) -> core.Outcome:
        """The batched engine."""
        return play_with(params, seats, n_games, source)


def sampler(player: type[Learned]) -> selfplay.SelfPlay:
    """Self-play for ``player``'s training."""
    return selfplay.SelfPlay(Table(player), features.n_features, KEEP, LAM, EXPLORE)


def model_key(
    params: Params, players: int, player: type[Learned], settings: training.Settings, by_model: float = MARKER_MODEL
) -> dict:
    """Everything that determines a model's bytes (``by_model`` 0: a model from before markers by the model)."""
    sampling = {
        "baseline": player.baseline,
        "markers": MARKER_BASELINE,
        "keep": KEEP,
        "lambda": LAM,
        "explore": EXPLORE,
    }
    if by_model:
        sampling["markers by the model"] = by_model
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
    """:func:`engines.learned.store.obtain` for Patolli: ``(model, path, "shipped" | "cached" | "trained")``.

    A setting with no model of its own, shipped or cached, plays its shipped model from before markers by the
    model, if any (``simulate train`` and ``retrain`` train one of its own).
    """
    key = model_key(params, players, player, settings)
    earlier = model_key(params, players, player, settings, 0.0)
    old = SHIPPED / cache.file_name(earlier)
    own = (SHIPPED / cache.file_name(key), cachedir.cache_dir() / cache.file_name(key))
    if not (retrain or explicit or any(path.is_file() for path in own)) and old.is_file():
        return cache.load(old, earlier, features.n_features(params, players)), old, "shipped"
    return store.obtain(
        sampler(player), key, params, players, settings, SHIPPED, say, mapper, progress, retrain, explicit
    )
