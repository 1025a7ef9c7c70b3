"""`simulate list GAME` shows where each knob's default comes from; Pantolino declares every one."""

from __future__ import annotations

from typer.testing import CliRunner

from boardlab.engines import core
from boardlab.engines.pantolino import Params
from boardlab.experiments.cli import app


def test_every_pantolino_knob_declares_its_source() -> None:
    sources = {k.name: k.source for k in Params.knobs()}
    assert all(s.startswith(core.KNOB_SOURCES) for s in sources.values()), sources
    assert sources["token_values"].startswith("published:") and sources["steal_from"] == "rulebook"


def test_list_shows_each_knobs_source() -> None:
    result = CliRunner().invoke(app, ["list", "pantolino"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "source of the default" in result.stdout
    row = next(line for line in result.stdout.splitlines() if "token_values" in line)
    assert "published: the printed tokens" in row
