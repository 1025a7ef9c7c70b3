"""Chunk stores: where finished chunks are kept, by arm identity, chunk index and games.

Every store answers the same three calls (:class:`Store`): :meth:`~Store.load` a chunk (its summary and label, or
None when absent or damaged), :meth:`~Store.save` one, and :attr:`~Store.where` (the folder, for messages).

- :class:`MemoryStore`: for one process's lifetime (notebooks, tests, a command without a folder);
- :class:`FolderStore`: many arms in one folder, one sub-folder per arm (reports, tournaments, sweeps, studies,
  ladders, tuning), so that a stopped command resumes;
- :class:`RunFolder`: one arm's ``chunks/`` in a run folder, beside ``checkpoint.json`` (``simulate GAME``).

Chunk files use :mod:`experiments.run.chunkfile`; a damaged one is deleted, played again and its index noted in
:attr:`~Store.corrupt`. Chunks played by other policy code (the identity's ``code``) are never reused: the folder
stores say so on stderr (once for each set of changed policies) and play those arms afresh.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any, Protocol

from boardlab.analysis.files import atomic_write
from boardlab.analysis.summary import Summary
from boardlab.experiments.run.chunkfile import chunk_label, chunk_name, read_checkpoint, write_checkpoint
from boardlab.experiments.run.errors import RunError
from boardlab.experiments.run.locks import clear_folder
from boardlab.experiments.run.spec import RunSpec, identity_key

Stored = tuple[Summary, dict[str, Any]]
"""A stored chunk: its summary and its label (which may record the digest of its saved games)."""

_kept = [0]  # chunks this process saved in, or found intact in, a folder: what an interrupted command can resume


def chunks_kept() -> int:
    """How many finished chunks this process has saved in (or found intact in) a folder store."""
    return _kept[0]


class Store(Protocol):
    """Finished chunks by ``(identity text, chunk index, games)``."""

    corrupt: list[int]
    """Indices of chunks found damaged (and deleted) since the store was opened."""

    @property
    def where(self) -> Path | None:
        """The folder the chunks are kept in; None in memory."""
        ...

    def load(self, identity: str, index: int, games: int) -> Stored | None:
        """The stored chunk, or None when absent or damaged."""
        ...

    def save(self, identity: str, index: int, summary: Summary, games_sha256: str | None = None) -> None:
        """Keep a finished chunk (with the digest of its saved games when there are some)."""
        ...


def code_changed(old: Any, new: dict[str, Any]) -> list[str] | None:
    """The policies whose code differs between identities ``old`` and ``new`` that agree on all else; None if not."""
    if not isinstance(old, dict) or {k: v for k, v in old.items() if k != "code"} != {
        k: v for k, v in new.items() if k != "code"
    }:
        return None
    before = old.get("code") or {}
    return [name for name, digest in new.get("code", {}).items() if before.get(name) != digest]


def say_code_changed(policies: list[str], where: Path) -> None:
    """One line on stderr: the chunks in ``where`` were played by older code of ``policies``, so they are replayed."""
    names = ", ".join(policies) or "its policies"
    sys.stderr.write(
        f"boardlab: the code of {names} changed since the saved games in {where} were played: playing afresh\n"
    )


class MemoryStore:
    """Chunks kept in this process only."""

    def __init__(self) -> None:
        self._chunks: dict[tuple[str, int, int], Stored] = {}
        self.corrupt: list[int] = []

    @property
    def where(self) -> Path | None:
        """None: nothing survives the process."""
        return None

    def load(self, identity: str, index: int, games: int) -> Stored | None:
        """The chunk if this process saved it."""
        return self._chunks.get((identity, index, games))

    def save(self, identity: str, index: int, summary: Summary, games_sha256: str | None = None) -> None:
        """Keep the chunk for later calls."""
        label = chunk_label(identity_key(identity), index, summary.n_games)
        if games_sha256 is not None:
            label["games_sha256"] = games_sha256
        self._chunks[(identity, index, summary.n_games)] = (summary, label)


class _Files:
    """Chunk files in folders: the reading and writing :class:`FolderStore` and :class:`RunFolder` share."""

    corrupt: list[int]

    def _folder(self, identity: str) -> Path:
        raise NotImplementedError

    def load(self, identity: str, index: int, games: int) -> Stored | None:
        """The chunk file's summary and label if intact and this arm's, else None (a damaged file is deleted)."""
        path = self._folder(identity) / chunk_name(index, games)
        if not path.exists():
            return None
        found = read_checkpoint(path, chunk_label(identity_key(identity), index, games))
        if found is None:
            self.corrupt.append(index)
            path.unlink(missing_ok=True)
        else:
            _kept[0] += 1
        return found

    def save(self, identity: str, index: int, summary: Summary, games_sha256: str | None = None) -> None:
        """Write the chunk file atomically."""
        label = chunk_label(identity_key(identity), index, summary.n_games)
        if games_sha256 is not None:
            label["games_sha256"] = games_sha256
        write_checkpoint(self._folder(identity) / chunk_name(index, summary.n_games), summary, label)
        _kept[0] += 1


class FolderStore(_Files):
    """Many arms in one folder: ``ROOT/<arm digest>/chunk-NNNNNN-GAMES.ckpt`` with ``identity.json`` beside.

    The caller holds the folder's lock (:func:`experiments.run.locks.folder_lock`).
    """

    def __init__(self, root: Path, fresh: bool = False) -> None:
        """Use the chunks already in ``root`` (``fresh``: delete them first)."""
        if fresh:
            clear_folder(root)
        self.root = root
        self.corrupt = []
        self._earlier: dict[str, dict[str, Any]] | None = None  # stored arms by identity without code, when read
        self._asked: set[str] = set()
        self._said: set[tuple[str, ...]] = set()  # each set of changed policies is named once

    def load(self, identity: str, index: int, games: int) -> Stored | None:
        """The chunk as :class:`_Files` reads it; an arm met for the first time says if older code played it."""
        if identity not in self._asked:
            self._asked.add(identity)
            if not self._folder(identity).exists():
                self._older_code(identity)
        return super().load(identity, index, games)

    def _older_code(self, identity: str) -> None:
        """Say so when this folder holds the same arm played by other policy code (its chunks are not reused)."""
        if self._earlier is None:
            self._earlier = {}
            for record in sorted(self.root.glob("*/identity.json")) if self.root.is_dir() else []:
                try:
                    stored = json.loads(record.read_text())
                except (OSError, ValueError):
                    continue
                if isinstance(stored, dict):
                    self._earlier[json.dumps({**stored, "code": None}, sort_keys=True)] = stored
        new = json.loads(identity)
        old = self._earlier.get(json.dumps({**new, "code": None}, sort_keys=True))
        if old is not None and (changed := code_changed(old, new)) is not None and tuple(changed) not in self._said:
            self._said.add(tuple(changed))
            say_code_changed(changed, self.root)

    @property
    def where(self) -> Path | None:
        """The store's folder."""
        return self.root

    def _folder(self, identity: str) -> Path:
        return self.root / identity_key(identity)[:16]

    def save(self, identity: str, index: int, summary: Summary, games_sha256: str | None = None) -> None:
        """Write the chunk file atomically (and the arm's ``identity.json`` with its first chunk)."""
        if not (record := self._folder(identity) / "identity.json").exists():
            atomic_write(record, identity.encode())
        super().save(identity, index, summary, games_sha256)


