"""`simulate train`: fit (or find) a game's learned model for one setting, with seeded chunks on ``--jobs`` cores.

The game's ``learned`` policy implementation offers ``train(params, players, settings, mapper, progress,
retrain)``; this module only builds the setting, runs the chunks through joblib and reports. The same seed gives
the same model bytes for any ``--jobs``: chunks are seeded by their number and merged in order
(:mod:`engines.learned.training`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from engines import core, get_game
from engines.learned.training import Settings, serial


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


def joblib_mapper(jobs: int) -> Callable[[Callable[..., Any], Sequence[tuple]], Iterable[Any]]:
    """Run chunks on ``jobs`` processes (in order); one job runs them in this process."""
    if jobs <= 1:
        return serial

    def run(function: Callable[..., Any], chunks: Sequence[tuple]) -> Iterable[Any]:
        from joblib import Parallel, delayed

        return Parallel(n_jobs=jobs, return_as="generator")(delayed(function)(*args) for args in chunks)

    return run


def train_model(
    game: str,
    players: int | None,
    settings: tuple[tuple[str, str], ...],
    variant: str | None,
    games: int,
    seed: int,
    jobs: int,
    advance: Callable[[int], None] | None = None,
    retrain: bool = False,
) -> TrainResult:
    """Train (or find in the cache) ``game``'s learned model for the setting; ``advance(games)`` counts progress.

    Raises:
        ValueError: for an unknown game, a game without a learned player, bad knobs or counts.
    """
    from experiments.runner import RunSpec

    module = get_game(game).module
    if "learned" not in module.POLICIES:
        raise ValueError(f"{game} has no learned player yet")
    players = players or module.INFO.min_players
    core.check_players(module.INFO, players)
    if games < 1 or seed < 0:
        raise ValueError(f"--games={games} and --seed={seed} must be positive (the seed may be 0)")
    probe = next(name for name, p in module.POLICIES.items() if not hasattr(p.impl, "prepare"))
    params = RunSpec(game, (probe,) * players, 1, seed, settings, variant).params
    chosen = Settings(games=games, seed=seed)
    done = [0]

    def progress(now: int, total: int) -> None:
        if advance is not None:
            advance(now - done[0])
        done[0] = now

    start = time.perf_counter()
    impl = module.POLICIES["learned"].impl
    _, path, how = impl.train(params, players, chosen, joblib_mapper(jobs), progress, retrain)
    return TrainResult(game, players, str(path), how, time.perf_counter() - start, games, seed)
