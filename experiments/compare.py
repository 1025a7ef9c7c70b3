"""Tournaments (every policy against every other, seats rotated) and sweeps (knobs over a grid of values)."""

from __future__ import annotations

import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from analysis import stats
from engines import core, get_game
from experiments.run import Runner, RunSpec, local_runner
from experiments.spec import Arm, arm_chunk
from experiments.study import StudyResult, run_arms

ProgressFactory = Callable[[int], Any]
MAX_GRID = 10_000
"""Points of a sweep's grid (each is an arm of its own)."""


def _play(arms: list[Arm], runner: Runner | None, progress: ProgressFactory | None) -> StudyResult:
    runner = runner or local_runner()
    if progress is None:
        return run_arms(arms, runner)
    with progress(sum(a.spec.n_games for a in arms)) as bar:
        return run_arms(arms, runner, progress=bar.advance)


@dataclass
class Tournament:
    """Win rate of each row policy against each column policy, seats rotated, with 95% Wilson intervals."""

    game: str
    policies: list[str]
    players: int
    wins: Any  # DataFrame of wins (row against column)
    games: Any  # DataFrame of games played

    def rates(self) -> Any:
        """The win-rate matrix (NaN on the diagonal)."""
        return self.wins / self.games

    def long(self) -> Any:
        """One row per ordered pair: wins, games, rate and interval."""
        import pandas as pd

        rows = []
        for a in self.policies:
            for b in self.policies:
                if a != b:
                    w, n = int(self.wins.loc[a, b]), int(self.games.loc[a, b])
                    low, high = stats.wilson(w, n)
                    rows.append(
                        {
                            "policy": a,
                            "opponent": b,
                            "wins": w,
                            "games": n,
                            "win_rate": w / n,
                            "win_lo": float(low),
                            "win_hi": float(high),
                        }
                    )
        return pd.DataFrame(rows)

    def display(self) -> Any:
        """The matrix as text cells ``rate [low, high]``."""
        frame = self.rates().copy().astype(object)
        for r in self.long().itertuples():
            frame.loc[r.policy, r.opponent] = f"{100 * r.win_rate:.1f}% [{100 * r.win_lo:.1f}, {100 * r.win_hi:.1f}]"
        for p in self.policies:
            frame.loc[p, p] = "—"
        return frame.reset_index(names="policy")

    def save(self, folder: Path) -> list[Path]:
        """Write ``tournament.csv`` and ``tournament.png`` into ``folder``."""
        import matplotlib.pyplot as plt

        from analysis import plots
        from analysis.files import atomic_write

        folder.mkdir(parents=True, exist_ok=True)
        atomic_write(folder / "tournament.csv", self.long().to_csv(index=False).encode())
        label = "win rate of row policy" + (f" (1 against {self.players - 1})" if self.players > 2 else "")
        fig = plots.heatmap(self.rates().astype(float), label)
        fig.savefig(folder / "tournament.png", dpi=110)
        plt.close(fig)
        return [folder / "tournament.csv", folder / "tournament.png"]


def tournament(
    game: str,
    policies: Sequence[str],
    players: int | None,
    n_games: int,
    seed: int,
    settings: tuple[tuple[str, str], ...] = (),
    variant: str | None = None,
    runner: Runner | None = None,
    progress: ProgressFactory | None = None,
) -> Tournament:
    """Play every ordered pair of distinct policies: one seat to the first, the rest to the second, rotated."""
    import pandas as pd

    module = get_game(game).module
    if len(set(policies)) < 2:
        raise ValueError("a tournament needs at least two different policies")
    core.resolve_policies(module.POLICIES, policies)
    players = players if players is not None else max(module.INFO.min_players, 2)
    core.check_players(module.INFO, players)
    if players < 2:
        raise ValueError("a tournament needs at least 2 players")
    chunk = arm_chunk(module.INFO, n_games)
    arms, cells = [], []
    for a in policies:
        for b in policies:
            if a == b:
                continue
            for seat in range(players):
                seats = [b] * players
                seats[seat] = a
                arms.append(
                    Arm(f"{a} vs {b} @{seat}", RunSpec(game, tuple(seats), n_games, seed, settings, variant, chunk))
                )
                cells.append((a, b, seat))
    result = _play(arms, runner, progress)
    wins = pd.DataFrame(np.nan, index=list(policies), columns=list(policies))
    games = wins.copy()
    for (a, b, seat), run in zip(cells, result.results, strict=True):
        wins.loc[a, b] = (0 if np.isnan(wins.loc[a, b]) else wins.loc[a, b]) + run.summary.wins[seat]
        games.loc[a, b] = (0 if np.isnan(games.loc[a, b]) else games.loc[a, b]) + run.summary.n_games
    return Tournament(game, list(policies), players, wins, games)


