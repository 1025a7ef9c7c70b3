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
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from boardlab.engines import core, get_game
from boardlab.engines.learned import search, store
from boardlab.engines.learned.training import Settings
from boardlab.experiments import validate
from boardlab.experiments.run import Executor, RunSpec, check_jobs, open_executor
from boardlab.experiments.run.executors import check_backend

LEARNED = "learned"  #: the policy every game's learned player is registered as
MAX_GAMES_FACTOR = 10  #: ``--games`` may ask for at most this many times the setting's default (ours: see below)


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
    """Run chunks on ``executor`` (in-process, loky or Dask) and hand their results back in chunk order.

    Each result is handed on as soon as every chunk before it has finished, so the training can check (and stop)
    a round as it comes in.
    """

    def run(function: Callable[..., Any], chunks: Sequence[tuple]) -> Iterator[Any]:
        arriving = executor.map_unordered(_numbered, [(i, function, args) for i, args in enumerate(chunks)])
        waiting: dict[int, Any] = {}
        for index in range(len(chunks)):
            while index not in waiting:
                number, result = next(arriving)
                waiting[number] = result
            yield waiting.pop(index)

    return run


def _numbered(index: int, function: Callable[..., Any], args: tuple) -> tuple[int, Any]:
    return index, function(*args)


@dataclass(frozen=True)
class Training:
    """One training ``simulate train`` runs, checked: the game, its table size and knobs, and how it trains."""

    game: str
    players: int
    params: core.Params
    settings: Settings

    @property
    def progress_games(self) -> int:
        """Games the training counts in its progress: its self-play games and its expert-iteration rounds'."""
        return self.settings.games + self.settings.search_rounds * self.settings.search_games


def training(
    game: str,
    players: int | None,
    settings: tuple[tuple[str, str], ...],
    variant: str | None,
    games: int | None = None,
    seed: int | None = None,
) -> Training:
    """The training of ``game``'s model for a setting (the fewest seats by default), checked.

    The settings are the game's own for the knobs and table size, with ``games`` and ``seed`` replaced (``None``:
    the game's own). Expert-iteration rounds search the same share of their games as the default does (a
    6,000-game model of a 60,000-game default searches a tenth of the default's games a round), so a quick model
    stays quick.

    A training holds its samples in memory, so ``games`` is at most ``MAX_GAMES_FACTOR`` times the setting's default,
    which each game scales by what a game of the setting costs (the default 2-player Pantolino training peaks at
    0.7 GB). Games that run longer than the scaling assumes are stopped by the training itself: a round whose
    samples would pass :data:`engines.learned.training.MAX_ROUND_BYTES` is refused after its first chunk.

    Raises:
        ValueError: for an unknown game, a game without a learned player, bad knobs or counts.
    """
    if seed is not None:
        validate.whole(seed, "seed", 0)
    settings = validate.pairs(settings, "settings")
    if variant is not None:
        validate.text(variant, "variant")
    module = get_game(game).module
    if LEARNED not in module.POLICIES:
        raise ValueError(f"{game} has no learned player yet")
    players = module.INFO.min_players if players is None else players
    core.check_players(module.INFO, players)
    params = RunSpec(game, (core.unprepared_policy(module.POLICIES),) * players, 1, 0, settings, variant).params
    base = module.POLICIES[LEARNED].impl.settings(params, players)
    count = base.games if games is None else validate.whole(games, "games", 1, MAX_GAMES_FACTOR * base.games)
    searched = max(1, base.search_games * count // base.games) if base.search_rounds else base.search_games
    chosen = replace(base, games=count, seed=base.seed if seed is None else seed, search_games=searched)
    return Training(game, players, params, chosen)


def train_model(
    job: Training,
    jobs: int | None,
    advance: Callable[[int], None] | None = None,
    retrain: bool = False,
    backend: str = "loky",
    scheduler: str | None = None,
) -> TrainResult:
    """Run ``job`` (or find its model in the cache) on ``jobs`` workers; ``advance(games)`` counts progress.

    Raises:
        ValueError: for a bad job count, backend or scheduler.
    """
    check_backend(backend, scheduler)
    jobs = check_jobs(jobs, scheduler)
    with open_executor(backend, jobs, scheduler) as executor:
        return train_on(executor, job, advance, retrain)


def train_on(
    executor: Executor, job: Training, advance: Callable[[int], None] | None = None, retrain: bool = False
) -> TrainResult:
    """:func:`train_model` on an open executor."""
    impl = get_game(job.game).module.POLICIES[LEARNED].impl
    done = [0]

    def progress(now: int, total: int) -> None:
        if advance is not None:
            advance(now - done[0])
        done[0] = now

    start = time.perf_counter()
    mapper = executor_mapper(executor)
    _, path, how = impl.train(job.params, job.players, job.settings, mapper, progress, retrain)
    seconds = time.perf_counter() - start
    return TrainResult(job.game, job.players, str(path), how, seconds, job.settings.games, job.settings.seed)


def search_settings(
    job: Training,
    jobs: int | None,
    games: int = search.VALIDATION_GAMES,
    retrain: bool = False,
    backend: str = "loky",
    scheduler: str | None = None,
    say: Callable[[str], None] | None = None,
) -> search.Result:
    """``simulate train --search``: the settings search (:mod:`engines.learned.search`) from ``job``'s settings.

    Each candidate trains on ``jobs`` workers (the same bytes for any count); ``games`` validation games a seat;
    ``say`` hears the table's header, once everything is checked, and each row.

    Raises:
        ValueError: for a bad job count, backend or scheduler, or a game whose learned player has no lifecycle.
    """
    check_backend(backend, scheduler)
    jobs = check_jobs(jobs, scheduler)
    module = get_game(job.game).module
    if search.checks.learned_player(module) is None:
        raise ValueError(f"{job.game}'s learned player does not train by the learned lifecycle: nothing to search")
    if say is not None:
        say(f"{'setting':<22} measure (95%)  where the model came from, seconds")
    with open_executor(backend, jobs, scheduler) as executor:
        return search.search(
            module, job.params, job.players, job.settings, games, executor_mapper(executor), retrain, say
        )


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
    return train_on(executor, training(game, len(seats), settings, variant))
