"""A finished run (:class:`RunResult`): the merged summary, its chunks' summaries, and its tables and JSON."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from boardlab.analysis.summary import Summary
from boardlab.experiments.run.spec import RunSpec


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

    def as_json(self) -> dict[str, Any]:
        """The run as one JSON-friendly object (what ``simulate --json`` prints)."""
        from importlib.metadata import version

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
        return {
            "game": self.spec.game,
            "game_version": self.spec.module.INFO.version,
            "n_games": self.summary.n_games,
            "seed": self.spec.seed,
            "variant": self.spec.variant,
            "params": self.spec.params.as_dict(),
            "seats": seats,
            "metrics": self.metrics(),
            "chunk_size": self.spec.chunk_size,
            "elapsed_s": self.elapsed_s,
            "version": version("boardlab"),
        }


def merge_in_order(summaries: Sequence[Summary]) -> Summary:
    """Merge chunk summaries in chunk order (float metrics then sum the same way on every run)."""
    merged = summaries[0]
    for summary in summaries[1:]:
        merged = merged.merge(summary)
    return merged
