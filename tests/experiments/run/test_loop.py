"""The run loop: the same results on any executor, resumed runs, precision rounds, deduplicated arms."""

from __future__ import annotations

from dataclasses import replace

import pytest

from boardlab.experiments.run import (
    FolderStore,
    InProcess,
    MemoryStore,
    Precision,
    RunSpec,
    folder_lock,
    play,
)
from tests.experiments.run.helpers import SPEC, arrays_equal, counting_chunks, run, run_many


def test_results_do_not_depend_on_jobs() -> None:
    one = run(SPEC, jobs=1)
    two = run(SPEC, jobs=2)
    assert arrays_equal(one, two)
    assert one.summary.n_games == 2_500
    assert one.summary.wins.sum() + one.summary.shared_wins.sum() >= 2_500


def test_a_longer_run_extends_a_shorter_one(tmp_path) -> None:

    short = run(replace(SPEC, n_games=2_000), jobs=1, run_dir=tmp_path)
    long = run(replace(SPEC, n_games=3_000), jobs=1, run_dir=tmp_path)
    assert long.chunks_resumed == 2
    assert arrays_equal(run(replace(SPEC, n_games=3_000), jobs=1), long)
    assert short.summary.n_games == 2_000


def test_arms_played_to_a_precision_match_a_single_run_to_it() -> None:
    # 2,500 games leave a short last chunk of 500; the next round needs that chunk in full, not the short one
    spec = RunSpec("pantolino", ("keep-jokers", "keep-jokers"), 2_500, seed=3, chunk_size=1_000)
    [arm] = play([spec], MemoryStore(), InProcess(), Precision(0.01, 50_000_000))
    alone = run(spec, jobs=1, precision=0.01)
    assert arm.spec.n_games == alone.spec.n_games > 2_500
    assert arm.summary.n_games == arm.spec.n_games and arrays_equal(arm, alone)


def test_memory_does_not_grow_with_n() -> None:
    small = run(RunSpec("pantolino", ("keep-jokers",) * 2, 2_000, chunk_size=1_000), jobs=1)
    large = run(RunSpec("pantolino", ("keep-jokers",) * 2, 20_000, chunk_size=1_000), jobs=1)
    size = lambda r: sum(a.nbytes for a in r.summary.to_arrays().values())  # noqa: E731
    assert size(large) <= size(small) + 8 * 64


def test_every_arm_is_checked_before_the_first_game(monkeypatch) -> None:
    played = counting_chunks(monkeypatch)
    good = RunSpec("panots", ("greedy", "greedy"), 10, chunk_size=10)
    solo = RunSpec("panots", ("greedy",), 10, chunk_size=10, settings=(("faces", "line,surrounded,adjacent,majority"),))
    with pytest.raises(ValueError, match="majority"):
        run_many([good, solo])
    assert played == []


def test_saved_chunks_are_reused_and_a_damaged_one_replayed(tmp_path, monkeypatch) -> None:

    specs = [SPEC, replace(SPEC, seats=("greedy", "keep-jokers")), SPEC]  # the repeated arm is played once
    played = counting_chunks(monkeypatch)
    with folder_lock(tmp_path):
        first = run_many(specs, FolderStore(tmp_path))
    files = sorted(tmp_path.glob("*/chunk-*.ckpt"))
    assert len(played) == len(files) == 6 and len(list(tmp_path.glob("*/identity.json"))) == 2
    files[0].write_bytes(files[0].read_bytes()[:-1] + b"x")
    played.clear()
    with folder_lock(tmp_path):
        again = run_many(specs, FolderStore(tmp_path))
    assert len(played) == 1 and all(arrays_equal(a, b) for a, b in zip(first, again, strict=True))
    played.clear()
    run_many(specs)  # a store in memory starts empty: nothing of the folder is reused
    assert len(played) == 6


def test_damaged_saved_games_are_played_again(tmp_path) -> None:
    import pandas as pd

    run(SPEC, jobs=1, run_dir=tmp_path, save_games=True)
    part = tmp_path / "games" / "chunk-000001.parquet"
    expected = pd.read_parquet(part)
    part.write_bytes(part.read_bytes()[:-40] + bytes(40))
    again = run(SPEC, jobs=1, run_dir=tmp_path, save_games=True)
    assert again.chunks_recomputed == [1] and again.chunks_resumed == 2
    pd.testing.assert_frame_equal(pd.read_parquet(part), expected)
