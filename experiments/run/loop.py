"""The one run loop: every command plays its arms through :func:`play`, with an explicit store and executor.

Per round, each arm's chunks are looked up in the store; the missing ones (each chunk once, however many arms
share it) are played on the executor, saved as they finish, and merged in chunk order; the stopping rule then
says which arms need more games. Nothing is ambient: the same specs, store contents and rule give the same
results on any executor.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from boardlab.analysis.summary import Summary
from boardlab.experiments import interrupts
from boardlab.experiments.run import chunk
from boardlab.experiments.run.errors import ChunkError, RunError
from boardlab.experiments.run.executors import Executor, InProcess
from boardlab.experiments.run.games import games_intact, games_part, write_games
from boardlab.experiments.run.locks import folder_lock
from boardlab.experiments.run.result import RunResult, merge_in_order
from boardlab.experiments.run.spec import RunSpec
from boardlab.experiments.run.stopping import FIXED, StoppingRule
from boardlab.experiments.run.store import MemoryStore, RunFolder, Store

Key = tuple[str, int, int]  # (identity text, chunk index, games)


def play(
    specs: Sequence[RunSpec],
    store: Store,
    executor: Executor,
    stop: StoppingRule = FIXED,
    progress: Callable[[int], None] | None = None,
    on_target: Callable[[int], None] | None = None,
    games_dir: Path | None = None,
) -> list[RunResult]:
    """Play every spec's missing chunks (all arms' chunks interleaved) until ``stop`` says each is done.

    ``progress`` hears games as they are accounted for (stored or played); ``on_target`` the new total of every
    arm's games when the rule asks for more. With ``games_dir`` (one arm only) each chunk's games are written
    there and their digest kept with the chunk. Every arm with chunks to play is checked before any game is
    played; a failing chunk raises :class:`RunError` naming it (the chunks finished before it stay stored).
    """
    if not isinstance(specs, list | tuple) or not all(isinstance(spec, RunSpec) for spec in specs):
        raise ValueError(f"specs={specs!r} must be a list of RunSpec (one per arm)")
    start = time.perf_counter()
    current = list(specs)
    texts = [spec.identity_text() for spec in current]
    if games_dir is not None and len(set(texts)) > 1:
        raise ValueError("saved games go with one arm at a time")
    summaries: dict[Key, Summary] = {}
    resumed: set[Key] = set()
    checked: set[int] = set()
    reported = 0
    while True:
        todo: dict[Key, tuple[int, int, int]] = {}
        for k, spec in enumerate(current):
            for index, size in spec.chunks():
                key = (texts[k], index, size)
                if key in summaries or key in todo:
                    continue
                if (stored := _load(store, key, games_dir)) is None:
                    todo[key] = (k, index, size)
                else:
                    summaries[key] = stored
                    resumed.add(key)
        for k in sorted({k for k, _, _ in todo.values()} - checked):  # every arm to play, before the first game
            chunk.check_playable(current[k])
            checked.add(k)
        accounted = sum(spec.n_games for spec in current) - sum(size for _, _, size in todo.values())
        if progress and accounted > reported:
            progress(accounted - reported)
        reported = max(reported, accounted)
        keys = list(todo)
        tasks = [(tag, current[k], i, n, games_dir is not None) for tag, (k, i, n) in enumerate(todo.values())]
        try:
            for tag, result in executor.map_unordered(_tagged_chunk, tasks):
                key = keys[tag]
                digest = None
                if games_dir is not None and result.games is not None:
                    spec = current[todo[key][0]]
                    digest = write_games(games_part(games_dir, result.index), result.games, result.index, spec)
                store.save(key[0], result.index, result.summary, digest)
                summaries[key] = result.summary
                reported += result.summary.n_games
                if progress:
                    progress(result.summary.n_games)
                interrupts.raise_if_requested()  # a Ctrl-C Python swallowed (in a finalizer) still stops here
        except ChunkError as err:
            kept = f"; the {len(summaries)} finished chunks are saved in {store.where}" if store.where else ""
            raise RunError(f"{err}{kept}") from None
        results = [_result(spec, text, summaries, resumed, store) for spec, text in zip(current, texts, strict=True)]
        targets = [stop.next_games(r.summary, r.spec.chunk_size) for r in results]
        if all(t is None for t in targets):
            elapsed = time.perf_counter() - start
            for r in results:
                r.elapsed_s = elapsed
            return results
        current = [spec if t is None else replace(spec, n_games=t) for spec, t in zip(current, targets, strict=True)]
        if on_target:
            on_target(sum(spec.n_games for spec in current))


def _load(store: Store, key: Key, games_dir: Path | None) -> Summary | None:
    """A stored chunk's summary, unless its saved games (when wanted) are missing or damaged."""
    stored = store.load(*key)
    if stored is None:
        return None
    if games_dir is not None and not games_intact(games_dir, key[1], stored[1]):
        if "games_sha256" in stored[1]:  # saved with the chunk and damaged since (else never saved)
            store.corrupt.append(key[1])
        return None
    return stored[0]


def _result(spec: RunSpec, text: str, summaries: dict[Key, Summary], resumed: set[Key], store: Store) -> RunResult:
    ordered = [summaries[(text, i, n)] for i, n in spec.chunks()]
    reused = sum((text, i, n) in resumed for i, n in spec.chunks())
    return RunResult(spec, merge_in_order(ordered), 0.0, None, reused, ordered, sorted(store.corrupt))


def _tagged_chunk(tag: int, spec: RunSpec, index: int, size: int, keep_games: bool) -> tuple[int, chunk.ChunkResult]:
    return tag, chunk.play_chunk(spec, index, size, keep_games)


@dataclass(frozen=True)
class Runner:
    """A command's store and executor: what every library function that plays games is handed."""

    store: Store
    executor: Executor

    def play(
        self,
        specs: Sequence[RunSpec],
        stop: StoppingRule = FIXED,
        progress: Callable[[int], None] | None = None,
        on_target: Callable[[int], None] | None = None,
    ) -> list[RunResult]:
        """:func:`play` with this store and executor."""
        return play(specs, self.store, self.executor, stop, progress, on_target)


def local_runner() -> Runner:
    """A runner for a notebook or a test: chunks kept in memory, played in this process."""
    return Runner(MemoryStore(), InProcess())


class Bar(Protocol):
    """What a run tells of its progress: games accounted for, and the new total when a stopping rule asks more."""

    def advance(self, games: int) -> None:
        """``games`` more games are accounted for (stored or played)."""

    def set_total(self, total: int) -> None:
        """Every arm's games now add up to ``total``."""


def run_in_folder(
    spec: RunSpec,
    run_dir: Path,
    executor: Executor,
    save_games: bool = False,
    fresh: bool = False,
    overwrite: bool = False,
    stop: StoppingRule = FIXED,
    bar: Bar | None = None,
) -> RunResult:
    """Play one spec with its checkpoints in ``run_dir`` (locked for the run), resuming from its chunks there.

    ``fresh`` deletes the folder's chunks first; ``overwrite`` replaces another run's instead of refusing them;
    ``bar`` hears the progress (see :func:`play`).
    """
    chunk.check_playable(spec)  # the game's own checks of its knobs against the seats, before the folder
    with folder_lock(run_dir):
        store = RunFolder(run_dir, spec, fresh, overwrite)
        games_dir = run_dir / "games" if save_games else None
        told = (bar.advance, bar.set_total) if bar is not None else (None, None)
        [result] = play([spec], store, executor, stop, *told, games_dir)
    result.run_dir = run_dir
    return result
