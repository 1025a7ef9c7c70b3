"""Executors: process limits, the loky pool gone at exit, tasks in order on any executor."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from boardlab.experiments.run import InProcess, RunError, check_jobs, open_executor, run_tasks


@pytest.mark.parametrize(("jobs", "ok"), [(1, True), (8, True), (0, False), (9, False), (10_000, False)])
def test_jobs_are_bounded_by_the_cores(monkeypatch, jobs: int, ok: bool) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    if ok:
        assert check_jobs(jobs) == jobs
    else:
        with pytest.raises(ValueError, match="jobs="):
            check_jobs(jobs)
    assert check_jobs(10_000, scheduler="tcp://somewhere:8786") == 10_000  # a remote cluster sizes itself


POOL_SEMAPHORES_AT_EXIT = """
import atexit, json, multiprocessing.util, sys
from joblib.externals.loky.backend import resource_tracker

held = set()
register, unregister = resource_tracker.register, resource_tracker.unregister
resource_tracker.register = lambda name, kind: (held.add(name), register(name, kind))[1]
resource_tracker.unregister = lambda name, kind: (held.discard(name), unregister(name, kind))[1]
# exit handlers run last in, first out: this one after the runner's, before multiprocessing's
atexit.register(lambda: open(sys.argv[1], "w").write(json.dumps(sorted(held))))
from boardlab.experiments.run import MemoryStore, RunSpec, open_executor, play

with open_executor("loky", 2) as executor:
    play([RunSpec("pantolino", ("keep-jokers", "greedy"), 4_000, chunk_size=1_000)], MemoryStore(), executor)
"""


def test_a_script_that_ran_with_workers_exits_with_the_pool_gone(tmp_path) -> None:
    """Semaphores loky releases during interpreter teardown reach its tracker late: it then prints warnings."""
    report = tmp_path / "held.json"
    subprocess.run([sys.executable, "-c", POOL_SEMAPHORES_AT_EXIT, str(report)], timeout=120, check=True)
    assert json.loads(report.read_text()) == []


def test_tasks_come_back_in_order_on_any_executor() -> None:
    tasks = [lambda k=k: k * k for k in range(5)]
    assert run_tasks(InProcess(), tasks) == [0, 1, 4, 9, 16]
    with open_executor("loky", 2) as executor:
        assert run_tasks(executor, tasks) == [0, 1, 4, 9, 16]


@pytest.mark.parametrize(
    ("backend", "scheduler", "message"),
    [("spark", None, "--backend spark is not allowed"), ("loky", "tcp://x:1", "--scheduler goes with")],
)
def test_a_bad_backend_is_refused_before_anything_starts(backend: str, scheduler: str | None, message: str) -> None:
    with pytest.raises((ValueError, RunError), match=message), open_executor(backend, 1, scheduler):
        pass
