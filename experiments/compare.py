"""Tournaments (every policy against every other, seats rotated) and sweeps (knobs over a grid of values)."""

from __future__ import annotations

import json
import math
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from boardlab.analysis import stats
from boardlab.analysis.tables import json_ready
from boardlab.analysis.wording import pct
from boardlab.engines import core, get_game
from boardlab.experiments import validate
from boardlab.experiments.output import provenance
from boardlab.experiments.run import Runner, RunSpec, local_runner
from boardlab.experiments.spec import Arm, arm_chunk
from boardlab.experiments.study import StudyResult, run_arms

ProgressFactory = Callable[[int], Any]
MAX_GRID = validate.MAX_ARMS
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
    record: dict[str, Any] = field(default_factory=dict)  # what produced it (``tournament.json``)

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
        """The matrix as text cells ``rate (low–high)``."""
        frame = self.rates().copy().astype(object)
        for r in self.long().itertuples():
            frame.loc[r.policy, r.opponent] = pct(r.win_rate, r.win_lo, r.win_hi)
        for p in self.policies:
            frame.loc[p, p] = "—"
        return frame.reset_index(names="policy")

    def save(self, folder: Path) -> list[Path]:
        """Write ``tournament.csv``, ``tournament.png`` and ``tournament.json`` into ``folder``.

        ``tournament.json`` records what produced them; the new files replace the old set together, it last.
        """
        import matplotlib.pyplot as plt

        from boardlab.analysis import plots
        from boardlab.analysis.files import replacing_together

        label = "win rate of row policy" + (f" (1 against {self.players - 1})" if self.players > 2 else "")
        with replacing_together(folder, last="tournament.json") as stage:
            (stage / "tournament.csv").write_bytes(self.long().to_csv(index=False).encode())
            fig = plots.heatmap(self.rates().astype(float), label)
            fig.savefig(stage / "tournament.png", dpi=110)
            plt.close(fig)
            (stage / "tournament.json").write_bytes(json.dumps(self.record, indent=1).encode())
        return [folder / "tournament.csv", folder / "tournament.png", folder / "tournament.json"]


@dataclass(frozen=True)
class TournamentPlan:
    """A tournament's arms, checked before anything is played: which pair and seat each arm is."""

    game: str
    policies: tuple[str, ...]
    players: int
    arms: tuple[Arm, ...]
    cells: tuple[tuple[str, str, int], ...]  # (row policy, column policy, the row policy's seat) per arm


def plan_tournament(
    game: str,
    policies: Sequence[str],
    players: int | None,
    n_games: int,
    seed: int,
    settings: tuple[tuple[str, str], ...] = (),
    variant: str | None = None,
) -> TournamentPlan:
    """Every ordered pair of distinct policies: one seat to the first, the rest to the second, rotated.

    Refused before any arm is built: fewer than two policies, a policy named twice, more arms than a command may
    play (:mod:`experiments.validate`).
    """
    module = get_game(validate.text(game, "game")).module
    policies = list(validate.names(policies, "policies"))
    if len(set(policies)) < 2:
        raise ValueError("a tournament needs at least two different policies")
    if twice := sorted({p for p in policies if policies.count(p) > 1}):
        raise ValueError(f"the tournament names {', '.join(twice)} twice; name each policy once")
    players = players if players is not None else max(module.INFO.min_players, 2)
    core.check_players(module.INFO, players)
    if players < 2:
        raise ValueError("a tournament needs at least 2 players")
    validate.check_arms(len(policies) * (len(policies) - 1) * players, "the tournament")
    core.resolve_policies(module.POLICIES, policies)
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
    validate.check_sizes(((a.spec.n_games, len(a.spec.chunks())) for a in arms), "the tournament")
    return TournamentPlan(game, tuple(policies), players, tuple(arms), tuple(cells))


