"""The loky pool: this process and ``jobs - 1`` workers of joblib's reusable executor share the tasks.

This is the one module that uses joblib. The pool lives until :func:`stop_worker_pool` (which also runs at
exit), and its workers die with this process however it ends.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import queue
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor as Pool
from concurrent.futures import Future
from typing import Any

WORKER_MEMORY_GROWTH = 4 << 30
"""A worker whose memory grows by more than this (bytes) since its first task is restarted (loky's leak guard)."""
_pool_started: Any = None  # the executor worker_pool last returned, for stop_worker_pool


class Loky:
    """``jobs`` processes on this machine: this one and ``jobs - 1`` loky workers."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs

    def map_unordered(self, task: Callable[..., Any], todo: Sequence[tuple[Any, ...]]) -> Iterator[Any]:
        """Share the tasks with the workers (one task alone runs here)."""
        if self.jobs == 1 or len(todo) <= 1:
            for args in todo:
                yield task(*args)
            return
        yield from shared_with_workers(task, todo, self.jobs)

    def background(self) -> Pool | None:
        """The workers' pool (started now if it was not)."""
        return worker_pool(self.jobs) if self.jobs > 1 else None


def worker_pool(jobs: int) -> Any:
    """The ``jobs - 1`` worker processes that share a run with this process: joblib's reusable loky executor.

    The same executor comes back on every call with the same ``jobs``, so a caller can start it (and give it
    work) before the run does. It lives until :func:`stop_worker_pool`, which also runs at exit, and its workers
    die with this process, however it ends.
    """
    from joblib.externals.loky import get_reusable_executor

    global _pool_started
    with ctrl_c_ignored():
        _pool_started = get_reusable_executor(
            max_workers=jobs - 1, initializer=_die_with_parent, initargs=(os.getpid(),)
        )
        _pool_started.submit(int)  # starts the workers (and loky's manager thread) now, inside the block
    atexit.unregister(stop_worker_pool)  # registered once, and after multiprocessing's own exit handler,
    atexit.register(stop_worker_pool)  # so it runs before that one (last in, first out)
    return _pool_started


STOP_SIGNALS = ("SIGINT", "SIGTERM")
"""What stops a command: Ctrl-C, and what ``timeout``, job schedulers and service managers send."""


@contextlib.contextmanager
def ctrl_c_ignored() -> Iterator[None]:
    """Ignore SIGINT and SIGTERM for the block (from the main thread); processes started in it inherit that.

    Ctrl-C (and ``timeout``'s SIGTERM) reaches the whole process group: such workers (and loky's resource
    tracker) leave it to this process, which stops them with SIGKILL and releases their semaphores, instead of
    each printing a traceback or dying with semaphores held. A signal during the block itself is lost: keep it
    short.
    """
    import signal

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {name: signal.signal(getattr(signal, name), signal.SIG_IGN) for name in STOP_SIGNALS}
    try:
        yield
    finally:
        for name, handler in previous.items():
            signal.signal(getattr(signal, name), handler)


def _die_with_parent(parent: int) -> None:
    """In a pool worker: ask Linux to kill this process when ``parent`` ends (else loky notices a minute late).

    Also let the worker keep its caches: loky restarts a worker whose memory grew by 300 MB since its first task
    (and warns "A worker stopped while some jobs were given to the executor"), but the policies' tables (the
    win-optimal solution, samplers, per-position keeps) grow by design and are costly to rebuild.

    A worker loky starts later (a restarted one) ignores Ctrl-C and SIGTERM too: stopping is this process's.
    """
    import signal

    from joblib.externals.loky import process_executor

    process_executor._MAX_MEMORY_LEAK_SIZE = WORKER_MEMORY_GROWTH  # loky internals, read at every check
    for name in STOP_SIGNALS:
        signal.signal(getattr(signal, name), signal.SIG_IGN)
    if sys.platform == "linux":
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # ended before the request above was made
        os._exit(1)


def stop_worker_pool() -> None:
    """Kill the workers of the pool :func:`worker_pool` started, if any, and wait until loky has let go of it.

    loky's shutdown leaves its call queue's feeder thread running, and that daemon thread holds the queue's
    named semaphores until it ends; cut off by the interpreter's exit, it can release one without telling
    loky's resource tracker, which then prints "leaked semlock" warnings after the command's own output.
    So this waits for that thread too.
    """
    global _pool_started
    if _pool_started is None:
        return
    feeder = getattr(getattr(_pool_started, "_call_queue", None), "_thread", None)  # loky internals
    _pool_started.shutdown(wait=True, kill_workers=True)
    _pool_started = None
    if feeder is not None:
        feeder.join(timeout=10)


def shared_with_workers(task: Callable[..., Any], todo: Sequence[tuple[Any, ...]], jobs: int) -> Iterator[Any]:
    """Run ``task(*args)`` for every ``args`` in ``todo`` on ``jobs - 1`` loky workers and in this process.

    This process would otherwise only wait. Each worker has one task at a time, taken from the front of
    ``todo``; when it finishes, the future's callback (on loky's manager thread) hands it the next one at once,
    while this process plays tasks from the back. So the pool's start-up is hidden behind real work and, at
    the end, nobody waits for more than the one task still running elsewhere (tasks handed to loky cannot be
    taken back). Results come in completion order.
    """
    executor = worker_pool(jobs)
    lock = threading.Lock()
    bounds = [0, len(todo)]  # todo[bounds[0]:bounds[1]] is not started yet
    finished: queue.SimpleQueue = queue.SimpleQueue()  # worker futures, as they complete
    stopped = threading.Event()

    def take(front: bool) -> int | None:
        with lock:
            if bounds[0] >= bounds[1] or stopped.is_set():
                return None
            if front:
                bounds[0] += 1
                return bounds[0] - 1
            bounds[1] -= 1
            return bounds[1]

    def hand_next_to_worker(previous: Any = None) -> None:
        if previous is not None:
            finished.put(previous)
            if previous.cancelled() or previous.exception() is not None:
                return
        index = take(front=True)
        if index is None:
            return
        try:
            executor.submit(task, *todo[index]).add_done_callback(hand_next_to_worker)
        except BaseException as err:  # e.g. a broken pool: the waiting loop below must hear of it
            failed: Future = Future()
            failed.set_exception(err)
            finished.put(failed)

    for _ in range(jobs - 1):
        hand_next_to_worker()
    try:
        for _ in range(len(todo)):
            if finished.empty() and (index := take(front=False)) is not None:
                yield task(*todo[index])
            else:
                yield finished.get().result()
    except BaseException:
        stopped.set()
        stop_worker_pool()
        raise
