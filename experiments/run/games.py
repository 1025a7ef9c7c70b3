"""Saved games (``--save-games``): one Parquet part per chunk under ``RUN/games/``, combined into ``games.parquet``.

A part's SHA-256 is recorded in its chunk's checkpoint, so a damaged part is caught and its chunk played again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from boardlab.analysis.files import replacing
from boardlab.experiments.run.chunkfile import file_sha256
from boardlab.experiments.run.spec import RunSpec


def games_part(games_dir: Path, index: int) -> Path:
    """The Parquet file of chunk ``index``'s games."""
    return games_dir / f"chunk-{index:06d}.parquet"


def games_intact(games_dir: Path, index: int, label: dict[str, Any]) -> bool:
    """Whether chunk ``index``'s games part is the one its checkpoint recorded."""
    path = games_part(games_dir, index)
    return "games_sha256" in label and path.exists() and file_sha256(path) == label["games_sha256"]


def games_frame(games: dict[str, np.ndarray], first_game: int) -> Any:
    """Per-game columns as a DataFrame; per-seat and histogram columns are split into ``name_i`` columns."""
    import pandas as pd

    columns: dict[str, np.ndarray] = {"game": first_game + np.arange(len(games["score"]))}
    for name, values in games.items():
        values = np.asarray(values)
        if values.ndim == 1:
            columns[name] = values
        else:
            for i in range(values.shape[1]):
                columns[f"{name}_{i}"] = values[:, i]
    return pd.DataFrame(columns)


def write_games(path: Path, games: dict[str, np.ndarray], index: int, spec: RunSpec) -> str:
    """Write one chunk's games as a Parquet part, atomically; returns the part's SHA-256 (hex)."""
    frame = games_frame(games, index * spec.chunk_size)
    with replacing(path) as tmp:
        frame.to_parquet(tmp, index=False)
        digest = file_sha256(tmp)
    return digest


def combine_games(run_dir: Path, spec: RunSpec, target: Path) -> Path:
    """Concatenate the per-chunk game parts of a run into ``target`` (chunk order)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.concat_tables(pq.read_table(games_part(run_dir / "games", i)) for i, _ in spec.chunks())
    with replacing(target) as tmp:
        pq.write_table(table, tmp)
    return target
