"""A finished run (:class:`RunResult`): the merged summary, its chunks' summaries, its tables, and its record."""

from __future__ import annotations

import platform
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np

from boardlab.analysis.summary import Summary
from boardlab.analysis.tables import json_ready
from boardlab.experiments.run.spec import RunSpec
from boardlab.experiments.run.stopping import shortfall

HOW_STARTED = ("command", "chunks_resumed")  #: fields of the record that depend on how a run was started


def package_versions() -> dict[str, str]:
    """Versions of Python and the packages that shape results."""
    out = {"python": platform.python_version()}
    for name in ("boardlab", "numpy", "pandas", "joblib"):
        out[name] = version(name)
    return out


@dataclass
class RunResult:
    """A finished run: the merged summary, what produced it, and where it was written."""

    spec: RunSpec
    summary: Summary
    elapsed_s: float
    run_dir: Path | None
    chunks_resumed: int = 0
    per_chunk: list[Summary] = field(default_factory=list)
    chunks_recomputed: list[int] = field(default_factory=list)  # checkpoints found corrupt and played again

    def seat_columns(self) -> dict[str, list[Any]]:
        """Per seat (one list entry each): policy, win rate and its interval, shared wins, mean score and interval."""
        s = self.summary
        win, win_lo, win_hi = s.win_rate()
        score, score_lo, score_hi = s.mean_score()
        columns = {
            "seat": range(s.players),
            "policy": self.spec.seats,
            "games": [s.n_games] * s.players,
            "wins": s.wins,
            "win_rate": win,
            "win_lo": win_lo,
            "win_hi": win_hi,
            "shared_win_rate": s.shared_wins / s.n_games,
            "mean_score": score,
            "score_lo": score_lo,
            "score_hi": score_hi,
        }
        return {
            name: [v.item() if isinstance(v, np.generic) else v for v in values] for name, values in columns.items()
        }

    def seat_rows(self) -> list[dict[str, Any]]:
        """:meth:`seat_columns` as one dict per seat."""
        columns = self.seat_columns()
        return [dict(zip(columns, row, strict=True)) for row in zip(*columns.values(), strict=True)]

    def seat_table(self) -> Any:
        """:meth:`seat_columns` as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.seat_columns())

    def game_metrics(self) -> dict[str, Any]:
        """The game metrics this game defines (:mod:`analysis.game_metrics`): name -> value with its interval."""
        from boardlab.analysis import game_metrics

        info = self.spec.module.INFO
        return game_metrics.compute(self.summary, info.cooperative, info.turns_are_rounds)

    def metrics(self) -> dict[str, Any]:
        """Game-specific numbers: means with intervals, per-seat means, count fractions; and the game metrics."""
        from boardlab.analysis import game_metrics

        s, module = self.summary, self.spec.module
        mean, low, high = s.mean_turns()
        out: dict[str, Any] = {"mean_turns": mean, "mean_turns_ci": [low, high]}
        out["game_metrics"] = game_metrics.as_json(self.game_metrics())
        for name, metric in module.METRICS.items():
            if metric.kind == "counts":
                out[name] = s.counts_fractions(name).tolist()
            else:
                m, lo, hi = s.metric_mean(name)
                out[name] = np.atleast_1d(m).tolist() if metric.kind == "seat" else float(m)
                out[f"{name}_ci"] = (
                    [np.atleast_1d(lo).tolist(), np.atleast_1d(hi).tolist()]
                    if metric.kind == "seat"
                    else [float(lo), float(hi)]
                )
        return out

    def record(self, command: list[str] | None = None, precision: float | None = None) -> dict[str, Any]:
        """The record of the run (its folder's ``run.json``): what produced it and how to play it again.

        The command, game and version, knobs, players, games asked for, precision, seed, chunking, package
        versions and timing.
        """
        spec = self.spec
        reached = None if precision is None else shortfall(self.summary, precision, spec.chunk_size) is None
        return json_ready(
            {
                "command": " ".join(command if command is not None else sys.argv),
                "game": spec.game,
                "game_version": spec.module.INFO.version,
                "variant": spec.variant,
                "params": spec.params.as_dict(),
                "seats": list(spec.seats),
                "n_games": spec.n_games,
                "precision": precision,
                "precision_reached": reached,
                "seed": spec.seed,
                "chunk_size": spec.chunk_size,
                "reproduce": "the same game version, params, seats, seed and chunk_size give the same games",
                "chunks": len(spec.chunks()),
                "chunks_resumed": self.chunks_resumed,
                "elapsed_s": self.elapsed_s,
                "versions": package_versions(),
            }
        )

    def as_json(self, precision: float | None = None) -> dict[str, Any]:
        """What ``simulate --json`` prints: the run's :meth:`record` with its results.

        ``n_games`` is the games played and ``seats`` each seat's results (the record has the games asked for and
        the seats' policies). The command line and the chunks resumed are left out, so the same run prints the
        same JSON however it was started or resumed.
        """
        seats = [
            {
                "seat": r["seat"],
                "policy": r["policy"],
                "win_rate": r["win_rate"],
                "win_rate_ci": [r["win_lo"], r["win_hi"]],
                "shared_win_rate": r["shared_win_rate"],
                "mean_score": r["mean_score"],
                "mean_score_ci": [r["score_lo"], r["score_hi"]],
            }
            for r in self.seat_rows()
        ]
        record = {k: v for k, v in self.record(precision=precision).items() if k not in HOW_STARTED}
        return record | json_ready({"n_games": self.summary.n_games, "seats": seats, "metrics": self.metrics()})


def merge_in_order(summaries: Sequence[Summary]) -> Summary:
    """Merge chunk summaries in chunk order (float metrics then sum the same way on every run)."""
    merged = summaries[0]
    for summary in summaries[1:]:
        merged = merged.merge(summary)
    return merged
