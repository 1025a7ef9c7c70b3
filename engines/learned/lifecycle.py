"""One learned player's lifecycle for every game: settings, training, caching, fingerprints and choice, from a spec.

A game declares a :class:`Spec` (data: its features hook and version, its unit's version, its training settings,
its shipped models, its self-play constants and, if it needs one, its own hook into self-play or its own choice)
and builds its ``learned`` seat class with :func:`player`. Everything else is here, once: which settings a table
trains with, what ``simulate train`` may change, the model key, where the model comes from (:mod:`store`), the
SHA-256 a run's chunks are keyed by, and the choice at a decision point (:func:`engines.learned.choice.choose`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from boardlab.engines import cachedir, core
from boardlab.engines.core import Params
from boardlab.engines.expert import by_table_size
from boardlab.engines.learned import cache, ntuple, searchplay, selfplay, store, training
from boardlab.engines.learned.choice import choose
from boardlab.engines.learned.model import checksum
from boardlab.engines.learned.training import Model, Settings

#: what a table's settings are: one for every table, one per player count (:func:`by_table_size`), or a function
SettingsOf = Settings | Mapping[int, Settings] | Callable[[Params, int], Settings]
#: ``(seat, point, model, propose) -> (B,)``: a game's own choice at a decision point
Unit = Callable[[Any, Any, Model, Callable[[], np.ndarray]], np.ndarray]
#: ``(recorder, params, point, games, propose) -> (B,)``: a game's own hook into self-play's decisions
Record = Callable[[selfplay.Recorder, Params, Any, np.ndarray, Callable[[], np.ndarray]], np.ndarray]


@dataclass(frozen=True)
class Sampling:
    """Self-play's constants (each part of the model key): the share of real choices recorded, λ and exploration.

    ``extra`` names more constants the game's self-play reads (also keyed); ``keyed(players, settings)`` adds
    those that apply only to some tables or settings.
    """

    keep: float = 1.0
    lam: float = 1.0
    explore: float = 0.0
    extra: Mapping[str, Any] = field(default_factory=dict)
    keyed: Callable[[int, Settings], Mapping[str, Any]] | None = None
    search_share: float | None = None  #: expert iteration's share of searched choices (a ``SearchPlay``)
    #: ``extra`` of the game's earlier training methods, newest first: a setting with no model of its own, shipped
    #: or cached, plays the shipped model of one of them (``simulate train`` trains one of its own)
    earlier: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class Spec:
    """What a game declares for its ``learned`` player (see ``engines/README.md``, "Learned players")."""

    info: Any  #: the game's ``GameInfo``
    n_features: Callable[[Params, int], int]  #: features of one position, for these knobs and players
    features: int | Mapping[int, int]  #: the features' version (by player count): bump to refuse old models
    unit: int  #: the version of the decisions the model drives (training plays them): bump to refuse old models
    settings: SettingsOf  #: how the models ``learned`` plays are trained
    shipped: Path | None  #: the folder of models shipped with the game (checked like cached ones)
    play: Callable[..., core.Outcome]  #: the batched engine with policy implementations (``rules.play_with``)
    sampling: Sampling | None = None  #: self-play's constants (None: the game's sampler keys none)
    seat: type | None = None  #: the game's seat the learned player is (its ``decisions.Seat`` or a subclass)
    wraps: bool = False  #: whether the seat wraps the baseline, which proposes and decides the rest
    margin: float | Mapping[int, float] = 0.0  #: keep the baseline's move unless another is valued this above it
    unit_choice: Unit | None = None  #: the game's own choice (default: :func:`engines.learned.choice.choose`)
    record: Record | None = None  #: the game's own hook into self-play's decisions (default: the recorder)
    #: self-play's model rounds decide by the game's own choice (``unit_choice``), not the generic one (ours: off,
    #: which keeps the older games' models)
    plays_unit: bool = False
    selfplay: type = selfplay.SelfPlay  #: self-play's sampler class (``SearchPlay`` for expert iteration)
    #: the game's own sampler for a table's training (default: :attr:`selfplay` over :class:`Table`)
    sampler: Callable[[type, Settings], training.Sampler] | None = None
    tuples: Callable[[Params, int], ntuple.Spec | None] | None = None  #: n-tuples where the family is ``ntuple``
    trains: tuple[str, ...] | None = ("games", "seed")  #: what ``simulate train`` changes (None: every setting)

    def settings_for(self, params: Params, players: int) -> Settings:
        """How the model of ``players`` seats is trained (``simulate train``'s default)."""
        if isinstance(self.settings, Settings):
            return self.settings
        if isinstance(self.settings, Mapping):
            return by_table_size(self.settings, players)
        return self.settings(params, players)

    def features_version(self, players: int) -> int:
        """The version of the features of ``players`` seats (part of a model's key)."""
        return self.features if isinstance(self.features, int) else by_table_size(self.features, players)

    def resolved(self, params: Params, players: int, settings: Settings) -> Settings:
        """``settings`` as they apply here: the n-tuple family where the game has no tuples is the network."""
        if settings.family == ntuple.FAMILY and self.model_tuples(params, players, settings) is None:
            return replace(settings, family=training.MLP)
        return settings

    def model_tuples(self, params: Params, players: int, settings: Settings | None = None) -> ntuple.Spec | None:
        """The tuples of a model of ``settings`` (default: the ones ``learned`` plays; None for a network)."""
        settings = settings or self.settings_for(params, players)
        if settings.family != ntuple.FAMILY or self.tuples is None:
            return None
        return self.tuples(params, players)


@dataclass(frozen=True)
class Table:
    """Self-play seating (:class:`engines.learned.selfplay.Table`): ``player`` deciding through a recorder."""

    player: type

    def seat(self, params: Params, players: int, recorder: selfplay.Recorder) -> object:
        """A ``player`` whose every decision is ``recorder``'s (through the game's own hook, if any)."""
        spec: Spec = self.player.spec
        if spec.record is not None:
            return self.player(params, decide=partial(spec.record, recorder, params))
        if not spec.plays_unit or spec.unit_choice is None:
            return self.player(params, decide=recorder)
        seat: Any = None

        def unit(point: Any, games: np.ndarray, propose: Callable[[], np.ndarray]) -> np.ndarray:
            """The recorder's exploration and records over the game's own choice (the model's, from round 1)."""
            model = recorder.model
            if model is None:
                return recorder(point, games, propose)
            recorder.model = None  # the recorder then takes ``propose()``: here the game's own choice
            try:
                return recorder(point, games, lambda: spec.unit_choice(seat, point, model, propose))
            finally:
                recorder.model = model

        seat = self.player(params, decide=unit)
        return seat

    def searching_seat(self, params: Params, players: int, recorder: searchplay.SearchRecorder, model: Model) -> object:
        """A ``player`` deciding through ``recorder``, whose decision points play ``learned`` out with ``model``."""
        seat = self.player(params, decide=recorder)
        registry = self.player.policies
        rollout = replace(registry[searchplay.ROLLOUT], impl=partial(self.player, models={players: model}))
        seat.policies = {**registry, searchplay.ROLLOUT: rollout}
        return seat

    def play(self, params: Params, seats: Sequence[object], n_games: int, source: core.Source) -> core.Outcome:
        """The batched engine."""
        return self.player.spec.play(params, seats, n_games, source)


def sampler(player: type, settings: Settings | None = None) -> training.Sampler:
    """What trains ``player``'s model of ``settings``: the game's own sampler, or self-play through :class:`Table`."""
    spec: Spec = player.spec
    if spec.sampler is not None:
        return spec.sampler(player, settings)
    sampling = spec.sampling or Sampling()
    share = () if sampling.search_share is None else (sampling.search_share,)
    return spec.selfplay(Table(player), spec.n_features, sampling.keep, sampling.lam, sampling.explore, *share)


def base_key(spec: Spec, params: Params, players: int, settings: Settings) -> tuple[dict[str, Any], Any]:
    """The model key without self-play's constants, and the n-tuples of ``settings`` (an exploiter's base)."""
    tuples = spec.model_tuples(params, players, settings)
    version = spec.features_version(players)
    return store.model_key(spec.info, params, players, version, spec.unit, settings, None, tuples), tuples


def model_key(player: type, params: Params, players: int, settings: Settings | None = None) -> dict[str, Any]:
    """Everything that determines the bytes of ``player``'s model of ``settings`` (default: the ones it plays)."""
    return keyed(player, params, players, settings)[1]


def keyed(
    player: type, params: Params, players: int, settings: Settings | None = None, extra: Mapping[str, Any] | None = None
) -> tuple[Settings, dict[str, Any], ntuple.Spec | None]:
    """``(settings, key, tuples)`` of ``player``'s model of ``settings`` as they apply (default: the ones it plays).

    ``extra`` replaces the sampling's ``extra`` constants (an earlier training method's key).
    """
    spec: Spec = player.spec
    chosen = spec.resolved(params, players, settings or spec.settings_for(params, players))
    key, tuples = base_key(spec, params, players, chosen)
    if spec.sampling is not None:
        sampling = spec.sampling
        constants = {"baseline": player.baseline, "keep": sampling.keep, "lambda": sampling.lam}
        constants |= {"explore": sampling.explore, **(sampling.extra if extra is None else extra)}
        if sampling.keyed is not None:
            constants |= sampling.keyed(players, chosen)
        key = {**key, "sampling": constants}
    return chosen, key, tuples


def request(player: type, params: Params, players: int, settings: Settings | None = None) -> store.Request:
    """What :func:`store.obtain` needs for ``player``'s model of ``settings`` (default: the ones it plays)."""
    chosen, key, tuples = keyed(player, params, players, settings)
    sampling = player.spec.sampling
    earlier = tuple(keyed(player, params, players, chosen, extra)[1] for extra in sampling.earlier) if sampling else ()
    return store.Request(sampler(player, chosen), key, params, players, chosen, player.spec.shipped, tuples, earlier)


def playing_model(player: type, params: Params, players: int) -> Model:
    """The model ``player`` plays at ``players`` seats: shipped, cached or trained now (said on stderr).

    Kept for the process by its file's name, shipped folder and cache folder: a search builds fresh seats for its
    playouts, which must not read the file each time.
    """
    wanted = request(player, params, players)
    memo = (cache.file_name(wanted.key), wanted.shipped, cachedir.cache_dir())
    if memo not in _LOADED:
        say = lambda text: print(text, file=sys.stderr)  # noqa: E731
        if len(_LOADED) >= MEMO:
            _LOADED.clear()
        _LOADED[memo] = store.obtain(wanted, say)[0]
    return _LOADED[memo]


def model_at_hand(player: type, params: Params, players: int, train: bool = False) -> Model | None:
    """The model ``player`` plays at ``players`` seats if shipped or cached, else None; ``train``: else train it now.

    Training asked for so is explicit (as ``simulate train``'s): ``BOARDLAB_TRAIN=0`` does not refuse it.
    """
    wanted = request(player, params, players)
    found = store.find(wanted) or (store.obtain(wanted, None, explicit=True) if train else None)
    return None if found is None else found[0]


MEMO = 64  #: models kept for the process at most
_LOADED: dict[tuple[str, Path | None, Path], Model] = {}


class Lifecycle:
    """A learned player's models: ``settings``, ``train`` (``simulate train``), ``prepare`` and ``fingerprint``.

    ``spec`` is the game's; ``baseline`` (round 0 of training plays it) is set by the game's registry.
    """

    spec: ClassVar[Spec]
    baseline: Any
    params: Params
    models: dict[int, Model]

    @classmethod
    def settings(cls, params: Params, players: int) -> Settings:
        """How the model ``learned`` plays with ``players`` seats is trained (``simulate train``'s default)."""
        return cls.spec.settings_for(params, players)

    @classmethod
    def train(
        cls,
        params: Params,
        players: int,
        settings: Settings,
        mapper: training.Mapper = training.serial,
        progress: training.Progress | None = None,
        retrain: bool = False,
    ) -> tuple[Model, Path, str]:
        """The model for ``settings`` (``simulate train``): cached, or trained now; ``(model, path, how)``.

        Only the settings the spec lets ``simulate train`` change are taken from ``settings``; the rest stay the
        table's own.
        """
        if cls.spec.trains is not None:
            changed = {name: getattr(settings, name) for name in cls.spec.trains}
            settings = replace(cls.settings(params, players), **changed)
        wanted = request(cls, params, players, settings)
        return store.obtain(wanted, None, mapper, progress, retrain, True)

    def prepare(self, players: int) -> None:
        """Load the model for ``players``, or train it now (saying so on stderr) unless training is off."""
        if players not in self.models:
            self.models[players] = playing_model(type(self), self.params, players)

    def fingerprint(self, players: int) -> str:
        """SHA-256 of the model bytes ``players`` seats play with: saved chunks of another model are not reused."""
        self.prepare(players)
        return checksum(self.models[players].to_bytes())


class Learned(Lifecycle):
    """``learned``: the game's seat deciding by the model (:func:`player` builds a game's class).

    ``policies`` (the registry decision points resolve names in) is set by the registry. ``decide`` replaces the
    model's choice (self-play records through it); by default the model for the table decides.
    """

    policies: Mapping[str, core.Policy]

    def __init__(self, params: Params, models: dict[int, Model] | None = None, decide: Any = None) -> None:
        """Play ``params``; the model is loaded (or trained) on first use unless given."""
        inner = core.policy_instances(self.policies, [self.baseline], params)[0] if self.spec.wraps else None
        super().__init__(inner, decide or self.best, self.policies)  # type: ignore[call-arg]
        self.params = params
        self.models = dict(models or {})

    def best(self, point: Any, games: np.ndarray, propose: Callable[[], np.ndarray]) -> np.ndarray:
        """The model's choice at ``point``: the game's own, or the best-valued candidate (with the spec's margin)."""
        self.prepare(point.players)
        model = self.models[point.players]
        if self.spec.unit_choice is not None:
            return self.spec.unit_choice(self, point, model, propose)
        margin = self.spec.margin
        if not isinstance(margin, float):
            margin = by_table_size(margin, point.players)
        return choose(point, model, propose, margin)


def player(spec: Spec, module: str) -> type:
    """The ``learned`` seat class of the game whose spec is ``spec``, declared in ``module`` (its ``__name__``)."""
    assert spec.seat is not None, "a learned seat needs the game's seat class"
    return type("Learned", (Learned, spec.seat), {"spec": spec, "__module__": module, "__qualname__": "Learned"})
