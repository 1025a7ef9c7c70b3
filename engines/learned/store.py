"""Getting a model to play with: from the shipped files, the cache, or training it now.

Training is on by default; ``BOARDLAB_TRAIN=0`` turns it off, so that a missing model makes a command fail in one
line instead of training (for CI, or a machine that must not spend minutes unasked).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardlab.engines import cachedir
from boardlab.engines.core import Params
from boardlab.engines.learned import cache, ntuple
from boardlab.engines.learned.model import FORMAT
from boardlab.engines.learned.training import Mapper, Model, Progress, Sampler, Settings, serial, train
from boardlab.engines.steps import Step

TRAIN_ENV = "BOARDLAB_TRAIN"  #: ``0`` refuses to train a missing model


class ModelMissing(ValueError):
    """A model is needed, none is shipped or cached, and training is turned off (one line for the user)."""


def model_key(
    info: Any,
    params: Params,
    players: int,
    features: int,
    unit: int,
    settings: Settings,
    sampling: Mapping[str, Any] | None = None,
    tuples: ntuple.Spec | None = None,
) -> dict[str, Any]:
    """Everything that determines a model's bytes (a cache key).

    The game and its version, every knob, the player count, the versions of its features and decision unit, the
    model format, the training settings and, when the game's self-play has them, its sampling constants; for an
    n-tuple model the n-tuple format and a digest of the game's tuples.
    """
    key: dict[str, Any] = {
        "game": info.id,
        "version": info.version,
        "players": players,
        "knobs": params.as_dict(),
        "features": features,
        "unit": unit,
        "format": FORMAT,
        "training": settings.as_key(),
    }
    if sampling is not None:
        key["sampling"] = dict(sampling)
    if tuples is not None:
        key["format"] = f"{ntuple.FAMILY}-{ntuple.FORMAT}"
        key["tuples"] = tuples.digest()
    return key


def training_allowed() -> bool:
    """Whether a missing model may be trained now: ``BOARDLAB_TRAIN`` unset, empty or ``1``; not with ``0``.

    Raises:
        ValueError: for any other value (a typo must not quietly start minutes of training).
    """
    value = os.environ.get(TRAIN_ENV, "").strip()
    if value not in ("", "0", "1"):
        raise ValueError(f"{TRAIN_ENV}={value!r} must be 0 (no training) or 1 (train a missing model)")
    return value != "0"


@dataclass(frozen=True)
class Request:
    """A model asked for: what trains it, its key, the table, the settings, the shipped folder and its n-tuples."""

    sampler: Sampler
    key: Mapping[str, Any]
    params: Params
    players: int
    settings: Settings
    shipped: Path | None = None  #: the folder of the game's shipped models (None: none ship)
    tuples: ntuple.Spec | None = None  #: an n-tuple model's tuples (None: a network)
    #: keys of the game's earlier training methods: their shipped models play a setting that has no model of its own
    earlier: tuple[Mapping[str, Any], ...] = ()


def obtain(
    request: Request,
    say: Callable[[str], None] | None = None,
    mapper: Mapper = serial,
    progress: Progress | None = None,
    retrain: bool = False,
    explicit: bool = False,
) -> tuple[Model, Path, str]:
    """The model ``request`` asks for: ``(model, path, how)``, ``how`` ``"shipped"``, ``"cached"`` or ``"trained"``.

    A shipped file (in the folder ``request.shipped``) or a cached one is used if its key matches and it checks
    out; otherwise the model is trained (``say`` is told why first) and cached, unless training is off and the
    training was not asked for ``explicit``-ly (``simulate train`` always trains). An n-tuple model (its
    ``settings.family``) is read and trained over the game's ``tuples``.

    Raises:
        ModelMissing: when training is needed but turned off (one line naming the remedy).
    """
    sampler, key, params, players = request.sampler, request.key, request.params, request.players
    settings, tuples = request.settings, request.tuples
    path = cachedir.cache_dir() / cache.file_name(key)
    width, outputs = sampler.n_features(params, players), sampler.n_outputs(players)
    found = Found(key, width, outputs, tuples)
    if not retrain and (model := _at_hand(request, found, not explicit)) is not None:
        return model
    if not training_allowed() and not explicit:
        raise ModelMissing(
            f"{found.reason} for {key['game']} with {players} players and these knobs, and {TRAIN_ENV}=0 forbids "
            f"training; run `simulate train {key['game']} --players {players}` with the same --set/--variant first"
        )
    cachedir.check_file_slot(path, "cached learned model")  # before minutes of training, not after
    cachedir.check_writable(path.parent)
    waiting = f"waiting for another process training the learned model {path}, then using it"
    with cachedir.locked(path, waiting):  # two trainings of one setting: the second reuses the first's model
        if not retrain and (model := found.first(((path, "cached"),))) is not None:
            return model
        if say is not None:
            say(f"{found.reason} for {key['game']} with {players} players; training it now, once (cached as {path})")
        elif found.broken is not None:  # `simulate train` says nothing else, but never replaces a file silently
            sys.stderr.write(f"warning: {found.reason}; training it again and replacing {found.broken}\n")
        with Step(f"training the learned player for {key['game']} with {players} players (once; cached)"):
            model = train(sampler, params, players, settings, mapper, progress, tuples)
        cache.save(path, key, model)
    return model, path, "trained"


def find(request: Request) -> tuple[Model, Path, str] | None:
    """The model ``request`` asks for if one is at hand (shipped, cached, or an earlier method's shipped), or None.

    Never trains (the public checker's learned checks play only a model at hand unless told to train).
    """
    width, outputs = (
        request.sampler.n_features(request.params, request.players),
        request.sampler.n_outputs(request.players),
    )
    return _at_hand(request, Found(request.key, width, outputs, request.tuples), True)


def _at_hand(request: Request, found: Found, earlier: bool) -> tuple[Model, Path, str] | None:
    """The shipped file, else the cached one, else (``earlier``) an earlier method's shipped one, or None."""
    name = cache.file_name(request.key)
    places = ((request.shipped / name, "shipped"),) if request.shipped else ()
    if (model := found.first((*places, (cachedir.cache_dir() / name, "cached")))) is not None:
        return model
    return _earlier_shipped(request, found.width, found.outputs) if earlier else None


def _earlier_shipped(request: Request, width: int, outputs: int) -> tuple[Model, Path, str] | None:
    """The first shipped model trained by one of the game's earlier methods for this setting, or None."""
    for key in request.earlier if request.shipped else ():
        if model := Found(key, width, outputs, request.tuples).first(
            ((request.shipped / cache.file_name(key), "shipped"),)
        ):
            return model
    return None


class Found:
    """Looks for a usable model file in turn, remembering why the last one was refused."""

    def __init__(self, key: Mapping[str, Any], width: int, outputs: int, tuples: ntuple.Spec | None) -> None:
        self.key, self.width, self.outputs, self.tuples = key, width, outputs, tuples
        self.reason = "no learned model"
        self.broken: Path | None = None  # a cached file found unusable (training replaces it)

    def first(self, places: tuple[tuple[Path, str], ...]) -> tuple[Model, Path, str] | None:
        """``(model, path, how)`` of the first usable file of ``places``, or None.

        Raises:
            ValueError: for a folder, pipe or device at one of them (refused, never waited on).
        """
        for where, how in places:
            cachedir.check_file_slot(where, f"{how} learned model")
            try:
                return cache.load(where, self.key, self.width, self.outputs, self.tuples), where, how
            except FileNotFoundError:
                continue
            except (OSError, ValueError) as error:
                self.reason = f"the learned model {where} is unusable ({error})"
                self.broken = where if how == "cached" else self.broken
        return None
