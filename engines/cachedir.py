"""Where boardlab keeps what it computes once (solver tables, learned models), and the checks around it.

The folder is ``$BOARDLAB_CACHE``, else ``~/.cache/boardlab``. A solve or a training takes minutes, so a folder
that cannot take its result (a file in the way, no permission) is reported in one line before the work starts,
not after. :func:`cached_array` keeps one computed table: checksummed, written whole, and computed once when
several processes ask for it at the same time (a training's workers).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from engines.steps import Step

CACHE_ENV = "BOARDLAB_CACHE"  #: names the cache folder


def cache_dir() -> Path:
    """The cache folder: ``$BOARDLAB_CACHE``, else ``~/.cache/boardlab``."""
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "boardlab")


def check_writable(folder: Path) -> None:
    """Create ``folder`` if it is missing; ``ValueError`` in one line if new files cannot be written into it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        reason = error.strerror or str(error)
    else:
        if os.access(folder, os.W_OK | os.X_OK):
            return
        reason = "not writable"
    raise ValueError(f"the cache folder {folder} cannot be used ({reason}); set {CACHE_ENV} to a folder you can write")


def key_digest(key: Mapping[str, Any]) -> str:
    """A short, stable name for a cache file's key (JSON-able): 16 hex digits of the SHA-256 of its sorted JSON."""
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]


def checksum_path(path: Path) -> Path:
    """Where the SHA-256 of cache file ``path`` is kept."""
    return path.with_name(path.name + ".sha256")


def cached_array(
    path: Path,
    compute: Callable[[], np.ndarray],
    check: Callable[[np.ndarray], str | None],
    what: str,
    title: str | None = None,
) -> np.ndarray:
    """The array saved at ``path`` if its checksum and ``check`` pass; else ``compute()``'s, saved there first.

    ``check`` returns None for an array that can be the result, else what is wrong. A file whose checksum (kept
    beside it) does not match, or that ``check`` refuses, is reported in one line on stderr (naming it ``what``)
    and computed again; a file from before checksums gains one when its array passes. A file is written whole (to
    a temporary name, then renamed) or not at all. While a process reads or computes the file it holds an
    exclusive lock beside it (``.lock``), so processes asking for the same file at once compute it once: the
    others wait, then read it, saying on stderr what they wait for. The computation is a :class:`Step` named
    ``title`` (default: computing ``what``): lines on stderr when it starts and ends, and while it runs.
    """
    with _locked(path, what):
        if path.exists():
            array, problem = _read(path, check)
            if problem is None:
                return array
            sys.stderr.write(f"warning: {what} {path} is not usable ({problem}); computing it again\n")
        check_writable(path.parent)
        with Step(title or f"computing the {what} {path.name} (once; cached)"):
            array = compute()
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=path.name, suffix=".tmp", delete=False) as handle:
            np.save(handle, array)
        os.chmod(handle.name, 0o644)
        _write_checksum(path, Path(handle.name).read_bytes())
        os.replace(handle.name, path)
        return array


@contextlib.contextmanager
def _locked(path: Path, what: str) -> Iterator[None]:
    """An exclusive ``flock`` on ``path.lock`` for the block, waiting while another process holds it.

    A wait is a :class:`Step` on stderr naming the lock, so a process held up by another's solve says so.

    A folder that cannot be written gets no lock: nothing can be computed into it (:func:`check_writable` says so).
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock = path.with_name(path.name + ".lock")
            with Step(f"waiting for another process computing the {what} (it holds {lock})"):
                fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _write_checksum(path: Path, data: bytes) -> None:
    with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=path.name, suffix=".tmp", delete=False) as handle:
        handle.write(hashlib.sha256(data).hexdigest())
    os.chmod(handle.name, 0o644)
    os.replace(handle.name, checksum_path(path))


def _read(path: Path, check: Callable[[np.ndarray], str | None]) -> tuple[np.ndarray | None, str | None]:
    """The array in ``path`` if its checksum and ``check`` pass, else None and what is wrong."""
    try:
        data = path.read_bytes()
        array = np.load(io.BytesIO(data), allow_pickle=False)
    except (OSError, ValueError, EOFError) as err:
        return None, f"unreadable: {type(err).__name__}"
    try:
        recorded: str | None = checksum_path(path).read_text().strip()
    except OSError:
        recorded = None
    if recorded is not None and recorded != hashlib.sha256(data).hexdigest():
        return None, "its checksum does not match"
    if (problem := check(array)) is not None:
        return None, problem
    if recorded is None:
        _write_checksum(path, data)
    return array, None
