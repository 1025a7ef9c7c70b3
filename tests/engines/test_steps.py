"""Long steps talk (engines/steps.py): a line at the start, while they run (off a terminal), and at the end."""

from __future__ import annotations

import fcntl
import io
import os
import re
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from boardlab.engines import cachedir
from boardlab.engines.steps import Step, duration


def test_a_step_says_it_started_how_far_it_got_and_when_it_ended() -> None:
    out = io.StringIO()
    with Step("solving a table", every=0.02, stream=out, periodic=True, unit="rows") as step:
        step.update(3, 12)
        time.sleep(0.15)
    lines = out.getvalue().splitlines()
    assert lines[0] == "solving a table: started"
    assert re.fullmatch(r"solving a table: done in \d+\.\d s", lines[-1])
    assert lines[1:-1] and all(
        re.fullmatch(r"solving a table: 3 of 12 rows \(25%\), \d+\.\d s so far", line) for line in lines[1:-1]
    ), lines


def test_a_step_on_a_terminal_leaves_the_periodic_lines_to_its_bar_and_a_failure_says_stopped() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Terminal()
    try:
        with Step("training", every=0.01, stream=out):
            time.sleep(0.05)
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    lines = out.getvalue().splitlines()
    assert lines[0] == "training: started" and lines[-1].startswith("training: stopped after ") and len(lines) == 2


def test_durations_read_in_plain_words() -> None:
    assert (duration(4.24), duration(185)) == ("4.2 s", "3 min 05 s")


def test_waiting_on_another_process_s_lock_names_the_lock_and_computing_is_a_step(tmp_path: Path, capsys) -> None:
    path = tmp_path / "table.npy"
    lock = path.with_name("table.npy.lock")
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)  # another holder (flock locks are per open file, so a thread will do)
    got: list[np.ndarray] = []
    asker = threading.Thread(
        target=lambda: got.append(cachedir.cached_array(path, lambda: np.ones(3), lambda a: None, "table"))
    )
    asker.start()
    time.sleep(0.3)
    os.close(fd)
    asker.join(10)
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"waiting for another process computing the table (it holds {lock}): started"
    assert err[1].startswith("waiting for another process computing the table") and "done in" in err[1]
    assert err[2] == "computing the table table.npy (once; cached): started" and "done in" in err[3]
    assert len(got) == 1


def test_a_step_announced_late_prints_nothing_when_it_fails_at_once_and_only_its_end_when_it_ends_soon() -> None:
    failed = io.StringIO()
    with pytest.raises(ValueError), Step("playing", stream=failed, periodic=False, announce_after=5.0):
        raise ValueError("bad input")
    assert failed.getvalue() == ""
    quick = io.StringIO()
    with Step("playing", stream=quick, periodic=False, announce_after=5.0):
        pass
    assert len(quick.getvalue().splitlines()) == 1 and "playing: done in" in quick.getvalue()
    slow = io.StringIO()
    with pytest.raises(ValueError), Step("playing", stream=slow, periodic=False, announce_after=0.05):
        time.sleep(0.3)
        raise ValueError("late")
    assert [line.split(":")[1].split()[0] for line in slow.getvalue().splitlines()] == ["started", "stopped"]
