"""Docs that cannot rot: every command the tutorial and the how-tos show runs and exits 0 (tests/docs/pages.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs import pages

PAGES = pages.pages()
HALF = PAGES[::2]  # the other half is in test_commands_more.py, so that two test workers share the pages


@pytest.mark.parametrize("path", HALF, ids=[p.stem for p in HALF])
def test_every_command_on_the_page_exits_0(path: Path, tmp_path: Path) -> None:
    pages.run(pages.read(path), tmp_path)


def test_the_pages_run_at_least_20_commands() -> None:
    read = [pages.read(p) for p in PAGES]
    assert len(PAGES) >= 11
    assert sum(len(p.commands) for p in read) >= 20


def test_a_broken_command_on_a_page_fails(tmp_path: Path) -> None:
    page = tmp_path / "broken.md"
    page.write_text(
        "# A how-to\n\n<!-- test: -n 100 -->\n```sh\nsimulate list --help\n"
        "simulate pantolino --set no_such_knob=1 -n 1e6\n```\n",
        encoding="utf-8",
    )
    read = pages.read(page)
    assert [c.text for c in read.commands] == [
        "simulate list --help",
        "simulate pantolino --set no_such_knob=1 -n 100",
    ]
    broken = r"broken.md:6: `simulate pantolino --set no_such_knob=1 -n 100` exited 2:\nerror: unknown knob"
    with pytest.raises(AssertionError, match=broken):
        pages.run(read, tmp_path)


def test_an_unmarked_block_fails_and_a_titled_one_is_skipped(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(f'```sh title="{pages.SKIP} a cluster"\nsimulate x\n```\n', encoding="utf-8")
    assert pages.read(page) == pages.Page((), 1)
    page.write_text("text\n\n```sh\nsimulate pantolino\n```\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"page.md:3: an sh block needs"):
        pages.read(page)
