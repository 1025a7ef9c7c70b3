"""Folder locks: one process per folder, nested use within a process."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from experiments.run import (
    RunError,
    folder_lock,
)
from tests.experiments.run.helpers import SPEC, run

HOLD_LOCK = """
import sys, time
from pathlib import Path
from experiments.run import folder_lock

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
