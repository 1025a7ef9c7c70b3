"""Folder locks: a process holds an exclusive lock on a run folder (or chunk folder) while it uses it."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from boardlab.experiments.run.errors import RunError

LOCK_FILE = ".lock"
_held: set[Path] = set()  # folders this process has locked


@contextlib.contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``folder`` (created if missing) for the block; nested use in a process is fine.

    The lock is ``flock`` on ``folder/.lock``, which names the holding process; the kernel releases it when
    that process ends, however it ends. Another process holding it raises :class:`RunError` at once, and so
    does a ``folder`` that is a file (or lies under one).
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise RunError(f"cannot write to {folder}: not a folder") from None
    key = folder.resolve()
    if key in _held:  # an enclosing block of this process holds it
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
    _held.add(key)
    try:
        yield
    finally:
        _held.discard(key)
        os.close(fd)


def clear_folder(folder: Path) -> None:
    """Delete everything in ``folder`` but its lock file."""
    for entry in folder.iterdir() if folder.is_dir() else ():
        if entry.name != LOCK_FILE:
            shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
