"""Chunk stores: resume, damaged and foreign chunk files, checkpoint.json, fresh stores."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from boardlab.experiments.run import FolderStore, MemoryStore, RunError, RunFolder, folder_lock
from tests.experiments.run.helpers import SPEC, arrays_equal, run, run_many


def test_resume_uses_saved_chunks_and_recomputes_corrupt_ones(tmp_path) -> None:
    first = run(SPEC, jobs=1, run_dir=tmp_path)
    chunk = tmp_path / "chunks" / "chunk-000001-1000.ckpt"
    chunk.write_bytes(chunk.read_bytes()[:100])  # truncated
    again = run(SPEC, jobs=1, run_dir=tmp_path)
    assert again.chunks_resumed == 2
    assert arrays_equal(first, again)


def test_any_altered_byte_of_a_checkpoint_is_caught(tmp_path) -> None:
    first = run(SPEC, jobs=1, run_dir=tmp_path)
    chunk = tmp_path / "chunks" / "chunk-000001-1000.ckpt"
    original = chunk.read_bytes()
    for position in range(0, len(original), max(1, len(original) // 23)):
        altered = bytearray(original)
        altered[position] ^= 0x01
        chunk.write_bytes(bytes(altered))
        again = run(SPEC, jobs=1, run_dir=tmp_path)
        assert again.chunks_recomputed == [1], position
        assert arrays_equal(first, again)
        assert chunk.read_bytes() == original


def test_checkpoints_of_another_run_are_refused_unless_overwritten(tmp_path) -> None:

    run(SPEC, jobs=1, run_dir=tmp_path)
    other = replace(SPEC, seed=10)
    with pytest.raises(RunError, match="different run"):
        RunFolder(tmp_path, other)
    assert run(other, jobs=1, run_dir=tmp_path, overwrite=True).chunks_resumed == 0


def test_a_chunk_copied_over_another_is_not_used(tmp_path) -> None:
    first = run(SPEC, jobs=1, run_dir=tmp_path)
    chunks = tmp_path / "chunks"
    (chunks / "chunk-000001-1000.ckpt").write_bytes((chunks / "chunk-000000-1000.ckpt").read_bytes())
    again = run(SPEC, jobs=1, run_dir=tmp_path)
    assert again.chunks_recomputed == [1] and arrays_equal(first, again)


@pytest.mark.parametrize("damage", ["delete", "truncate", "garbage"])
def test_a_lost_checkpoint_json_is_rebuilt_and_keeps_every_chunk(tmp_path, damage: str) -> None:
    first = run(SPEC, jobs=1, run_dir=tmp_path)
    record = tmp_path / "checkpoint.json"
    if damage == "delete":
        record.unlink()
    else:
        record.write_bytes(record.read_bytes()[:20] if damage == "truncate" else b"\x00\xff")
    again = run(SPEC, jobs=1, run_dir=tmp_path)
    assert again.chunks_resumed == 3 and again.chunks_recomputed == [] and arrays_equal(first, again)
    assert json.loads(record.read_text()) == SPEC.identity()


def test_without_checkpoint_json_another_seed_never_uses_the_chunks(tmp_path) -> None:

    run(SPEC, jobs=1, run_dir=tmp_path)
    (tmp_path / "checkpoint.json").unlink()
    other = replace(SPEC, seed=10)
    with pytest.raises(RunError, match="different run"):
        run(other, jobs=1, run_dir=tmp_path)
    replaced = run(other, jobs=1, run_dir=tmp_path, overwrite=True)
    assert replaced.chunks_resumed == 0 and arrays_equal(replaced, run(other, jobs=1))


def test_a_last_chunk_of_another_size_is_neither_corrupt_nor_reused(tmp_path) -> None:

    run(SPEC, jobs=1, run_dir=tmp_path)  # chunks of 1000, 1000, 500
    longer = run(replace(SPEC, n_games=3_000), jobs=1, run_dir=tmp_path)
    assert longer.chunks_resumed == 2 and longer.chunks_recomputed == []
    assert arrays_equal(longer, run(replace(SPEC, n_games=3_000), jobs=1))
    assert run(SPEC, jobs=1, run_dir=tmp_path).chunks_resumed == 3  # both sizes of chunk 2 are kept


def test_a_fresh_chunk_store_keeps_its_lock(tmp_path) -> None:
    with folder_lock(tmp_path):
        run_many([SPEC], FolderStore(tmp_path))
    with folder_lock(tmp_path):
        store = FolderStore(tmp_path, fresh=True)
        assert [p.name for p in tmp_path.iterdir()] == [".lock"] and store.root == tmp_path


def test_a_memory_store_gives_back_what_it_was_given_and_nothing_else() -> None:
    store = MemoryStore()
    [result] = run_many([SPEC], store)
    text = SPEC.identity_text()
    summary, label = store.load(text, 0, 1_000)
    assert np.array_equal(summary.wins, result.per_chunk[0].wins) and label["index"] == 0
    assert store.load(text, 0, 999) is None and store.load(replace(SPEC, seed=1).identity_text(), 0, 1_000) is None
    assert store.where is None


def test_a_run_folder_holds_one_run_only(tmp_path) -> None:
    folder = RunFolder(tmp_path, SPEC)
    with pytest.raises(RunError, match="one run only"):
        folder.load(replace(SPEC, seed=1).identity_text(), 0, 1_000)