@dataclass
class Sweep:
    """Seat win rates, mean scores and game metrics at each point of a grid of knob values."""

    game: str
    knob: str
    frame: Any  # value, seat, policy, games, win_rate, win_lo, win_hi, mean_score, score_lo, score_hi, mean_turns

    def display(self) -> Any:
        """The frame with the columns a reader needs."""
        return self.frame[["value", "seat", "policy", "win_rate", "win_lo", "win_hi", "mean_score", "mean_turns"]]

    def save(self, folder: Path) -> list[Path]:
        """Write ``sweep.csv`` and ``sweep.png`` into ``folder``."""
        import matplotlib.pyplot as plt

        from analysis import plots
        from analysis.files import atomic_write

        folder.mkdir(parents=True, exist_ok=True)
        atomic_write(folder / "sweep.csv", self.frame.to_csv(index=False).encode())
        frame = self.frame.copy()
        frame["position"] = frame["value"].map({v: i for i, v in enumerate(dict.fromkeys(frame["value"]))})
        frame["seat label"] = [f"seat {s} ({p})" for s, p in zip(frame["seat"], frame["policy"], strict=True)]
        fig = plots.interval_lines(
            frame, "position", "win_rate", "win_lo", "win_hi", "seat label", "win rate (fraction)", self.knob
        )
        ax = fig.axes[0]
        ax.set_xticks(range(frame["position"].max() + 1), list(dict.fromkeys(frame["value"])))
        fig.savefig(folder / "sweep.png", dpi=110)
        plt.close(fig)
        return [folder / "sweep.csv", folder / "sweep.png"]


def split_sweep(game: str, settings: tuple[tuple[str, str], ...]) -> tuple[str, list[str], tuple[tuple[str, str], ...]]:
    """The swept knobs' label, the grid's points as labels, and the fixed knobs (see :func:`sweep_grid`).

    With one swept knob the label is its name and the points are its values.
    """
    names, grid, fixed = sweep_grid(game, settings)
    labels = [point[0] if len(names) == 1 else ", ".join(point) for point in grid]
    return "+".join(names), labels, fixed


def sweep_grid(
    game: str, settings: tuple[tuple[str, str], ...]
) -> tuple[list[str], list[tuple[str, ...]], tuple[tuple[str, str], ...]]:
    """Find the swept knobs (those given several values), every combination of their values, and the fixed ones.

    Values are separated by commas; for a knob that itself holds a tuple (e.g. ``token_values``) by ``;``.
    """
    import itertools

    params_cls = get_game(game).module.Params
    hints = typing.get_type_hints(params_cls)
    swept, fixed = [], []
    for name, text in settings:
        if name not in hints:
            names = list(hints)
            raise ValueError(f"unknown knob '{name}'{core.did_you_mean(name, names)}")
        separator = ";" if typing.get_origin(hints[name]) is tuple else ","
        values = [v.strip() for v in text.split(separator) if v.strip()]
        if len(values) > 1:
            swept.append((name, values))
        else:
            fixed.append((name, text))
    if not swept:
        raise ValueError(
            "a sweep needs at least one --set knob=v1,v2,... with several values (use ';' between values of a tuple "
            "knob); several such knobs sweep every combination"
        )
    grid = list(itertools.product(*(values for _, values in swept)))
    if len(grid) > MAX_GRID:
        raise ValueError(f"the sweep's grid has {len(grid):,} points; allowed at most {MAX_GRID:,}")
    return [name for name, _ in swept], grid, tuple(fixed)


def sweep(
    game: str,
    seats: Sequence[str],
    settings: tuple[tuple[str, str], ...],
    n_games: int,
    seed: int,
    runner: Runner | None = None,
    progress: ProgressFactory | None = None,
) -> Sweep:
    """Play ``seats`` at each point of the swept knobs' grid (same chunk seeds for every point).

    Each row also holds the point's game metrics (:mod:`analysis.game_metrics`) with their intervals.
    """
    import pandas as pd

    from analysis import game_metrics

    names, grid, fixed = sweep_grid(game, settings)
    label, values, _ = split_sweep(game, settings)
    chunk = arm_chunk(get_game(game).module.INFO, n_games)
    arms = [
        Arm(
            ", ".join(f"{k}={v}" for k, v in zip(names, point, strict=True)),
            RunSpec(game, tuple(seats), n_games, seed, (*fixed, *zip(names, point, strict=True)), None, chunk),
        )
        for point in grid
    ]
    result = _play(arms, runner, progress)
    frames = []
    for value, point, run in zip(values, grid, result.results, strict=True):
        seat = run.seat_table()
        seat.insert(0, "value", value)
        if len(names) > 1:
            for k, (name, v) in enumerate(zip(names, point, strict=True)):
                seat.insert(1 + k, name, v)
        seat["mean_turns"] = run.summary.mean_turns()[0]
        for name, metric in run.game_metrics().items():
            if isinstance(metric, game_metrics.Value):
                seat[name], seat[f"{name}_lo"], seat[f"{name}_hi"] = metric.value, metric.low, metric.high
        frames.append(seat)
    return Sweep(game, label, pd.concat(frames, ignore_index=True))
