"""Executors: where chunks (and a report's page drawings) run. One protocol, three places.

- :class:`InProcess`: this process, one task after another;
- :class:`experiments.run.loky.Loky`: this process and ``jobs - 1`` loky workers on this machine;
- :class:`experiments.run.cluster.Dask`: the workers of a Dask cluster (local, or at a scheduler's address).

An executor yields results in completion order; the loop merges them in chunk order, so results never depend
on which one ran them. :func:`open_executor` builds one from the command-line options and owns its lifetime.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor as Pool
from typing import Any, Protocol

from boardlab.experiments.run.errors import RunError

MAX_JOBS_PER_CORE = 4  # processes per core of a pool on this machine (loky, or a local Dask cluster)
BACKENDS = ("loky", "dask")


class Executor(Protocol):
    """Runs tasks and yields their results as they finish."""

    jobs: int
    """How many tasks run at once (for sizing work, never for results)."""

    def map_unordered(self, task: Callable[..., Any], todo: Sequence[tuple[Any, ...]]) -> Iterator[Any]:
        """``task(*args)`` for every ``args`` in ``todo``, yielded in completion order."""
        ...

    def background(self) -> Pool | None:
        """A pool to hand side work to while this process works (a run's file writing), if there is one."""
        ...


class InProcess:
    """Every task in this process, in order."""

    jobs = 1

    def map_unordered(self, task: Callable[..., Any], todo: Sequence[tuple[Any, ...]]) -> Iterator[Any]:
        """Run the tasks one after another."""
        for args in todo:
            yield task(*args)

    def background(self) -> Pool | None:
        """None: there is no other process."""
        return None


def check_jobs(jobs: int | None, scheduler: str | None = None) -> int:
    """The number of processes to use: ``jobs``, or every core when None; refused outside the allowed range.

    A pool on this machine (no ``scheduler``) is held to :data:`MAX_JOBS_PER_CORE` processes per core.
    """
    cores = os.cpu_count() or 1
    jobs = cores if jobs is None else jobs
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs={jobs} must be at least 1")
    if scheduler is None and jobs > MAX_JOBS_PER_CORE * cores:
        limit = MAX_JOBS_PER_CORE * cores
        raise ValueError(f"jobs={jobs} is out of range; allowed 1..{limit} ({MAX_JOBS_PER_CORE} per core here)")
    return jobs


def check_backend(backend: str, scheduler: str | None) -> None:
    """Refuse an unknown backend, and a scheduler address without the Dask backend."""
    if backend not in BACKENDS:
        raise ValueError(f"--backend {backend} is not allowed; choose loky or dask")
    if scheduler is not None and backend != "dask":
        raise RunError("--scheduler goes with --backend dask")


@contextlib.contextmanager
def open_executor(backend: str = "loky", jobs: int | None = None, scheduler: str | None = None) -> Iterator[Executor]:
    """The executor of ``backend`` for the block: ``jobs`` processes here, or the Dask cluster at ``scheduler``.

    ``dask`` without a scheduler starts a local cluster of ``jobs`` workers for the block.
    """
    check_backend(backend, scheduler)
    jobs = check_jobs(jobs, scheduler if backend == "dask" else None)
    if backend == "loky":
        from boardlab.experiments.run.loky import Loky

        yield InProcess() if jobs == 1 else Loky(jobs)
        return
    from boardlab.experiments.run.cluster import Dask, dask_client

    with dask_client(scheduler, jobs) as client:
        yield Dask(client)


def run_tasks(executor: Executor, tasks: Sequence[Callable[[], Any]]) -> list[Any]:
    """Run argument-free tasks on ``executor``; results in the order of ``tasks``.

    It makes an executor an :data:`analysis.report.Tasks`: a report draws its pages where its games were played.
    """
    if len(tasks) <= 1:
        return [task() for task in tasks]
    done = dict(executor.map_unordered(_numbered, list(enumerate(tasks))))
    return [done[index] for index in range(len(tasks))]


def _numbered(index: int, task: Callable[[], Any]) -> tuple[int, Any]:
    return index, task()
