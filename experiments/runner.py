"""Run many seeded games in chunks, in parallel, with checkpoints; merge their summaries.

``n`` games are split into fixed-size chunks. Chunk ``i`` draws from ``SeedSequence(seed, spawn_key=(i,))``,
which depends on the root seed and ``i`` only, so results are bit-identical whatever ``jobs``, the backend or
the order chunks finish in (summaries hold integer sums, merged in chunk order): the same seed and chunk size
reproduce a run. Each finished chunk is written atomically under ``<run folder>/chunks/`` and carries its own
identity (run key, index, size, format), so running the same spec again resumes from the chunks of that spec
only. A process holds an exclusive lock on a run folder (or chunk folder) while it uses it.

Limits, checked before anything starts: at most :data:`MAX_GAMES` games and :data:`MAX_CHUNKS` chunks per run,
at most :data:`MAX_CHUNK_GAMES` games per chunk, and at most :data:`MAX_JOBS_PER_CORE` processes per core for
a pool on this machine.
"""

from __future__ import annotations

import atexit
import contextlib
import contextvars
import fcntl
import hashlib
import io
import json
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from analysis.files import atomic_write, replacing
from analysis.summary import Summary
from engines import core, get_game

CHECKPOINT_FORMAT = 3  # 2: every chunk file holds its own label (run key, index, games); 3: game-metric sums
MAX_GAMES = 10**12  # games per run
MAX_CHUNKS = 100_000  # chunks per run: their summaries are kept in memory until the run is merged
MAX_CHUNK_GAMES = 1_000_000  # games per chunk: a chunk's per-game arrays live in one worker at once
MAX_JOBS_PER_CORE = 4  # processes per core of a pool on this machine (loky, or a local Dask cluster)
LOCK_FILE = ".lock"


class RunError(Exception):
    """A run cannot start or finish; the message is one line meant for the user."""


class ChunkError(Exception):
    """A chunk failed in a worker; carries the chunk index and the original error as text (picklable)."""

    def __init__(self, index: int, error: str) -> None:
        super().__init__(index, error)
        self.index, self.error = index, error

    def __str__(self) -> str:
        return f"chunk {self.index} failed: {self.error}"


