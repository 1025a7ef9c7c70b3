"""What the run package's tests share: a small spec, one-call runs, and a counter of chunks played."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from boardlab.experiments.run import InProcess, MemoryStore, RunSpec, open_executor, play, rule, run_in_folder
from boardlab.experiments.run import chunk as chunk_module

SPEC = RunSpec("pantolino", ("keep-jokers", "greedy"), 2_500, seed=9, chunk_size=1_000)


def arrays_equal(a, b) -> bool:
    x, y = a.summary.to_arrays(), b.summary.to_arrays()
    return x.keys() == y.keys() and all(np.array_equal(x[k], y[k]) for k in x)


def run(spec, jobs=1, run_dir=None, save_games=False, overwrite=False, precision=None):
    """One spec on ``jobs`` processes: in memory, or checkpointed in ``run_dir``."""
    with open_executor("loky", jobs) as executor:
        if run_dir is None:
            return play([spec], MemoryStore(), executor, rule(precision))[0]
        return run_in_folder(spec, Path(run_dir), executor, save_games, False, overwrite, rule(precision))


def run_many(specs, store=None):
    return play(specs, MemoryStore() if store is None else store, InProcess())


def counting_chunks(monkeypatch) -> list[int]:
    """Record the index of every chunk played in this process from now on."""
    play_chunk, played = chunk_module.play_chunk, []
    monkeypatch.setattr(chunk_module, "play_chunk", lambda *a, **k: played.append(a[1]) or play_chunk(*a, **k))
    return played
