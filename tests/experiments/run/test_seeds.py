"""Chunk seeding: a chunk's generator depends on the root seed and its index only."""

from __future__ import annotations

from boardlab.experiments.run.seeds import chunk_rng


def test_chunk_generators_depend_on_seed_and_index_only() -> None:
    assert chunk_rng(9, 3).integers(1 << 30) == chunk_rng(9, 3).integers(1 << 30)
    assert chunk_rng(9, 3).integers(1 << 30) != chunk_rng(9, 4).integers(1 << 30)
    assert chunk_rng(9, 3).integers(1 << 30) != chunk_rng(10, 3).integers(1 << 30)
