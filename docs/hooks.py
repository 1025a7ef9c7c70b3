"""MkDocs hook: lay the import tree that the API pages read, before any page is rendered.

The installed package maps ``boardlab.engines``, ``boardlab.experiments`` and ``boardlab.analysis`` onto the
project's top-level folders (setuptools ``package-dir``), which griffe, the reader behind mkdocstrings, does not
follow. ``build/docs-api/boardlab`` holds links to those folders, so a documented name that is removed from the
code fails the build.
"""

from __future__ import annotations

import shutil
from pathlib import Path

LAYERS = {"engines": "engines", "experiments": "experiments", "analysis": "analysis"}


def on_startup(command: str, dirty: bool) -> None:
    """Rebuild ``build/docs-api/boardlab`` from the project's folders (links, so it never goes stale).

    At start-up, before any plugin reads its configuration: mkdocstrings drops a search path that does not exist.
    """
    root = Path(__file__).resolve().parent.parent
    tree = root / "build" / "docs-api" / "boardlab"
    if tree.exists():
        shutil.rmtree(tree)
    tree.mkdir(parents=True)
    for item in (root / "boardlab").iterdir():
        if item.suffix in {".py", ".typed"}:
            (tree / item.name).symlink_to(item)
    for name, folder in LAYERS.items():
        (tree / name).symlink_to(root / folder, target_is_directory=True)
