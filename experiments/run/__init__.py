"""Running games: seeded chunks, played on an executor, kept in a store, merged, stopped by a rule.

One module per job: :mod:`~experiments.run.spec` (what to play), :mod:`~experiments.run.seeds`,
:mod:`~experiments.run.chunk` (one chunk), :mod:`~experiments.run.chunkfile` (the checkpoint format),
:mod:`~experiments.run.store` (memory and folder stores), :mod:`~experiments.run.locks`,
:mod:`~experiments.run.executors` (in-process; :mod:`~experiments.run.loky`; :mod:`~experiments.run.cluster` for
Dask), :mod:`~experiments.run.stopping`, :mod:`~experiments.run.loop` (the loop), :mod:`~experiments.run.result`,
:mod:`~experiments.run.games` (saved games) and :mod:`~experiments.run.session` (a command's runner).
"""

from boardlab.experiments.run.errors import ChunkError, RunError
from boardlab.experiments.run.executors import Executor, InProcess, check_jobs, open_executor, run_tasks
from boardlab.experiments.run.locks import folder_lock
from boardlab.experiments.run.loop import Runner, local_runner, play, run_in_folder
from boardlab.experiments.run.result import RunResult
from boardlab.experiments.run.session import open_runner
from boardlab.experiments.run.spec import MAX_GAMES, RunSpec
from boardlab.experiments.run.stopping import FIXED, Precision, rule, shortfall
from boardlab.experiments.run.store import FolderStore, MemoryStore, RunFolder

__all__ = [
    "FIXED",
    "MAX_GAMES",
    "ChunkError",
    "Executor",
    "FolderStore",
    "InProcess",
    "MemoryStore",
    "Precision",
    "RunError",
    "RunFolder",
    "RunResult",
    "RunSpec",
    "Runner",
    "check_jobs",
    "folder_lock",
    "local_runner",
    "open_executor",
    "open_runner",
    "play",
    "rule",
    "run_in_folder",
    "run_tasks",
    "shortfall",
]
