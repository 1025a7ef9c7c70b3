"""Files replaced whole: a reader sees the old file or the complete new one, never a part; sets of files too."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """A temporary path next to ``path`` to write to; when the block ends normally it replaces ``path``.

    The new file is readable by others like any file written normally; after an error the temporary file
    is removed and ``path`` is left as it was.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False) as handle:
        tmp = Path(handle.name)
    try:
        yield tmp
        tmp.chmod(0o644)  # temporary files are created private (0600)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through :func:`replacing`."""
    with replacing(path) as tmp:
        tmp.write_bytes(data)


STAGE_PREFIX = ".outputs-"


@contextlib.contextmanager
def replacing_together(folder: Path, last: str | None = None) -> Iterator[Path]:
    """A staging folder inside ``folder`` to write a set of files to; at the block's normal end they replace theirs.

    Only renames happen after the last byte is written: a failure while writing (a full disk) leaves the old set
    whole. ``last`` (the set's record, e.g. ``ladder.json``) is removed first and moved in last, so a folder
    holding it holds the complete set it belongs to. The caller holds the folder's lock; staging folders left by
    a process killed while writing are removed.
    """
    folder.mkdir(parents=True, exist_ok=True)
    for left in folder.glob(f"{STAGE_PREFIX}*"):
        shutil.rmtree(left, ignore_errors=True)
    stage = Path(tempfile.mkdtemp(prefix=STAGE_PREFIX, dir=folder))
    try:
        yield stage
        staged = sorted(stage.iterdir(), key=lambda p: p.name == last)
        if last is not None:
            (folder / last).unlink(missing_ok=True)
        for path in staged:
            os.replace(path, folder / path.name)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
