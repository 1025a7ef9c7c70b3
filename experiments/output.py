"""A run folder: summary tables, metrics, the record of what produced them, and figures.

The files are written beside the folder's current ones, into a staging folder, and only then moved in
(:func:`analysis.files.replacing_together`): the old ``run.json`` goes first and the new one comes last. A
failure while writing (a full disk) leaves the previous files as they were, and a folder with a ``run.json``
always holds the complete set of that one run.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

import numpy as np

from boardlab.analysis.files import atomic_write, replacing, replacing_together
from boardlab.analysis.tables import json_ready
from boardlab.experiments.run.games import combine_games
from boardlab.experiments.run.result import RunResult, package_versions
from boardlab.experiments.run.spec import RunSpec


def provenance(spec: RunSpec, command: list[str] | None = None) -> dict[str, Any]:
    """What a command of many arms records beside its tables (every arm shares ``spec``'s game and seed).

    The command line, the game and its version, the seed and chunk size, and the package versions.
    """
    return json_ready(
        {
            "command": " ".join(command if command is not None else sys.argv),
            "game": spec.game,
            "game_version": spec.module.INFO.version,
            "seed": spec.seed,
            "chunk_size": spec.chunk_size,
            "versions": package_versions(),
        }
    )


def write_run_folder(
    result: RunResult,
    run_dir: Path,
    save_games: bool,
    command: list[str] | None = None,
    precision: float | None = None,
    pool: Executor | None = None,
) -> list[Path]:
    """Write the tables, metrics, figures and record of ``result`` into ``run_dir``; returns the files.

    With a ``pool`` (the run's worker processes), one of its workers writes the Parquet table and the figures
    (the files whose libraries take longest to load; see :func:`load_writer_libraries`) while this process
    writes the rest. Everything is staged first and replaces the previous set as one (see the module docstring);
    ``games.parquet`` of an earlier run goes when this one has none. The caller holds the folder's lock.
    """
    with replacing_together(run_dir, last="run.json") as stage:
        summary, columns = result.summary, result.seat_columns()
        info = result.spec.module.INFO
        figure_data = (summary.score_hist, summary.turns_hist, list(result.spec.seats), info.score_label, info.id)
        heavy = pool.submit(write_table_and_figures, stage, columns, *figure_data) if pool is not None else None
        atomic_write(stage / "summary.csv", csv_bytes(columns))
        atomic_write(stage / "metrics.json", json.dumps(json_ready(result.metrics()), indent=1).encode())
        staged = [stage / "summary.csv", stage / "metrics.json"]
        if save_games:
            staged.append(combine_games(run_dir, result.spec, stage / "games.parquet"))
        staged += heavy.result() if heavy is not None else write_table_and_figures(stage, columns, *figure_data)
        atomic_write(stage / "run.json", json.dumps(result.record(command, precision), indent=1).encode())
        if not save_games:  # only renames are left: the old set goes as the new one comes
            (run_dir / "games.parquet").unlink(missing_ok=True)
    return [*(run_dir / path.name for path in staged), run_dir / "run.json"]


def load_writer_libraries() -> None:
    """Import what :func:`write_table_and_figures` needs (a pool worker does it while the run is playing).

    matplotlib alone takes about half a second to import.
    """
    import pyarrow.parquet  # noqa: F401

    from boardlab.analysis import run_figures  # noqa: F401


def arrow_table(columns: dict[str, list[Any]]) -> Any:
    """``columns`` (all strings, all whole numbers, or numbers) as a pyarrow Table.

    Built from numpy buffers: ``pyarrow.array`` would import pandas just to inspect its input, a third of a
    second on every command.
    """
    import pyarrow as pa

    arrays = []
    for values in columns.values():
        if all(isinstance(v, str) for v in values):
            encoded = [v.encode() for v in values]
            offsets = np.cumsum([0, *map(len, encoded)], dtype=np.int32)
            buffers = [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
            arrays.append(pa.Array.from_buffers(pa.string(), len(values), buffers))
        else:
            data = np.asarray(values)
            whole = data.dtype.kind in "iu"
            data = data.astype(np.int64 if whole else np.float64)
            arrays.append(
                pa.Array.from_buffers(pa.int64() if whole else pa.float64(), len(data), [None, pa.py_buffer(data)])
            )
    return pa.Table.from_arrays(arrays, names=list(columns))


def write_table_and_figures(
    run_dir: Path,
    columns: dict[str, list[Any]],
    score_hist: np.ndarray,
    turns_hist: np.ndarray,
    seats: list[str],
    score_label: str,
    game: str | None = None,
) -> list[Path]:
    """Write ``summary.parquet`` and the two PNG figures (score by seat, game length) in ``game``'s looks."""
    import pyarrow.parquet as pq

    from boardlab.analysis import run_figures
    from boardlab.analysis.style import drawn_for

    with replacing(run_dir / "summary.parquet") as tmp:
        pq.write_table(arrow_table(columns), tmp)
    figures = {
        "score_distribution.png": drawn_for(game, run_figures.score_distribution, score_hist, seats, score_label),
        "game_length.png": run_figures.game_length(turns_hist),
    }
    for name, fig in figures.items():
        with replacing(run_dir / name) as tmp:
            run_figures.save_png(fig, tmp)
    return [run_dir / "summary.parquet", *(run_dir / name for name in figures)]


def csv_bytes(columns: dict[str, list[Any]]) -> bytes:
    """``columns`` as CSV text: a header row, then one row per entry (floats in full precision)."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(zip(*columns.values(), strict=True))
    return text.getvalue().encode()