@dataclass(frozen=True)
class RunSpec:
    """What to play: a game, its knobs, the seats' policies, how many games, from which seed."""

    game: str
    seats: tuple[str, ...]
    n_games: int
    seed: int = 0
    settings: tuple[tuple[str, str], ...] = ()  # knob overrides as text, applied after the variant's
    variant: str | None = None
    chunk_size: int | None = None  # games per chunk; None: the game's own (``INFO.chunk_games``)
    variant_sets: tuple[tuple[str, str], ...] | None = None  # the variant's knobs; None: looked up by name

    def __post_init__(self) -> None:
        """Check everything that can be checked before any game is played.

        A variant's knobs are looked up here (the game's own, or one from a variants file loaded in this
        process, see :mod:`experiments.variants`) and carried by the spec, so worker processes need no file.
        """
        if self.variant is not None and self.variant_sets is None:
            from experiments import variants

            found = variants.settings_of(self.game, self.variant)
            if found is None:
                raise ValueError(
                    f"unknown variant '{self.variant}' for {self.game}"
                    f"{core.did_you_mean(self.variant, variants.names(self.game))}"
                )
            object.__setattr__(self, "variant_sets", tuple(found.items()))
        if isinstance(self.n_games, bool) or not isinstance(self.n_games, int) or self.n_games < 1:
            raise ValueError(f"n_games={self.n_games!r} must be a positive whole number")
        if self.n_games > MAX_GAMES:
            raise ValueError(f"n_games={self.n_games} is out of range; allowed 1..{MAX_GAMES:.0e}")
        if not 0 <= self.seed < 2**63:
            raise ValueError(f"seed={self.seed} is out of range; allowed 0..2**63-1")
        module = self.module
        if self.chunk_size is None:
            object.__setattr__(self, "chunk_size", core.default_chunk(module.INFO, module.POLICIES, self.seats))
        if isinstance(self.chunk_size, bool) or not isinstance(self.chunk_size, int) or self.chunk_size < 1:
            raise ValueError(f"chunk_size={self.chunk_size!r} must be a positive whole number")
        if self.chunk_size > MAX_CHUNK_GAMES:
            raise ValueError(f"chunk_size={self.chunk_size} is out of range; allowed 1..{MAX_CHUNK_GAMES:,}")
        if (chunks := -(-self.n_games // self.chunk_size)) > MAX_CHUNKS:
            raise ValueError(
                f"n_games={self.n_games:,} in chunks of {self.chunk_size:,} games makes {chunks:,} chunks; "
                f"allowed at most {MAX_CHUNKS:,} (fewer games or larger chunks)"
            )
        core.check_players(module.INFO, len(self.seats))
        policies = core.resolve_policies(module.POLICIES, self.seats)
        params = self.params  # validates variant and knobs
        for policy in dict.fromkeys(policies):  # a policy with tables to build builds them here, once, not per worker
            if hasattr(policy.impl, "prepare"):
                core.instantiate(policy, params).prepare(len(self.seats))

    @property
    def module(self) -> Any:
        """The game package."""
        return get_game(self.game).module

    @property
    def params(self) -> core.Params:
        """The game's ``Params`` with the variant's and then the explicit knob settings applied.

        A setting that gives a knob of the variant another value is refused (neither silently wins).
        """
        module = self.module
        chosen = dict(self.variant_sets or ())
        params = module.Params().with_strings(chosen)
        settings = dict(self.settings)
        final = params.with_strings(settings)
        for name, text in settings.items():
            key = name.replace("-", "_")
            if key in chosen and getattr(final, key) != getattr(params, key):
                raise ValueError(
                    f"{key}={text} conflicts with variant '{self.variant}', which sets {key}={chosen[key]}; "
                    "give one or the other"
                )
        return final

    def chunks(self) -> list[tuple[int, int]]:
        """``(index, games)`` of every chunk."""
        full, rest = divmod(self.n_games, self.chunk_size)
        return [(i, self.chunk_size) for i in range(full)] + ([(full, rest)] if rest else [])

    def identity(self) -> dict[str, Any]:
        """Everything that determines a chunk's games (not ``n_games``: a longer run reuses earlier chunks)."""
        module = self.module
        return {
            "format": CHECKPOINT_FORMAT,
            "game": self.game,
            "version": module.INFO.version,
            "params": self.params.as_dict(),
            "seats": list(self.seats),
            "seed": self.seed,
            "chunk_size": self.chunk_size,
        }

    def key(self) -> str:
        """A short hash of the identity and ``n_games``, naming the default run folder."""
        text = json.dumps({**self.identity(), "n_games": self.n_games}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:10]


def identity_key(identity: dict[str, Any] | str) -> str:
    """The SHA-256 (hex) of an identity (or of its JSON text): what every chunk file of that identity records."""
    text = identity if isinstance(identity, str) else json.dumps(identity, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


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


_held_locks: set[Path] = set()  # folders this process has locked


@contextlib.contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``folder`` (created if missing) for the block; nested use in a process is fine.

    The lock is ``flock`` on ``folder/.lock``, which names the holding process; the kernel releases it when
    that process ends, however it ends. Another process holding it raises :class:`RunError` at once.
    """
    folder.mkdir(parents=True, exist_ok=True)
    key = folder.resolve()
    if key in _held_locks:  # an enclosing block of this process holds it
        yield
        return
    fd = os.open(key / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
        os.close(fd)
        raise RunError(
            f"{folder} is in use by {'process ' + holder if holder.isdigit() else 'another process'}; "
            "wait for it to finish or choose another folder"
        ) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    _held_locks.add(key)
    try:
        yield
    finally:
        _held_locks.discard(key)
        os.close(fd)


def clear_folder(folder: Path) -> None:
    """Delete everything in ``folder`` but its lock file."""
    for entry in folder.iterdir() if folder.is_dir() else ():
        if entry.name != LOCK_FILE:
            shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()


def chunk_rng(seed: int, index: int) -> np.random.Generator:
    """The generator of chunk ``index``: a child of the root seed, independent of every other chunk."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index,)))


@dataclass
class ChunkResult:
    """One chunk's summary (and its per-game columns when asked)."""

    index: int
    summary: Summary
    games: dict[str, np.ndarray] | None = None


def play_chunk(spec: RunSpec, index: int, size: int, keep_games: bool = False) -> ChunkResult:
    """Play chunk ``index`` of ``spec`` (``size`` games) and reduce it to a summary. Runs in a worker."""
    try:
        module = spec.module
        outcome = module.play(spec.params, list(spec.seats), size, chunk_rng(spec.seed, index))
        summary = Summary.from_outcome(outcome, module.METRICS, module.INFO.cooperative)
    except Exception as err:  # reported to the user as one line; the finished chunks stay saved
        raise ChunkError(index, f"{type(err).__name__}: {err}") from err
    return ChunkResult(index, summary, outcome if keep_games else None)


@dataclass
class RunResult:
    """A finished run: the merged summary, what produced it, and where it was written."""

    spec: RunSpec
    summary: Summary
    elapsed_s: float
    run_dir: Path | None
    chunks_resumed: int = 0
    per_chunk: list[Summary] = field(default_factory=list)
    chunks_recomputed: list[int] = field(default_factory=list)  # checkpoints found corrupt and played again

    def seat_columns(self) -> dict[str, list[Any]]:
        """Per seat (one list entry each): policy, win rate and its interval, shared wins, mean score and interval."""
        s = self.summary
        win, win_lo, win_hi = s.win_rate()
        score, score_lo, score_hi = s.mean_score()
        columns = {
            "seat": range(s.players),
            "policy": self.spec.seats,
            "games": [s.n_games] * s.players,
            "wins": s.wins,
            "win_rate": win,
            "win_lo": win_lo,
            "win_hi": win_hi,
            "shared_win_rate": s.shared_wins / s.n_games,
            "mean_score": score,
            "score_lo": score_lo,
            "score_hi": score_hi,
        }
        return {
            name: [v.item() if isinstance(v, np.generic) else v for v in values] for name, values in columns.items()
        }

    def seat_rows(self) -> list[dict[str, Any]]:
        """:meth:`seat_columns` as one dict per seat."""
        columns = self.seat_columns()
        return [dict(zip(columns, row, strict=True)) for row in zip(*columns.values(), strict=True)]

    def seat_table(self) -> Any:
        """:meth:`seat_columns` as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.seat_columns())

    def game_metrics(self) -> dict[str, Any]:
        """The game metrics this game defines (:mod:`analysis.game_metrics`): name -> value with its interval."""
        from analysis import game_metrics

        return game_metrics.compute(self.summary, self.spec.module.INFO.cooperative)

    def metrics(self) -> dict[str, Any]:
        """Game-specific numbers: means with intervals, per-seat means, count fractions; and the game metrics."""
        from analysis import game_metrics

        s, module = self.summary, self.spec.module
        mean, low, high = s.mean_turns()
        out: dict[str, Any] = {"mean_turns": mean, "mean_turns_ci": [low, high]}
        out["game_metrics"] = game_metrics.as_json(self.game_metrics())
        for name, metric in module.METRICS.items():
            if metric.kind == "counts":
                out[name] = s.counts_fractions(name).tolist()
            else:
                m, lo, hi = s.metric_mean(name)
                out[name] = np.atleast_1d(m).tolist() if metric.kind == "seat" else float(m)
                out[f"{name}_ci"] = (
                    [np.atleast_1d(lo).tolist(), np.atleast_1d(hi).tolist()]
                    if metric.kind == "seat"
                    else [float(lo), float(hi)]
                )
        return out

    def as_json(self) -> dict[str, Any]:
        """The run as one JSON-friendly object (what ``simulate --json`` prints)."""
        from importlib.metadata import version

        seats = [
            {
                "seat": r["seat"],
                "policy": r["policy"],
                "win_rate": r["win_rate"],
                "win_rate_ci": [r["win_lo"], r["win_hi"]],
                "shared_win_rate": r["shared_win_rate"],
                "mean_score": r["mean_score"],
                "mean_score_ci": [r["score_lo"], r["score_hi"]],
            }
            for r in self.seat_rows()
        ]
        return {
            "game": self.spec.game,
            "game_version": self.spec.module.INFO.version,
            "n_games": self.summary.n_games,
            "seed": self.spec.seed,
            "variant": self.spec.variant,
            "params": self.spec.params.as_dict(),
            "seats": seats,
            "metrics": self.metrics(),
            "chunk_size": self.spec.chunk_size,
            "elapsed_s": self.elapsed_s,
            "version": version("boardlab"),
        }


# --- checkpoints ----------------------------------------------------------------------------------------------


DIGEST_BYTES = hashlib.sha256().digest_size  # a checkpoint file starts with the SHA-256 of the rest
LABEL = "chunk_label"  # the archive entry holding a chunk's label (JSON bytes)


def chunk_label(run_key: str, index: int, games: int) -> dict[str, Any]:
    """What a chunk file must say about itself to be used as chunk ``index`` (``games`` games) of run ``run_key``."""
    return {"format": CHECKPOINT_FORMAT, "run": run_key, "index": index, "games": games}


class Checkpoints:
    """Finished chunks of one run, stored as ``chunks/chunk-NNNNNN-GAMES.ckpt`` next to ``checkpoint.json``.

    A checkpoint file is the SHA-256 digest of an npz archive of the chunk's summary and label, then the archive:
    any truncated or altered byte, and any chunk of another run, index or size, is caught before it is used.
    ``checkpoint.json`` records the run's identity for people and for refusing another run's folder; when it is
    lost or unreadable, the chunks' own labels tell whose they are, and it is written again.
    """

    def __init__(self, run_dir: Path, spec: RunSpec, fresh: bool = False, overwrite: bool = False) -> None:
        """Open (or start) the checkpoints in ``run_dir``; refuse those of a different spec unless told."""
        self.dir = run_dir / "chunks"
        identity_file = run_dir / "checkpoint.json"
        identity = spec.identity()
        self.run_key = identity_key(identity)
        if fresh and self.dir.exists():
            shutil.rmtree(self.dir)
        if self.dir.exists():
            try:
                stored = json.loads(identity_file.read_text())
            except (OSError, ValueError):  # lost or damaged: the chunks' labels decide
                stored = None if self._foreign_chunks() else identity
            if stored != identity:
                if not overwrite:
                    raise RunError(
                        f"{run_dir} holds checkpoints of a different run; use --overwrite to replace "
                        "them or --out for another folder"
                    )
                shutil.rmtree(self.dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        atomic_write(identity_file, json.dumps(identity, indent=1, sort_keys=True).encode())
        self.corrupt: list[int] = []

    def _foreign_chunks(self) -> bool:
        """Whether an intact chunk file in the folder belongs to another run."""
        for path in self.dir.glob("chunk-*.ckpt"):
            found = read_checkpoint(path)
            if found is not None and found[1].get("run") != self.run_key:
                return True
        return False

    def path(self, index: int, games: int) -> Path:
        """Where chunk ``index`` of ``games`` games is stored."""
        return self.dir / f"chunk-{index:06d}-{games}.ckpt"

    def load(self, index: int, size: int) -> tuple[Summary, dict[str, Any]] | None:
        """The stored summary and label of chunk ``index`` if intact and this run's, else None (noting damage)."""
        path = self.path(index, size)
        if not path.exists():
            return None
        found = read_checkpoint(path, chunk_label(self.run_key, index, size))
        if found is None:
            self.corrupt.append(index)
            path.unlink(missing_ok=True)
        return found

    def save(self, index: int, summary: Summary, games_sha256: str | None = None) -> None:
        """Store chunk ``index`` atomically, with the digest of its saved games when there are some."""
        label = chunk_label(self.run_key, index, summary.n_games)
        if games_sha256 is not None:
            label["games_sha256"] = games_sha256
        write_checkpoint(self.path(index, summary.n_games), summary, label)


def read_checkpoint(path: Path, expected: dict[str, Any] | None = None) -> tuple[Summary, dict[str, Any]] | None:
    """The summary and label in checkpoint file ``path``, or None unless it is whole and its label right.

    Right: the label has every item of ``expected``, and the summary as many games as the label says.
    """
    raw = path.read_bytes()
    digest, archive = raw[:DIGEST_BYTES], raw[DIGEST_BYTES:]
    if hashlib.sha256(archive).digest() != digest:
        return None
    try:
        with np.load(io.BytesIO(archive), allow_pickle=False) as data:
            label = json.loads(data[LABEL].tobytes())
            summary = Summary.from_arrays({k: data[k] for k in data.files if k != LABEL})
    except Exception:  # an intact file that still cannot be read is recomputed, never used
        return None
    if expected is not None and any(label.get(k) != v for k, v in expected.items()):
        return None
    return (summary, label) if summary.n_games == label.get("games") else None


def write_checkpoint(path: Path, summary: Summary, label: dict[str, Any]) -> None:
    """Write ``summary`` and ``label`` to ``path`` atomically: the SHA-256 of an npz archive, then the archive."""
    archive = io.BytesIO()
    np.savez(archive, **summary.to_arrays(), **{LABEL: np.frombuffer(json.dumps(label).encode(), np.uint8)})
    atomic_write(path, hashlib.sha256(archive.getvalue()).digest() + archive.getvalue())


class ChunkStore:
    """Finished chunks of many arms in one folder: the chunk cache of :func:`run_many` that survives the process.

    Keys are ``(identity key, chunk index, games)``. Each arm gets a sub-folder named by a digest of its identity
    (with the identity in ``identity.json``); its chunks are files in the format of :class:`Checkpoints`, and one
    that fails the check (damaged, or labelled for another arm, index or size) is deleted and played again.
    Replaying a stored chunk gives the same summary, so a command that uses a store and is stopped resumes
    where it was.
    """

    def __init__(self, root: Path, fresh: bool = False) -> None:
        """Use the chunks already in ``root`` (``fresh``: delete them first)."""
        if fresh:
            clear_folder(root)
        self.root = root
        self._loaded: dict[tuple[str, int, int], Summary] = {}

    def _path(self, key: tuple[str, int, int]) -> Path:
        identity, index, games = key
        arm = identity_key(identity)[:16]
        return self.root / arm / f"chunk-{index:06d}-{games}.ckpt"

    def __contains__(self, key: tuple[str, int, int]) -> bool:
        if key in self._loaded:
            return True
        path = self._path(key)
        if not path.exists():
            return False
        found = read_checkpoint(path, chunk_label(identity_key(key[0]), key[1], key[2]))
        if found is None:
            path.unlink(missing_ok=True)
            return False
        self._loaded[key] = found[0]
        return True

    def __getitem__(self, key: tuple[str, int, int]) -> Summary:
        return self._loaded[key]

    def __setitem__(self, key: tuple[str, int, int], summary: Summary) -> None:
        path = self._path(key)
        if not (path.parent / "identity.json").exists():
            atomic_write(path.parent / "identity.json", key[0].encode())
        write_checkpoint(path, summary, chunk_label(identity_key(key[0]), key[1], key[2]))
        self._loaded[key] = summary


ChunkCache = dict[tuple[str, int, int], Summary] | ChunkStore
"""Summaries of finished chunks by ``(identity key, chunk index, games)``: in memory, or a :class:`ChunkStore`."""
_saved_chunks: contextvars.ContextVar[ChunkCache | None] = contextvars.ContextVar("saved_chunks", default=None)


@contextlib.contextmanager
def saving_chunks(root: Path, fresh: bool = False) -> Iterator[ChunkStore]:
    """Within the block, :func:`run_many` and :func:`run_to_precision` keep their chunks in ``root`` and reuse them.

    So a report, tournament, sweep or study that is stopped resumes when run again. ``root`` is locked for the
    block (see :func:`folder_lock`).
    """
    with folder_lock(root):
        store = ChunkStore(root, fresh)
        token = _saved_chunks.set(store)
        try:
            yield store
        finally:
            _saved_chunks.reset(token)


@contextlib.contextmanager
def sharing_chunks() -> Iterator[ChunkCache]:
    """Within the block, every run reuses the chunks any earlier run of the block played.

    They are kept in memory, unless an enclosing :func:`saving_chunks` block keeps them on disk already.
    """
    cache = _saved_chunks.get()
    if cache is not None:
        yield cache
        return
    cache = {}
    token = _saved_chunks.set(cache)
    try:
        yield cache
    finally:
        _saved_chunks.reset(token)


def _chunk_cache() -> ChunkCache:
    store = _saved_chunks.get()
    return {} if store is None else store


# --- running -------------------------------------------------------------------------------------------------


def _execute(
    spec: RunSpec, todo: Sequence[tuple[int, int]], jobs: int, keep_games: bool, backend: str
) -> Iterator[ChunkResult]:
    """Yield chunk results as they finish: in this process for one job, else shared with a pool."""
    if backend == "dask":
        from joblib import Parallel, delayed, parallel_config

        with parallel_config(backend="dask", n_jobs=-1):
            parallel = Parallel(return_as="generator_unordered", batch_size=1)  # one chunk per task
            yield from parallel(delayed(play_chunk)(spec, index, size, keep_games) for index, size in todo)
    elif jobs == 1 or len(todo) <= 1:
        for index, size in todo:
            yield play_chunk(spec, index, size, keep_games)
    else:
        yield from _shared_with_workers(play_chunk, [(spec, index, size, keep_games) for index, size in todo], jobs)


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


_pool_started: Any = None  # the executor worker_pool last returned, for stop_worker_pool
WORKER_MEMORY_GROWTH = 4 << 30
"""A worker whose memory grows by more than this (bytes) since its first task is restarted (loky's leak guard)."""


@contextlib.contextmanager
def ctrl_c_ignored() -> Iterator[None]:
    """Ignore SIGINT for the block (from the main thread); processes started in it inherit the ignoring.

    Ctrl-C reaches the whole process group: such workers leave it to this process, which stops them, instead
    of each printing a traceback while it starts. A Ctrl-C during the block itself is lost: keep it short.
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _die_with_parent(parent: int) -> None:
    """In a pool worker: ask Linux to kill this process when ``parent`` ends (else loky notices a minute late).

    Also let the worker keep its caches: loky restarts a worker whose memory grew by 300 MB since its first task
    (and warns "A worker stopped while some jobs were given to the executor"), but the policies' tables (the
    win-optimal solution, samplers, per-position keeps) grow by design and are costly to rebuild.
    """
    from joblib.externals.loky import process_executor

    process_executor._MAX_MEMORY_LEAK_SIZE = WORKER_MEMORY_GROWTH  # loky internals, read at every check
    if sys.platform == "linux":
        import ctypes
        import signal

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


def tasks_on_pool(jobs: int | None) -> Callable[[Sequence[Callable[[], Any]]], list[Any]]:
    """Run argument-free tasks on ``jobs`` processes (this one and the run's pool); results in order.

    It is an :data:`analysis.report.Tasks`: a report draws its pages on the workers that played its games.
    """
    jobs = check_jobs(jobs)

    def run(tasks: Sequence[Callable[[], Any]]) -> list[Any]:
        if jobs == 1 or len(tasks) <= 1:
            return [task() for task in tasks]
        done = dict(_shared_with_workers(_numbered, list(enumerate(tasks)), jobs))
        return [done[index] for index in range(len(tasks))]

    return run


def _numbered(index: int, task: Callable[[], Any]) -> tuple[int, Any]:
    return index, task()


def _shared_with_workers(task: Callable[..., Any], todo: Sequence[tuple[Any, ...]], jobs: int) -> Iterator[Any]:
    """Run ``task(*args)`` for every ``args`` in ``todo`` on ``jobs - 1`` loky workers and in this process.

    This process would otherwise only wait. Each worker has one task at a time, taken from the front of
    ``todo``; when it finishes, the future's callback (on loky's manager thread) hands it the next one at once,
    while this process plays tasks from the back. So the pool's start-up is hidden behind real work and, at
    the end, nobody waits for more than the one task still running elsewhere (tasks handed to loky cannot be
    taken back). Results come in completion order.
    """
    import queue
    import threading
    from concurrent.futures import Future

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
            client.wait_for_workers(workers)  # joblib sizes its dispatch by the workers present when it starts
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
    import logging

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
    import logging

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


@contextlib.contextmanager
def backend_context(backend: str, scheduler: str | None, jobs: int) -> Iterator[None]:
    """Set up what a backend needs for the duration of a run (a Dask client for ``dask``)."""
    if backend == "loky":
        if scheduler is not None:
            raise RunError("--scheduler goes with --backend dask")
        yield
    elif backend == "dask":
        with dask_client(scheduler, jobs):
            yield
    else:
        raise ValueError(f"backend={backend!r} is not allowed; choose one of loky, dask")


def run(
    spec: RunSpec,
    jobs: int | None = None,
    run_dir: Path | str | None = None,
    save_games: bool = False,
    progress: Callable[[int], None] | None = None,
    fresh: bool = False,
    overwrite: bool = False,
    backend: str = "loky",
    precision: float | None = None,
    max_games: int = 100_000_000,
    on_target: Callable[[int], None] | None = None,
    scheduler: str | None = None,
) -> RunResult:
    """Play ``spec`` and return the merged result; with ``run_dir``, checkpoint chunks there and resume.

    ``jobs`` defaults to every core. ``progress`` is called with the number of games of each chunk done. With
    ``precision``, whole chunks are added (after the first ``spec.n_games``) until every seat's win rate has a
    95% half-width of at most ``precision`` or ``max_games`` is reached; ``on_target`` hears each new total.
    The result's spec holds the number of games actually played. ``backend="dask"`` runs the chunks on the
    Dask cluster at ``scheduler`` (or on a local one of ``jobs`` workers). A failing chunk raises
    :class:`RunError` naming it; the chunks finished before it stay saved. ``run_dir`` is locked for the run
    (see :func:`folder_lock`).
    """
    jobs = check_jobs(jobs, scheduler if backend == "dask" else None)
    if precision is not None and not 0 < precision < 0.5:
        raise ValueError(f"precision={precision} is out of range; allowed 0 < precision < 0.5")
    check_playable(spec)  # the game's own checks of its knobs against the seats, before any folder or process
    start = time.perf_counter()
    with contextlib.ExitStack() as stack:
        checkpoints, games_dir = None, None
        if run_dir is not None:
            stack.enter_context(folder_lock(Path(run_dir)))
            checkpoints = Checkpoints(Path(run_dir), spec, fresh, overwrite)
            games_dir = Path(run_dir) / "games" if save_games else None
        with backend_context(backend, scheduler, jobs):
            spec, merged, ordered, resumed = _run_rounds(
                spec, jobs, checkpoints, games_dir, save_games, progress, backend, precision, max_games, on_target
            )
    recomputed = sorted(checkpoints.corrupt) if checkpoints else []
    return RunResult(
        spec, merged, time.perf_counter() - start, Path(run_dir) if run_dir else None, resumed, ordered, recomputed
    )


def _run_rounds(
    spec: RunSpec,
    jobs: int,
    checkpoints: Checkpoints | None,
    games_dir: Path | None,
    save_games: bool,
    progress: Callable[[int], None] | None,
    backend: str,
    precision: float | None,
    max_games: int,
    on_target: Callable[[int], None] | None,
) -> tuple[RunSpec, Summary, list[Summary], int]:
    """Play the missing chunks of ``spec`` (and, with ``precision``, of each larger round); merge them."""
    from dataclasses import replace

    summaries: dict[int, Summary] = {}
    resumed = 0
    while True:
        todo = []
        for index, size in spec.chunks():
            if index in summaries and summaries[index].n_games == size:
                continue
            stored = checkpoints.load(index, size) if checkpoints else None
            if stored is not None and games_dir is not None and not _games_intact(games_dir, index, stored[1]):
                if "games_sha256" in stored[1]:  # saved with the chunk and damaged since (else never saved)
                    checkpoints.corrupt.append(index)  # type: ignore[union-attr]
                stored = None
            if stored is not None:
                summaries[index] = stored[0]
                resumed += 1
                if progress:
                    progress(size)
            else:
                todo.append((index, size))
        try:
            for result in _execute(spec, todo, jobs, save_games, backend):
                digest = None
                if games_dir is not None and result.games is not None:
                    digest = write_games(games_part(games_dir, result.index), result.games, result.index, spec)
                if checkpoints:
                    checkpoints.save(result.index, result.summary, digest)
                summaries[result.index] = result.summary
                if progress:
                    progress(result.summary.n_games)
        except ChunkError as err:
            kept = f"; the {len(summaries)} finished chunks are saved in {checkpoints.dir}" if checkpoints else ""
            raise RunError(f"{err}{kept}") from None
        ordered = [summaries[i] for i, _ in spec.chunks()]
        merged = merge_in_order(ordered)
        target = None if precision is None else games_for_precision(merged, precision, spec.chunk_size, max_games)
        if target is None:
            return spec, merged, ordered, resumed
        spec = replace(spec, n_games=target)
        if on_target:
            on_target(target)


def games_part(games_dir: Path, index: int) -> Path:
    """The Parquet file of chunk ``index``'s games."""
    return games_dir / f"chunk-{index:06d}.parquet"


def _games_intact(games_dir: Path, index: int, label: dict[str, Any]) -> bool:
    """Whether chunk ``index``'s games part is the one its checkpoint recorded."""
    path = games_part(games_dir, index)
    return "games_sha256" in label and path.exists() and file_sha256(path) == label["games_sha256"]


def file_sha256(path: Path) -> str:
    """The SHA-256 (hex) of a file's bytes."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def merge_in_order(summaries: Sequence[Summary]) -> Summary:
    """Merge chunk summaries in chunk order (float metrics then sum the same way on every run)."""
    merged = summaries[0]
    for summary in summaries[1:]:
        merged = merged.merge(summary)
    return merged


def games_for_precision(summary: Summary, precision: float, chunk_size: int, max_games: int) -> int | None:
    """The next total to play (whole chunks) for every win rate to reach ``precision``; None when reached.

    Both sole and shared win rates count, so that a cooperative game (where the table's wins are shared)
    is held to the same precision.
    """
    from analysis import stats

    counts = np.concatenate([summary.wins, summary.shared_wins])
    half = float(stats.wilson_half_width(counts, summary.n_games).max())
    max_games = min(max_games, MAX_GAMES, MAX_CHUNKS * chunk_size)
    if half <= precision or summary.n_games >= max_games:
        return None
    needed = max(stats.games_for_half_width(precision, k / summary.n_games) for k in counts)
    target = min(max(needed, summary.n_games + chunk_size), max_games)
    return -(-target // chunk_size) * chunk_size


def run_many(
    specs: Sequence[RunSpec],
    jobs: int | None = None,
    progress: Callable[[int], None] | None = None,
    cache: ChunkCache | None = None,
) -> list[RunResult]:
    """Play several specs on one pool (all their chunks interleaved); results in the order of ``specs``.

    Every spec with chunks to play is checked (:func:`check_playable`) before any is played; a failing chunk
    raises :class:`RunError` naming it.

    ``cache`` maps ``(identity key, chunk index, games)`` to summaries already computed (it is filled as chunks
    finish), so that precision-targeted runs and reports never play the same chunk twice; by default it is the
    store of the enclosing :func:`saving_chunks` block, if any.
    """
    jobs = check_jobs(jobs)
    start = time.perf_counter()
    cache = _chunk_cache() if cache is None else cache
    keys = [json.dumps(spec.identity(), sort_keys=True) for spec in specs]
    wanted: dict[tuple[str, int, int], tuple[int, int, int]] = {}  # specs can repeat (a 2-player tournament
    for k, spec in enumerate(specs):  # seats each pairing twice): each chunk is played once
        for index, size in spec.chunks():
            if (key := (keys[k], index, size)) not in wanted and key not in cache:
                wanted[key] = (k, index, size)
    todo = list(wanted.values())
    for k in sorted({k for k, _, _ in todo}):  # every arm to play is checked before the first game
        check_playable(specs[k])
    if progress:
        progress(sum(spec.n_games for spec in specs) - sum(size for _, _, size in todo))
    if jobs == 1 or len(todo) <= 1:
        finished: Iterable[tuple[int, ChunkResult]] = ((k, play_chunk(specs[k], i, n)) for k, i, n in todo)
    else:
        finished = _shared_with_workers(_tagged_chunk, [(k, specs[k], i, n) for k, i, n in todo], jobs)
    try:
        for k, result in finished:
            cache[(keys[k], result.index, result.summary.n_games)] = result.summary
            if progress:
                progress(result.summary.n_games)
    except ChunkError as err:
        raise RunError(str(err)) from None
    elapsed = time.perf_counter() - start
    results = []
    for k, spec in enumerate(specs):
        ordered = [cache[(keys[k], i, n)] for i, n in spec.chunks()]
        merged = merge_in_order(ordered)
        results.append(RunResult(spec, merged, elapsed, None, 0, ordered))
    return results


def check_playable(spec: RunSpec) -> None:
    """Play zero games of ``spec``, so that the game's own checks of its knobs against the seats run now."""
    spec.module.play(spec.params, list(spec.seats), 0, chunk_rng(spec.seed, 0))


def _tagged_chunk(tag: int, spec: RunSpec, index: int, size: int) -> tuple[int, ChunkResult]:
    return tag, play_chunk(spec, index, size)


def run_to_precision(
    specs: Sequence[RunSpec],
    precision: float,
    jobs: int | None = None,
    max_games: int = 50_000_000,
    progress: Callable[[int], None] | None = None,
    cache: ChunkCache | None = None,
) -> list[RunResult]:
    """Add chunks until every seat's win rate in every spec has a 95% half-width of at most ``precision``.

    Deterministic for a given seed: the games played depend only on the chunks' seeds, and the stopping
    rule only on their results. ``n_games`` of each spec is the first round's size.
    """
    from dataclasses import replace

    if not 0 < precision < 0.5:
        raise ValueError(f"precision={precision} is out of range; allowed 0 < precision < 0.5")
    cache = _chunk_cache() if cache is None else cache
    current = list(specs)
    while True:
        results = run_many(current, jobs, progress, cache)
        next_round, done = [], True
        for result in results:
            target = games_for_precision(result.summary, precision, result.spec.chunk_size, max_games)
            done = done and target is None
            next_round.append(result.spec if target is None else replace(result.spec, n_games=target))
        if done:
            return results
        current = next_round


def games_frame(games: dict[str, np.ndarray], first_game: int) -> Any:
    """Per-game columns as a DataFrame; per-seat and histogram columns are split into ``name_i`` columns."""
    import pandas as pd

    columns: dict[str, np.ndarray] = {"game": first_game + np.arange(len(games["score"]))}
    for name, values in games.items():
        values = np.asarray(values)
        if values.ndim == 1:
            columns[name] = values
        else:
            for i in range(values.shape[1]):
                columns[f"{name}_{i}"] = values[:, i]
    return pd.DataFrame(columns)


def write_games(path: Path, games: dict[str, np.ndarray], index: int, spec: RunSpec) -> str:
    """Write one chunk's games as a Parquet part, atomically; returns the part's SHA-256 (hex)."""
    frame = games_frame(games, index * spec.chunk_size)
    with replacing(path) as tmp:
        frame.to_parquet(tmp, index=False)
        digest = file_sha256(tmp)
    return digest


def combine_games(run_dir: Path, spec: RunSpec, target: Path) -> Path:
    """Concatenate the per-chunk game parts of a run into ``target`` (chunk order)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.concat_tables(pq.read_table(games_part(run_dir / "games", i)) for i, _ in spec.chunks())
    with replacing(target) as tmp:
        pq.write_table(table, tmp)
    return target
