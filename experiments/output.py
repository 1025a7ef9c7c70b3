"""A run folder: summary tables, metrics, the record of what produced them, and figures.

Every file is written to a temporary name and renamed into place; ``run.json`` is written last, so a folder
with a ``run.json`` is complete.
"""

from __future__ import annotations

import json
import platform
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

from analysis.tables import json_ready, length_histogram, score_histogram
from experiments.runner import RunResult, atomic_write, combine_games


def package_versions() -> dict[str, str]:
    """Versions of Python and the packages that shape results."""
    out = {"python": platform.python_version()}
    for name in ("boardlab", "numpy", "pandas", "joblib"):
        out[name] = version(name)
    return out


def run_record(result: RunResult, command: list[str] | None = None, precision: float | None = None) -> dict[str, Any]:
    """What produced a run: command, game and version, params, policies, seed, chunking, versions, timing."""
    spec = result.spec
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
            "seed": spec.seed,
            "chunk_size": spec.chunk_size,
            "chunks": len(spec.chunks()),
            "chunks_resumed": result.chunks_resumed,
            "elapsed_s": result.elapsed_s,
            "versions": package_versions(),
        }
    )


def write_run_folder(
    result: RunResult,
    run_dir: Path,
    save_games: bool,
    command: list[str] | None = None,
    plots: bool = True,
    precision: float | None = None,
) -> list[Path]:
    """Write the tables, metrics, figures and record of ``result`` into ``run_dir``; returns the files."""
    run_dir.mkdir(parents=True, exist_ok=True)
    written = []
    table = result.seat_table()
    for name, writer in (
        ("summary.parquet", lambda p: table.to_parquet(p, index=False)),
        ("summary.csv", lambda p: table.to_csv(p, index=False)),
    ):
        tmp = run_dir / f".{name}.tmp"
        writer(tmp)
        tmp.replace(run_dir / name)
        written.append(run_dir / name)
    atomic_write(run_dir / "metrics.json", json.dumps(json_ready(result.metrics()), indent=1).encode())
    written.append(run_dir / "metrics.json")
    if save_games:
        written.append(combine_games(run_dir, result.spec))
    if plots:
        written += write_plots(result, run_dir)
    atomic_write(run_dir / "run.json", json.dumps(run_record(result, command, precision), indent=1).encode())
    written.append(run_dir / "run.json")
    return written


def write_plots(result: RunResult, run_dir: Path) -> list[Path]:
    """Score distribution per seat and game length, as PNG files."""
    import matplotlib.pyplot as plt

    from analysis import plots

    label = result.spec.module.INFO.score_label
    figures = {
        "score_distribution.png": plots.score_distribution(
            score_histogram(result.summary, list(result.spec.seats)), label
        ),
        "game_length.png": plots.game_length(length_histogram(result.summary)),
    }
    paths = []
    for name, fig in figures.items():
        tmp = run_dir / f".{name}.tmp.png"
        fig.savefig(tmp, dpi=110)
        plt.close(fig)
        tmp.replace(run_dir / name)
        paths.append(run_dir / name)
    return paths
