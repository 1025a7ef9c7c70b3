"""The runner: seeding by chunk, identical results for any jobs, checkpoints and resume."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from experiments import runner
from experiments.runner import (
    MAX_CHUNKS,
    Checkpoints,
    RunError,
    RunSpec,
    check_jobs,
    chunk_rng,
    folder_lock,
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
        ({"n_games": 10**13}, "n_games=10000000000000 is out of range; allowed 1..1e\\+12"),
        ({"n_games": 2**63 - 1}, "is out of range"),
        ({"n_games": 10**9, "chunk_size": 1}, f"makes 1,000,000,000 chunks; allowed at most {MAX_CHUNKS:,}"),
        ({"chunk_size": 10**7}, "chunk_size=10000000 is out of range"),
        ({"settings": (("dice", "99999999999999999999"),)}, "dice=99999999999999999999 is out of range"),
        ({"variant": "escaping-boots", "settings": (("escaping_boots", "false"),)}, "conflicts with variant"),
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


def test_a_setting_equal_to_the_variants_is_no_conflict() -> None:
    from dataclasses import replace

    spec = replace(SPEC, variant="escaping-boots", settings=(("escaping_boots", "true"),))
    assert spec.params.escaping_boots is True


@pytest.mark.parametrize(("jobs", "ok"), [(1, True), (8, True), (0, False), (9, False), (10_000, False)])
def test_jobs_are_bounded_by_the_cores(monkeypatch, jobs: int, ok: bool) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    if ok:
        assert check_jobs(jobs) == jobs
    else:
        with pytest.raises(ValueError, match="jobs="):
            check_jobs(jobs)
    assert check_jobs(10_000, scheduler="tcp://somewhere:8786") == 10_000  # a remote cluster sizes itself


def test_every_arm_is_checked_before_the_first_game(monkeypatch) -> None:
    play, played = runner.play_chunk, []
    monkeypatch.setattr(runner, "play_chunk", lambda *a, **k: played.append(a[1]) or play(*a, **k))
    good = RunSpec("panots", ("greedy", "greedy"), 10, chunk_size=10)
    solo = RunSpec("panots", ("greedy",), 10, chunk_size=10, settings=(("faces", "line,surrounded,adjacent,majority"),))
    with pytest.raises(ValueError, match="majority"):
        run_many([good, solo], jobs=1)
    assert played == []


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
    from dataclasses import replace

    run(SPEC, jobs=1, run_dir=tmp_path)
    (tmp_path / "checkpoint.json").unlink()
    other = replace(SPEC, seed=10)
    with pytest.raises(RunError, match="different run"):
        run(other, jobs=1, run_dir=tmp_path)
    replaced = run(other, jobs=1, run_dir=tmp_path, overwrite=True)
    assert replaced.chunks_resumed == 0 and arrays_equal(replaced, run(other, jobs=1))


def test_a_last_chunk_of_another_size_is_neither_corrupt_nor_reused(tmp_path) -> None:
    from dataclasses import replace

    run(SPEC, jobs=1, run_dir=tmp_path)  # chunks of 1000, 1000, 500
    longer = run(replace(SPEC, n_games=3_000), jobs=1, run_dir=tmp_path)
    assert longer.chunks_resumed == 2 and longer.chunks_recomputed == []
    assert arrays_equal(longer, run(replace(SPEC, n_games=3_000), jobs=1))
    assert run(SPEC, jobs=1, run_dir=tmp_path).chunks_resumed == 3  # both sizes of chunk 2 are kept


def test_damaged_saved_games_are_played_again(tmp_path) -> None:
    import pandas as pd

    run(SPEC, jobs=1, run_dir=tmp_path, save_games=True)
    part = tmp_path / "games" / "chunk-000001.parquet"
    expected = pd.read_parquet(part)
    part.write_bytes(part.read_bytes()[:-40] + bytes(40))
    again = run(SPEC, jobs=1, run_dir=tmp_path, save_games=True)
    assert again.chunks_recomputed == [1] and again.chunks_resumed == 2
    pd.testing.assert_frame_equal(pd.read_parquet(part), expected)


HOLD_LOCK = """
import sys, time
from pathlib import Path
from experiments.runner import folder_lock

with folder_lock(Path(sys.argv[1])):
    print("locked", flush=True)
    time.sleep(60)
"""


def test_a_folder_in_use_by_another_process_is_refused_until_it_ends(tmp_path) -> None:
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with (
            pytest.raises(RunError, match=f"{tmp_path} is in use by process {holder.pid}; wait"),
            folder_lock(tmp_path),
        ):
            pass
        with pytest.raises(RunError, match="in use"):
            run(SPEC, jobs=1, run_dir=tmp_path)
        assert not (tmp_path / "chunks").exists()
    finally:
        holder.kill()
        holder.wait()
    with folder_lock(tmp_path), folder_lock(tmp_path):  # free once the holder is gone; nesting is fine
        assert (tmp_path / ".lock").read_text().strip() == str(os.getpid())


def test_a_fresh_chunk_store_keeps_its_lock(tmp_path) -> None:
    with saving_chunks(tmp_path):
        run_many([SPEC], jobs=1)
    with saving_chunks(tmp_path, fresh=True) as store:
        assert [p.name for p in tmp_path.iterdir()] == [".lock"] and store.root == tmp_path
