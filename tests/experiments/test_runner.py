"""The runner: seeding by chunk, identical results for any jobs, checkpoints and resume."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from experiments import runner
from experiments.runner import (
    Checkpoints,
    RunError,
    RunSpec,
    chunk_rng,
    run,
    run_many,
    run_to_precision,
    saving_chunks,
)

SPEC = RunSpec("pantolino", ("keep-jokers", "greedy"), 2_500, seed=9, chunk_size=1_000)


def arrays_equal(a, b) -> bool:
    x, y = a.summary.to_arrays(), b.summary.to_arrays()
    return x.keys() == y.keys() and all(np.array_equal(x[k], y[k]) for k in x)


def test_chunks_cover_n_with_a_short_last_chunk() -> None:
    assert SPEC.chunks() == [(0, 1000), (1, 1000), (2, 500)]


def test_chunks_are_the_games_own_size_unless_given() -> None:
    assert RunSpec("panots", ("greedy", "greedy"), 2_500).chunks() == [(0, 1000), (1, 1000), (2, 500)]
    assert RunSpec("pantolino", ("greedy", "greedy"), 2_500).chunks() == [(0, 2500)]
    assert RunSpec("panots", ("greedy", "greedy"), 2_500, chunk_size=2_000).chunks() == [(0, 2000), (1, 500)]


def test_chunk_generators_depend_on_seed_and_index_only() -> None:
    assert chunk_rng(9, 3).integers(1 << 30) == chunk_rng(9, 3).integers(1 << 30)
    assert chunk_rng(9, 3).integers(1 << 30) != chunk_rng(9, 4).integers(1 << 30)
    assert chunk_rng(9, 3).integers(1 << 30) != chunk_rng(10, 3).integers(1 << 30)


def test_results_do_not_depend_on_jobs() -> None:
    one = run(SPEC, jobs=1)
    two = run(SPEC, jobs=2)
    assert arrays_equal(one, two)
    assert one.summary.n_games == 2_500
    assert one.summary.wins.sum() + one.summary.shared_wins.sum() >= 2_500


def test_a_longer_run_extends_a_shorter_one(tmp_path) -> None:
    from dataclasses import replace

    short = run(replace(SPEC, n_games=2_000), jobs=1, run_dir=tmp_path)
    long = run(replace(SPEC, n_games=3_000), jobs=1, run_dir=tmp_path)
    assert long.chunks_resumed == 2
    assert arrays_equal(run(replace(SPEC, n_games=3_000), jobs=1), long)
    assert short.summary.n_games == 2_000


def test_resume_uses_saved_chunks_and_recomputes_corrupt_ones(tmp_path) -> None:
    first = run(SPEC, jobs=1, run_dir=tmp_path)
    chunk = tmp_path / "chunks" / "chunk-000001.ckpt"
    chunk.write_bytes(chunk.read_bytes()[:100])  # truncated
    again = run(SPEC, jobs=1, run_dir=tmp_path)
    assert again.chunks_resumed == 2
    assert arrays_equal(first, again)


def test_any_altered_byte_of_a_checkpoint_is_caught(tmp_path) -> None:
    first = run(SPEC, jobs=1, run_dir=tmp_path)
    chunk = tmp_path / "chunks" / "chunk-000001.ckpt"
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
    from dataclasses import replace

    run(SPEC, jobs=1, run_dir=tmp_path)
    other = replace(SPEC, seed=10)
    with pytest.raises(RunError, match="different run"):
        Checkpoints(tmp_path, other)
    assert run(other, jobs=1, run_dir=tmp_path, overwrite=True).chunks_resumed == 0


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"n_games": 0}, "n_games=0 must be a positive whole number"),
        ({"seats": ("keep-jokers",)}, "players=1 is out of range"),
        ({"seats": ("keep-joker", "random")}, "did you mean 'keep-jokers'"),
        ({"variant": "escaping"}, "unknown variant 'escaping'"),
        ({"settings": (("dice", "9"),)}, "dice=9 is out of range"),
        ({"game": "pantolin"}, "did you mean 'pantolino'"),
        ({"chunk_size": 0}, "chunk_size=0 must be a positive whole number"),
        ({"chunk_size": True}, "chunk_size=True must be a positive whole number"),
    ],
)
def test_bad_specs_fail_before_playing(changes: dict, message: str) -> None:
    from dataclasses import asdict

    with pytest.raises(ValueError, match=message):
        RunSpec(**{**asdict(SPEC), **changes})


def test_arms_played_to_a_precision_match_a_single_run_to_it() -> None:
    # 2,500 games leave a short last chunk of 500; the next round needs that chunk in full, not the short one
    spec = RunSpec("pantolino", ("keep-jokers", "keep-jokers"), 2_500, seed=3, chunk_size=1_000)
    [arm] = run_to_precision([spec], 0.01, jobs=1)
    alone = run(spec, jobs=1, precision=0.01)
    assert arm.spec.n_games == alone.spec.n_games > 2_500
    assert arm.summary.n_games == arm.spec.n_games and arrays_equal(arm, alone)


def test_saved_chunks_are_reused_and_a_damaged_one_replayed(tmp_path, monkeypatch) -> None:
    from dataclasses import replace

    specs = [SPEC, replace(SPEC, seats=("greedy", "keep-jokers")), SPEC]  # the repeated arm is played once
    play, played = runner.play_chunk, []
    monkeypatch.setattr(runner, "play_chunk", lambda *a, **k: played.append(a[1]) or play(*a, **k))
    with saving_chunks(tmp_path):
        first = run_many(specs, jobs=1)
    files = sorted(tmp_path.glob("*/chunk-*.ckpt"))
    assert len(played) == len(files) == 6 and len(list(tmp_path.glob("*/identity.json"))) == 2
    files[0].write_bytes(files[0].read_bytes()[:-1] + b"x")
    played.clear()
    with saving_chunks(tmp_path):
        again = run_many(specs, jobs=1)
    assert len(played) == 1 and all(arrays_equal(a, b) for a, b in zip(first, again, strict=True))
    played.clear()
    run_many(specs, jobs=1)  # outside the block nothing is saved or reused
    assert len(played) == 6


def test_memory_does_not_grow_with_n() -> None:
    small = run(RunSpec("pantolino", ("keep-jokers",) * 2, 2_000, chunk_size=1_000), jobs=1)
    large = run(RunSpec("pantolino", ("keep-jokers",) * 2, 20_000, chunk_size=1_000), jobs=1)
    size = lambda r: sum(a.nbytes for a in r.summary.to_arrays().values())  # noqa: E731
    assert size(large) <= size(small) + 8 * 64


POOL_SEMAPHORES_AT_EXIT = """
import atexit, json, multiprocessing.util, sys
from joblib.externals.loky.backend import resource_tracker

held = set()
register, unregister = resource_tracker.register, resource_tracker.unregister
resource_tracker.register = lambda name, kind: (held.add(name), register(name, kind))[1]
resource_tracker.unregister = lambda name, kind: (held.discard(name), unregister(name, kind))[1]
# exit handlers run last in, first out: this one after the runner's, before multiprocessing's
atexit.register(lambda: open(sys.argv[1], "w").write(json.dumps(sorted(held))))
from experiments.runner import RunSpec, run

run(RunSpec("pantolino", ("keep-jokers", "greedy"), 4_000, chunk_size=1_000), jobs=2)
"""


def test_a_script_that_ran_with_workers_exits_with_the_pool_gone(tmp_path) -> None:
    """Semaphores loky releases during interpreter teardown reach its tracker late: it then prints warnings."""
    report = tmp_path / "held.json"
    subprocess.run([sys.executable, "-c", POOL_SEMAPHORES_AT_EXIT, str(report)], timeout=120, check=True)
    assert json.loads(report.read_text()) == []