def play_tournament(
    plan: TournamentPlan, runner: Runner | None = None, progress: ProgressFactory | None = None
) -> Tournament:
    """Play a planned tournament and tabulate wins and games per ordered pair."""
    import pandas as pd

    result = _play(list(plan.arms), runner, progress)
    policies = list(plan.policies)
    wins = pd.DataFrame(np.nan, index=policies, columns=policies)
    games = wins.copy()
    for (a, b, seat), run in zip(plan.cells, result.results, strict=True):
        wins.loc[a, b] = (0 if np.isnan(wins.loc[a, b]) else wins.loc[a, b]) + run.summary.wins[seat]
        games.loc[a, b] = (0 if np.isnan(games.loc[a, b]) else games.loc[a, b]) + run.summary.n_games
    spec = plan.arms[0].spec
    record = {**provenance(spec), "policies": policies, "players": plan.players, "games_per_seating": spec.n_games}
    record |= {"variant": spec.variant, "params": spec.params.as_dict()}
    return Tournament(plan.game, policies, plan.players, wins, games, json_ready(record))


@dataclass
class Sweep:
    """Seat win rates, mean scores and game metrics at each point of a grid of knob values."""

    game: str
    knob: str
    frame: Any  # value, seat, policy, games, win_rate, win_lo, win_hi, mean_score, score_lo, score_hi, mean_turns
    record: dict[str, Any] = field(default_factory=dict)  # what produced it (``sweep.json``)

    def display(self) -> Any:
        """The frame with the columns a reader needs."""
        return self.frame[["value", "seat", "policy", "win_rate", "win_lo", "win_hi", "mean_score", "mean_turns"]]

    def save(self, folder: Path) -> list[Path]:
        """Write ``sweep.csv``, ``sweep.png`` and ``sweep.json`` into ``folder``.

        ``sweep.json`` records what produced them; the new files replace the old set together, it last.
        """
        import matplotlib.pyplot as plt

        from boardlab.analysis import plots
        from boardlab.analysis.files import replacing_together

        frame = self.frame.copy()
        frame["position"] = frame["value"].map({v: i for i, v in enumerate(dict.fromkeys(frame["value"]))})
        frame["seat label"] = [f"seat {s} ({p})" for s, p in zip(frame["seat"], frame["policy"], strict=True)]
        with replacing_together(folder, last="sweep.json") as stage:
            (stage / "sweep.csv").write_bytes(self.frame.to_csv(index=False).encode())
            fig = plots.interval_lines(
                frame, "position", "win_rate", "win_lo", "win_hi", "seat label", "win rate (fraction)", self.knob
            )
            ax = fig.axes[0]
            ax.set_xticks(range(frame["position"].max() + 1), list(dict.fromkeys(frame["value"])))
            fig.savefig(stage / "sweep.png", dpi=110)
            plt.close(fig)
            (stage / "sweep.json").write_bytes(json.dumps(self.record, indent=1).encode())
        return [folder / "sweep.csv", folder / "sweep.png", folder / "sweep.json"]


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
    names = [name for name, _ in settings]
    if twice := sorted({name for name in names if names.count(name) > 1}):
        raise ValueError(f"--set {', '.join(twice)} is given twice; give each knob once (several values: a,b,c)")
    for name, text in settings:
        if name not in hints:
            names = list(hints)
            raise ValueError(f"unknown knob '{name}'{core.did_you_mean(name, names)}")
        separator = ";" if typing.get_origin(hints[name]) is tuple else ","
        values = validate.items(text, f"--set {name}", separator)
        parsed = [core.parse_value(name, value, hints[name]) for value in values]
        if len(set(parsed)) < len(parsed):
            raise ValueError(f"--set {name}={text} gives a value twice; give each value once")
        if len(values) > 1:
            swept.append((name, values))
        else:
            fixed.append((name, text))
    if not swept:
        raise ValueError(
            "a sweep needs at least one --set knob=v1,v2,... with several values (use ';' between values of a tuple "
            "knob); several such knobs sweep every combination"
        )
    size = math.prod(len(values) for _, values in swept)
    if size > MAX_GRID:
        raise ValueError(f"the sweep's grid has {size:,} points; allowed at most {MAX_GRID:,}")
    grid = list(itertools.product(*(values for _, values in swept)))
    return [name for name, _ in swept], grid, tuple(fixed)


