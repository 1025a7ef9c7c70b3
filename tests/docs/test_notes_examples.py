"""The developer notes' quick-start tune example asks for what its units mean: duration counts rounds."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from typer.testing import CliRunner

from boardlab.experiments.cli import app

NOTES = Path(__file__).resolve().parents[2] / "docs" / "developer" / "notes.md"


def quick_start_tune() -> list[str]:
    """The notes' ``simulate tune pantolino`` example of the quick start, as arguments (its comment left out)."""
    text = NOTES.read_text(encoding="utf-8")
    found = re.search(r"^\.venv/bin/simulate (tune pantolino .*?\\\n.*?)#", text, re.MULTILINE)
    assert found, "the quick start shows no tune example"
    return shlex.split(found[1].replace("\\\n", " "))


def test_the_quick_start_tune_reaches_its_duration_target_on_the_rulebook_setting(tmp_path: Path) -> None:
    args = quick_start_tune()
    args[args.index("--trials") + 1] = "1"  # the rulebook's setting only (trial 0), a few games
    result = CliRunner().invoke(app, [*args, "-n", "100", "-j", "1", "--quiet", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    duration = next(a for a in args if a.startswith("duration="))
    assert f"target {duration}: reached" in result.stdout, result.stdout
