"""Folder locks: one process per folder, nested use within a process."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from boardlab.experiments.run import (
    RunError,
    folder_lock,
)
from tests.experiments.run.helpers import SPEC, run

HOLD_LOCK = """
import sys, time
from pathlib import Path
from boardlab.experiments.run import folder_lock

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


FRESH_COMMANDS = {
    "game run": ["pantolino", "-p", "greedy", "-n", "200", "--chunk-size", "100", "--overwrite"],
    "tournament": ["tournament", "pantolino", "--policies", "greedy,random", "-n", "200"],
    "sweep": ["sweep", "pantolino", "--set", "rolls=2,3", "-p", "greedy", "-n", "200"],
    "experiment": ["experiment", "pantolino-joker-value"],
    "ladder": ["ladder", "pantolino", "-n", "100", "--budgets", "1"],
    "tune": [
        "tune",
        "pantolino",
        "-p",
        "keep-jokers",
        "--vary",
        "rolls=2..3",
        "--target",
        "duration=15",
        "-n",
        "200",
        "--chunk-size",
        "100",
    ],
    "restrict": ["restrict", "pantolino", "--restrictions", "never-keep-joker", "--strong", "expert:2", "-n", "100"],
}


@pytest.mark.parametrize("command", list(FRESH_COMMANDS))
def test_every_command_locks_its_output_folder_and_fresh_leaves_a_held_one_alone(tmp_path, command: str) -> None:
    """A game run holds ``--out``; every other command on that folder, even with --fresh, stops at once."""
    from typer.testing import CliRunner

    from boardlab.experiments.cli import app

    chunks = tmp_path / "chunks"
    chunks.mkdir()
    (chunks / "chunk-000000-100.ckpt").write_bytes(b"the holder's work")
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        args = [*FRESH_COMMANDS[command], "--fresh", "--jobs", "1", "--quiet", "--out", str(tmp_path)]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2, result.output
        assert f"in use by process {holder.pid}" in result.stderr and len(result.stderr.strip().splitlines()) == 1
        assert (chunks / "chunk-000000-100.ckpt").read_bytes() == b"the holder's work"
        assert sorted(p.name for p in tmp_path.iterdir()) == [".lock", "chunks"]
    finally:
        holder.kill()
        holder.wait()


def test_a_report_whose_chunks_folder_is_held_stops_in_one_line_and_writes_nothing(tmp_path) -> None:
    """The folder a report uses is its ``NAME.chunks``: a second report to the same PDF stops at once."""
    from typer.testing import CliRunner

    from boardlab.experiments.cli import app

    held = tmp_path / "r.chunks"
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(held)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        args = [
            "report",
            "pantolino",
            "-n",
            "100",
            "--fresh",
            "--jobs",
            "1",
            "--quiet",
            "--out",
            str(tmp_path / "r.pdf"),
        ]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2, result.output
        assert f"in use by process {holder.pid}" in result.stderr and len(result.stderr.strip().splitlines()) == 1
        assert sorted(p.name for p in tmp_path.iterdir()) == ["r.chunks"]
        assert sorted(p.name for p in held.iterdir()) == [".lock"]
    finally:
        holder.kill()
        holder.wait()
