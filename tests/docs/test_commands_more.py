"""The other half of the pages whose commands tests/docs/test_commands.py runs (two test workers share them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs import pages

PAGES = pages.pages()[1::2]


@pytest.mark.parametrize("path", PAGES, ids=[p.stem for p in PAGES])
def test_every_command_on_the_page_exits_0(path: Path, tmp_path: Path) -> None:
    pages.run(pages.read(path), tmp_path)