@dataclass(frozen=True)
class SweepPlan:
    """A sweep's arms, checked before anything is played: the swept knobs and each arm's point of the grid."""

    game: str
    knob: str  # the swept knobs' label
    names: tuple[str, ...]
    values: tuple[str, ...]  # each point as a label
    grid: tuple[tuple[str, ...], ...]
    arms: tuple[Arm, ...]


def plan_sweep(
    game: str,
    seats: Sequence[str],
    settings: tuple[tuple[str, str], ...],
    n_games: int,
    seed: int,
    variant: str | None = None,
) -> SweepPlan:
    """One arm per point of the swept knobs' grid, every arm on the same chunk seeds (see :func:`sweep_grid`).

    Every arm plays ``variant`` (if any): a swept or fixed knob may not give one of its knobs another value.
    """
    seats = validate.names(seats, "seats")
    names, grid, fixed = sweep_grid(validate.text(game, "game"), validate.pairs(settings, "settings"))
    label, values, _ = split_sweep(game, settings)
    chunk = arm_chunk(get_game(game).module.INFO, n_games)
    arms = [
        Arm(
            ", ".join(f"{k}={v}" for k, v in zip(names, point, strict=True)),
            RunSpec(game, tuple(seats), n_games, seed, (*fixed, *zip(names, point, strict=True)), variant, chunk),
        )
        for point in grid
    ]
    validate.check_sizes(((a.spec.n_games, len(a.spec.chunks())) for a in arms), "the sweep")
    return SweepPlan(game, label, tuple(names), tuple(values), tuple(grid), tuple(arms))


def play_sweep(plan: SweepPlan, runner: Runner | None = None, progress: ProgressFactory | None = None) -> Sweep:
    """Play a planned sweep; each row also holds the point's game metrics (:mod:`analysis.game_metrics`)."""
    import pandas as pd

    from boardlab.analysis import game_metrics

    result = _play(list(plan.arms), runner, progress)
    frames = []
    for value, point, run in zip(plan.values, plan.grid, result.results, strict=True):
        seat = run.seat_table()
        seat.insert(0, "value", value)
        if len(plan.names) > 1:
            for k, (name, v) in enumerate(zip(plan.names, point, strict=True)):
                seat.insert(1 + k, name, v)
        seat["mean_turns"] = run.summary.mean_turns()[0]
        for name, metric in run.game_metrics().items():
            if isinstance(metric, game_metrics.Value):
                seat[name], seat[f"{name}_lo"], seat[f"{name}_hi"] = metric.value, metric.low, metric.high
        frames.append(seat)
    spec = plan.arms[0].spec
    fixed = {k: v for k, v in spec.settings if k not in plan.names}
    record = {**provenance(spec), "seats": list(spec.seats), "games_per_point": spec.n_games, "swept": plan.names}
    record |= {"points": [dict(zip(plan.names, point, strict=True)) for point in plan.grid], "fixed": fixed}
    record["variant"] = spec.variant
    return Sweep(plan.game, plan.knob, pd.concat(frames, ignore_index=True), json_ready(record))


def sweep(
    game: str,
    seats: Sequence[str],
    settings: tuple[tuple[str, str], ...],
    n_games: int,
    seed: int,
    runner: Runner | None = None,
    progress: ProgressFactory | None = None,
    variant: str | None = None,
) -> Sweep:
    """Plan (:func:`plan_sweep`) and play ``seats`` at each point of the swept knobs' grid (of ``variant``)."""
    return play_sweep(plan_sweep(game, seats, settings, n_games, seed, variant), runner, progress)