class RunFolder(_Files):
    """One arm's chunks in a run folder: ``RUN/chunks/chunk-NNNNNN-GAMES.ckpt`` next to ``RUN/checkpoint.json``.

    ``checkpoint.json`` records the run's identity for people and for refusing another run's folder; when it is
    lost or unreadable, the chunks' own labels tell whose they are, and it is written again. The caller holds
    the run folder's lock.
    """

    def __init__(self, run_dir: Path, spec: RunSpec, fresh: bool = False, overwrite: bool = False) -> None:
        """Open (or start) the checkpoints of ``spec`` in ``run_dir``; refuse those of a different spec unless told."""
        self.dir = run_dir / "chunks"
        identity_file = run_dir / "checkpoint.json"
        identity = spec.identity()
        self.identity = spec.identity_text()
        self.corrupt = []
        if fresh and self.dir.exists():
            shutil.rmtree(self.dir)
        if self.dir.exists():
            try:
                stored = json.loads(identity_file.read_text())
            except (OSError, ValueError):  # lost or damaged: the chunks' labels decide
                stored = None if self._foreign_chunks() else identity
            if stored != identity and (changed := code_changed(stored, identity)) is not None:
                say_code_changed(changed, run_dir)
                shutil.rmtree(self.dir)
            elif stored != identity:
                if not overwrite:
                    raise RunError(
                        f"{run_dir} holds checkpoints of a different run; use --overwrite to replace "
                        "them or --out for another folder"
                    )
                shutil.rmtree(self.dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        atomic_write(identity_file, json.dumps(identity, indent=1, sort_keys=True).encode())

    @property
    def where(self) -> Path | None:
        """The run's ``chunks/`` folder."""
        return self.dir

    def _foreign_chunks(self) -> bool:
        """Whether an intact chunk file in the folder belongs to another run."""
        key = identity_key(self.identity)
        for path in self.dir.glob("chunk-*.ckpt"):
            found = read_checkpoint(path)
            if found is not None and found[1].get("run") != key:
                return True
        return False

    def _folder(self, identity: str) -> Path:
        if identity != self.identity:
            raise RunError("a run folder holds the chunks of one run only")
        return self.dir
