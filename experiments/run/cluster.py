"""The Dask executor: tasks run on the workers of a Dask cluster, local or at a scheduler's address.

Every worker needs boardlab installed (the same version) and, for policies with tables (the exact 2-player
Pantolino solution), the same cache folder or the time to build it once (see the README's "Running on a cluster").
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor as Pool
from typing import Any

from boardlab.experiments.run.errors import RunError


class Dask:
    """The workers of a Dask cluster, through ``client``."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.jobs = max(1, sum(client.nthreads().values()))

    def map_unordered(self, task: Callable[..., Any], todo: Sequence[tuple[Any, ...]]) -> Iterator[Any]:
        """Submit every task (in order, which is the order the scheduler prefers) and yield them as they finish."""
        from dask.distributed import as_completed

        futures = [self.client.submit(task, *args, pure=False) for args in todo]
        try:
            for future in as_completed(futures):
                yield future.result()
        finally:  # stopped early (a failing task, Ctrl-C): the rest is not wanted
            self.client.cancel([f for f in futures if not f.done()])

    def background(self) -> Pool | None:
        """None: a run's files are written here."""
        return None


@contextlib.contextmanager
def dask_client(scheduler: str | None, workers: int) -> Iterator[Any]:
    """A Dask client: connected to ``scheduler``, or to a local cluster of ``workers`` processes it starts."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise RunError("the dask backend needs the cluster extra: pip install 'boardlab[cluster]'") from None
    if scheduler is None:
        import dask

        # A worker samples its running task's stack every 10 ms for the dashboard, which has none here.
        with (
            dask.config.set({"distributed.worker.profile.enabled": False}),
            local_cluster(workers) as cluster,
            Client(cluster) as client,
        ):
            client.wait_for_workers(workers)  # every worker present before the first task is placed
            with _quiet_teardown():
                yield client
        return
    try:
        client = Client(scheduler, timeout="10s")
    except (OSError, TimeoutError) as err:
        raise RunError(f"cannot reach the Dask scheduler at {scheduler}: {err}") from None
    with client, _quiet_teardown():
        yield client


@contextlib.contextmanager
def _quiet_teardown() -> Iterator[None]:
    """Silence Dask's loggers when a run is interrupted or fails, before its client closes.

    Futures still tracked in the background then log tracebacks about the closing connection pool (seen after
    Ctrl-C); the user gets the run's own one-line message instead.
    """
    try:
        yield
    except BaseException:
        for name in ("tornado.application", "distributed", "asyncio"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        raise


def local_cluster(workers: int) -> Any:
    """A Dask cluster of ``workers`` single-thread workers on this machine, the first inside this process.

    This process would otherwise only wait for results, and it has distributed imported already: only
    ``workers - 1`` processes must boot (each imports distributed, most of a second).
    """
    from dask.distributed import Nanny, Scheduler, SpecCluster, Worker

    options = {"nthreads": 1, "host": "127.0.0.1", "dashboard": False, "silence_logs": logging.ERROR}
    specs = {"here": {"cls": Worker, "options": options}}
    specs |= {f"process-{i}": {"cls": Nanny, "options": options} for i in range(1, workers)}
    return SpecCluster(
        # any free port for the scheduler's HTTP server: 8787 may belong to another cluster (or run)
        scheduler={"cls": Scheduler, "options": {"host": "127.0.0.1", "dashboard": False, "dashboard_address": ":0"}},
        workers=specs,
        silence_logs=logging.ERROR,  # not the warnings of tasks cancelled by Ctrl-C
        name="boardlab",
    )
