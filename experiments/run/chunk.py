"""One chunk: play it in a worker and reduce it to a mergeable summary before it returns."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from boardlab.analysis.summary import Summary
from boardlab.experiments.run.errors import ChunkError
from boardlab.experiments.run.seeds import chunk_rng
from boardlab.experiments.run.spec import RunSpec


@dataclass
class ChunkResult:
    """One chunk's summary (and its per-game columns when asked)."""

    index: int
    summary: Summary
    games: dict[str, np.ndarray] | None = None


def play_chunk(spec: RunSpec, index: int, size: int, keep_games: bool = False) -> ChunkResult:
    """Play chunk ``index`` of ``spec`` (``size`` games) and reduce it to a summary. Runs in a worker."""
    try:
        module = spec.module
        outcome = module.play(spec.params, list(spec.seats), size, chunk_rng(spec.seed, index))
        summary = Summary.from_outcome(outcome, module.METRICS, module.INFO.cooperative)
    except Exception as err:  # reported to the user as one line; the finished chunks stay saved
        raise ChunkError(index, f"{type(err).__name__}: {err}") from err
    return ChunkResult(index, summary, outcome if keep_games else None)


def check_playable(spec: RunSpec) -> None:
    """Play zero games of ``spec``, so that the game's own checks of its knobs against the seats run now."""
    spec.module.play(spec.params, list(spec.seats), 0, chunk_rng(spec.seed, 0))
