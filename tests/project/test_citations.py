"""What the code cites is in the project: no module names the outside design file, and every cited page exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engines", "experiments", "analysis", "tests")
PAGE = re.compile(r"\b(?:docs|engines)/[\w./-]+\.md\b")  #: a project page cited by its path


def sources() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py") if p != Path(__file__).resolve())


def test_no_module_cites_the_design_file_outside_the_project() -> None:
    assert [p.relative_to(ROOT).as_posix() for p in sources() if "DESIGN.md" in p.read_text()] == []


def test_every_page_a_module_cites_exists() -> None:
    missing = {(p.relative_to(ROOT).as_posix(), page) for p in sources() for page in PAGE.findall(p.read_text())}
    assert {(m, page) for m, page in missing if not (ROOT / page).is_file()} == set()
