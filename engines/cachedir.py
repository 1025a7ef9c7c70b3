"""Where boardlab keeps what it computes once (solver tables, learned models), and the check before computing it.

The folder is ``$BOARDLAB_CACHE``, else ``~/.cache/boardlab``. A solve or a training takes minutes, so a folder
that cannot take its result (a file in the way, no permission) is reported in one line before the work starts,
not after.
"""

from __future__ import annotations

import os
from pathlib import Path

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
