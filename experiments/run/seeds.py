"""Chunk seeding: chunk ``i`` draws from ``SeedSequence(seed, spawn_key=(i,))``, never ``seed + i``.

The generator depends on the root seed and the chunk index only, so results are the same whatever the number of
processes, the backend or the order chunks finish in.
"""

from __future__ import annotations

import numpy as np


def chunk_rng(seed: int, index: int) -> np.random.Generator:
    """The generator of chunk ``index``: a child of the root seed, independent of every other chunk."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index,)))
