"""`simulate train`: fit (or find) a game's learned model for one setting, with seeded chunks on ``--jobs`` cores.

The game's ``learned`` policy implementation offers ``settings(params, players)`` (how its models are trained) and
``train(params, players, settings, mapper, progress, retrain)``; this module only builds the setting, runs the
chunks on the run package's executors (in-process, loky or Dask) and reports. The same seed gives the same model
bytes for any ``--jobs`` or backend: chunks are seeded by their number and merged in order
(:mod:`engines.learned.training`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engines import core, get_game
from engines.learned import store
from engines.learned.training import Settings
from experiments.run import Executor, RunSpec, check_jobs, open_executor
from experiments.run.executors import check_backend

LEARNED = "learned"  #: the policy every game's learned player is registered as


@dataclass(frozen=True)
class TrainResult:
    """What ``simulate train`` reports."""

    game: str
    players: int
    path: str
    how: str  #: "shipped", "cached" or "trained"
    seconds: float
    games: int
    seed: int

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly fields."""
        return dict(self.__dict__)


def executor_mapper(executor: Executor) -> Callable[[Callable[..., Any], Sequence[tuple]], Iterable[Any]]:
    """Run chunks on ``executor`` (in-process, loky or Dask) and hand their results back in chunk order."""

    def run(function: Callable[..., Any], chunks: Sequence[tuple]) -> Iterable[Any]:
        finished = dict(executor.map_unordered(_numbered, [(i, function, args) for i, args in enumerate(chunks)]))
        return (finished[i] for i in range(len(chunks)))

    return run


def _numbered(index: int, function: Callable[..., Any], args: tuple) -> tuple[int, Any]:
    return index, function(*args)


def training_settings(
    game: str,
    players: int | None,
    settings: tuple[tuple[str, str], ...],
    variant: str | None,
    games: int | None = None,
    seed: int | None = None,
) -> Settings:
    """How ``simulate train`` trains ``game``'s model for a setting (:func:`chosen_settings`), checked first.

    Raises:
        ValueError: for an unknown game, a game without a learned player, bad knobs or counts.
    """
    check_counts(games, seed)
    params = check_setting(game, players, settings, variant)
    module = get_game(game).module
    return chosen_settings(module.POLICIES[LEARNED].impl, params, players or module.INFO.min_players, games, seed)


def chosen_settings(impl: Any, params: core.Params, players: int, games: int | None, seed: int | None) -> Settings:
    """``impl``'s settings for ``params`` and ``players`` with ``games`` and ``seed`` replaced (``None``: its own).

    Expert-iteration rounds search the same share of their games as the default does (a 6,000-game model of a
    60,000-game default searches a tenth of the default's games a round), so a quick model stays quick.
    """
    base = impl.settings(params, players)
    count = base.games if games is None else games
    searched = max(1, base.search_games * count // base.games) if base.search_rounds else base.search_games
    return replace(base, games=count, seed=base.seed if seed is None else seed, search_games=searched)


def progress_games(settings: Settings) -> int:
    """Games a training on ``settings`` counts in its progress: its self-play games and its expert-iteration rounds'."""
    return settings.games + settings.search_rounds * settings.search_games


def train_model(
    game: str,
    players: int | None,
    settings: tuple[tuple[str, str], ...],
    variant: str | None,
    games: int | None,
    seed: int,
    jobs: int | None,
    advance: Callable[[int], None] | None = None,
    retrain: bool = False,
    backend: str = "loky",
    scheduler: str | None = None,
) -> TrainResult:
    """Train (or find in the cache) ``game``'s learned model for the setting; ``advance(games)`` counts progress.

    ``games`` (default: the game's own count for ``players``) and ``seed`` replace the game's training settings.

    Raises:
        ValueError: for an unknown game, a game without a learned player, bad knobs or counts.
    """
    check_backend(backend, scheduler)
    jobs = check_jobs(jobs, scheduler)
    check_counts(games, seed)
    check_setting(game, players, settings, variant)
    with open_executor(backend, jobs, scheduler) as executor:
        return train_on(executor, game, players, settings, variant, games, seed, advance, retrain)


def check_setting(
    game: str, players: int | None, settings: tuple[tuple[str, str], ...], variant: str | None
) -> core.Params:
    """The knobs of a setting to train for, checked (a game with a learned player, the players, the knobs)."""
    module = get_game(game).module
    if "learned" not in module.POLICIES:
        raise ValueError(f"{game} has no learned player yet")
    players = players or module.INFO.min_players
    core.check_players(module.INFO, players)
    return RunSpec(game, (core.unprepared_policy(module.POLICIES),) * players, 1, 0, settings, variant).params


def check_counts(games: int | None, seed: int | None) -> None:
    """Refuse a count of training games below 1 or a negative seed (``None``: the game's own)."""
    if (games is not None and games < 1) or (seed is not None and seed < 0):
        raise ValueError(f"--games={games} and --seed={seed} must be positive (the seed may be 0)")


def train_on(
    executor: Executor,
    game: str,
    players: int | None,
    settings: tuple[tuple[str, str], ...],
    variant: str | None,
    games: int | None = None,
    seed: int | None = None,
    advance: Callable[[int], None] | None = None,
    retrain: bool = False,
) -> TrainResult:
    """:func:`train_model` on an open executor; ``games`` and ``seed`` default to the game's own settings."""
    module = get_game(game).module
    players = players or module.INFO.min_players
    check_counts(games, seed)
    params = check_setting(game, players, settings, variant)
    impl = module.POLICIES[LEARNED].impl
    chosen = chosen_settings(impl, params, players, games, seed)
    done = [0]

    def progress(now: int, total: int) -> None:
        if advance is not None:
            advance(now - done[0])
        done[0] = now

    start = time.perf_counter()
    _, path, how = impl.train(params, players, chosen, executor_mapper(executor), progress, retrain)
    return TrainResult(game, players, str(path), how, time.perf_counter() - start, chosen.games, chosen.seed)


def plays_learned(seat: str) -> bool:
    """Whether a seat plays the learned model: ``learned``, restricted (``learned!…``), in playouts (``…@learned``)."""
    return LEARNED in re.split(r"[:@!]", seat)


def ensure_learned(
    executor: Executor,
    game: str,
    seats: Sequence[str],
    settings: tuple[tuple[str, str], ...],
    variant: str | None,
) -> TrainResult | None:
    """The learned model ``seats`` play on this setting, trained on ``executor``'s workers if it is missing.

    ``None`` when no seat plays it, or when training is turned off (``BOARDLAB_TRAIN=0``: the run's own
    preparation then finds the model or refuses in one line). The model is the one ``learned`` plays anywhere
    (the game's own training settings), so a setting trained here is found cached by every later command.

    Raises:
        ValueError: for knobs the game refuses.
    """
    if not any(plays_learned(seat) for seat in seats) or not store.training_allowed():
        return None
    if LEARNED not in get_game(game).module.POLICIES:
        return None
    return train_on(executor, game, len(seats), settings, variant)
