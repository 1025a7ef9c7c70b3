"""Where boardlab keeps what it computes once (solver tables, learned models), and the checks around it.

The folder is ``$BOARDLAB_CACHE``, else ``~/.cache/boardlab``. A solve or a training takes minutes, so a folder
that cannot take its result (a file in the way, no permission) is reported in one line before the work starts,
not after. :func:`cached_array` keeps one computed table: checksummed, written whole, and computed once when
several processes ask for it at the same time (a training's workers).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import io
import json
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from boardlab.engines.steps import Step

CACHE_ENV = "BOARDLAB_CACHE"  #: names the cache folder
MAX_TABLE_BYTES = 1 << 33  #: a solver table is read only up to this size (ours: the largest is under 1 GiB)


def read_bytes(path: Path, limit: int, what: str) -> bytes:
    """The bytes of cache file ``path``: a regular file of at most ``limit`` bytes, read without blocking.

    A pipe, device or socket at ``path`` (or a link to one) is refused without waiting for a writer, and a file
    that grows past ``limit`` is refused without reading it all.

    Raises:
        ValueError: in one line naming ``what`` and ``path``; ``FileNotFoundError`` if there is nothing there.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except (FileNotFoundError, NotADirectoryError):  # nothing there (a file in the way of the folder is not it)
        raise FileNotFoundError(errno.ENOENT, "no such file", str(path)) from None
    except OSError as err:
        raise ValueError(f"the {what} {path} cannot be read ({err.strerror or err})") from None
    with os.fdopen(fd, "rb") as handle:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else "a pipe, device or socket"
            raise ValueError(f"the {what} {path} is {kind}, not a file; move it away")
        try:
            data = handle.read(limit + 1)
        except OSError as err:
            raise ValueError(f"the {what} {path} cannot be read ({err.strerror or err})") from None
    if len(data) > limit:
        raise ValueError(f"the {what} {path} is larger than the {limit:,} bytes it may have; move it away")
    return data


def check_file_slot(path: Path, what: str) -> None:
    """``ValueError`` in one line if something other than a regular file (a folder, a pipe) occupies ``path``."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # nothing there: whether it can be written is checked apart
        return
    except OSError as err:
        raise ValueError(f"the {what} {path} cannot be used ({err.strerror or err})") from None
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a pipe, device or socket"
        raise ValueError(f"the {what} {path} is {kind}, not a file; move it away")


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
    with locked(path, f"waiting for another process computing the {what}"):
        check_file_slot(path, what)
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
def locked(path: Path, waiting: str) -> Iterator[None]:
    """An exclusive ``flock`` on ``path.lock`` for the block, waiting while another process holds it.

    A wait is a :class:`Step` on stderr titled ``waiting`` and naming the lock, so a process held up by another's
    solve or training says so.

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
            with Step(f"{waiting} (it holds {lock})"):
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
    data = read_bytes(path, MAX_TABLE_BYTES, "table")
    try:
        array = np.load(io.BytesIO(data), allow_pickle=False)
    except (OSError, ValueError, EOFError) as err:
        return None, f"unreadable: {type(err).__name__}"
    try:
        recorded: str | None = read_bytes(checksum_path(path), 64, "table checksum").decode("ascii").strip()
    except FileNotFoundError:
        recorded = None
    except (ValueError, UnicodeDecodeError):
        recorded = ""  # unreadable or not a digest: never matches
    if recorded is not None and recorded != hashlib.sha256(data).hexdigest():
        return None, "its checksum does not match"
    if (problem := check(array)) is not None:
        return None, problem
    if recorded is None:
        _write_checksum(path, data)
    return array, None
