"""`simulate train`: fit (or find) a game's learned model for one setting, with seeded chunks on ``--jobs`` cores.

The game's ``learned`` policy implementation offers ``settings(players)`` (how its models are trained) and
``train(params, players, settings, mapper, progress, retrain)``; this module only builds the setting, runs the
chunks on the run package's executors (in-process, loky or Dask) and reports. The same seed gives the same model
bytes for any ``--jobs`` or backend: chunks are seeded by their number and merged in order
(:mod:`engines.learned.training`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engines import core, get_game
from experiments.run import Executor, RunSpec, check_jobs, open_executor
from experiments.run.executors import check_backend


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


def default_games(game: str, players: int | None) -> int:
    """Self-play games ``game``'s learned model for ``players`` (default: the fewest) is trained on.

    Raises:
        ValueError: for an unknown game or a game without a learned player.
    """
    module = get_game(game).module
    if "learned" not in module.POLICIES:
        raise ValueError(f"{game} has no learned player yet")
    return module.POLICIES["learned"].impl.settings(players or module.INFO.min_players).games


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
    module = get_game(game).module
    if "learned" not in module.POLICIES:
        raise ValueError(f"{game} has no learned player yet")
    players = players or module.INFO.min_players
    core.check_players(module.INFO, players)
    if (games is not None and games < 1) or seed < 0:
        raise ValueError(f"--games={games} and --seed={seed} must be positive (the seed may be 0)")
    probe = next(name for name, p in module.POLICIES.items() if not hasattr(p.impl, "prepare"))
    params = RunSpec(game, (probe,) * players, 1, seed, settings, variant).params
    impl = module.POLICIES["learned"].impl
    base = impl.settings(players)
    chosen = replace(base, games=games or base.games, seed=seed)
    done = [0]

    def progress(now: int, total: int) -> None:
        if advance is not None:
            advance(now - done[0])
        done[0] = now

    start = time.perf_counter()
    check_backend(backend, scheduler)
    with open_executor(backend, check_jobs(jobs, scheduler), scheduler) as executor:
        _, path, how = impl.train(params, players, chosen, executor_mapper(executor), progress, retrain)
    return TrainResult(game, players, str(path), how, time.perf_counter() - start, chosen.games, seed)
