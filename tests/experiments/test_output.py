"""The run folder: tables, metrics, figures and record, written in this process or with a pool worker's help."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from boardlab.experiments.output import arrow_table, csv_bytes, write_run_folder
from boardlab.experiments.run import RunSpec, local_runner
from boardlab.experiments.run.loky import worker_pool

SPEC = RunSpec("pantolino", ("keep-jokers", "random", "turn-optimal"), 3_000, seed=5, chunk_size=1_000)
FILES = ("summary.parquet", "summary.csv", "metrics.json", "score_distribution.png", "game_length.png", "run.json")


@pytest.fixture(scope="module")
def result():
    return local_runner().play([SPEC])[0]


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_folder_holds_every_file_and_the_tables_agree(tmp_path: Path, result, jobs: int) -> None:
    pool = worker_pool(jobs) if jobs > 1 else None
    written = write_run_folder(result, tmp_path, save_games=False, command=["simulate", "x"], pool=pool)
    assert sorted(p.name for p in written) == sorted(FILES)
    assert written[-1].name == "run.json"  # last: its presence means the folder is complete
    expected = result.seat_table()
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "summary.parquet"), expected)
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "summary.csv"), expected)
    for name in ("score_distribution.png", "game_length.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    record = json.loads((tmp_path / "run.json").read_text())
    assert record["command"] == "simulate x" and record["seats"] == list(SPEC.seats)
    assert record["seed"] == 5 and record["chunk_size"] == 1_000 and "seed and chunk_size" in record["reproduce"]
    assert not list(tmp_path.glob(".*")), "temporary files left behind"


def test_arrow_table_keeps_types_and_nan() -> None:
    columns = {"name": ["a", "ß", ""], "count": [1, 2, 3], "share": [0.5, float("nan"), 1.0]}
    table = arrow_table(columns)
    assert [str(t) for t in table.schema.types] == ["string", "int64", "double"]
    assert table.column("name").to_pylist() == ["a", "ß", ""]
    assert table.column("count").to_pylist() == [1, 2, 3]
    assert np.isnan(table.column("share").to_pylist()[1])


def test_csv_has_a_header_and_full_precision_floats() -> None:
    text = csv_bytes({"seat": [0, 1], "rate": [1 / 3, 0.5]}).decode()
    assert text == f"seat,rate\n0,{1 / 3!r}\n1,0.5\n"


@pytest.mark.parametrize("failing", ["csv_bytes", "write_table_and_figures", "record"])
def test_a_write_failure_leaves_the_previous_set_whole(tmp_path: Path, result, monkeypatch, failing: str) -> None:
    import errno

    from boardlab.experiments import output
    from boardlab.experiments.run.result import RunResult

    write_run_folder(result, tmp_path, save_games=False, command=["simulate", "old"])
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    owner = RunResult if failing == "record" else output  # the record is the run's own
    real = getattr(owner, failing)

    def fail_midway(*args, **kwargs):
        real(*args, **kwargs)  # some of the new files are already written when the disk fills
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(owner, failing, fail_midway)
    larger = local_runner().play([RunSpec("pantolino", SPEC.seats, 4_000, seed=5, chunk_size=1_000)])[0]
    with pytest.raises(OSError, match="No space"):
        write_run_folder(larger, tmp_path, save_games=False, command=["simulate", "new"])
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    monkeypatch.setattr(owner, failing, real)
    write_run_folder(larger, tmp_path, save_games=False, command=["simulate", "new"])
    assert json.loads((tmp_path / "run.json").read_text())["n_games"] == 4_000
    assert pd.read_csv(tmp_path / "summary.csv")["games"].tolist() == [4_000] * 3
    assert not list(tmp_path.glob(".*"))
