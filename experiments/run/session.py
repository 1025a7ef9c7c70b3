"""A command's runner for its lifetime: a locked folder store (or memory) and the executor of its options."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from boardlab.experiments.run.executors import open_executor
from boardlab.experiments.run.locks import folder_lock
from boardlab.experiments.run.loop import Runner
from boardlab.experiments.run.store import FolderStore, MemoryStore


@contextlib.contextmanager
def open_runner(
    chunks: Path | None = None,
    fresh: bool = False,
    backend: str = "loky",
    jobs: int | None = None,
    scheduler: str | None = None,
) -> Iterator[Runner]:
    """A :class:`Runner` for the block: chunks kept in ``chunks`` (locked; ``fresh``: emptied) or in memory."""
    with contextlib.ExitStack() as stack:
        if chunks is not None:  # a folder in use is refused before any worker starts
            stack.enter_context(folder_lock(chunks))
        store = MemoryStore() if chunks is None else FolderStore(chunks, fresh)
        yield Runner(store, stack.enter_context(open_executor(backend, jobs, scheduler)))
