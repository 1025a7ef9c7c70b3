"""``--quiet`` hides a command's progress lines and never its result (issue 58: `restrict --quiet` printed nothing)."""

from __future__ import annotations

import io

import pytest
from typer.testing import CliRunner

from boardlab.engines import steps
from boardlab.experiments.cli import app


def test_a_silenced_step_prints_no_line_and_one_outside_prints_again() -> None:
    stream = io.StringIO()
    with steps.silenced(), steps.Step("solving", stream=stream):
        pass
    with steps.silenced(False), steps.Step("training", stream=stream):
        pass
    assert stream.getvalue().splitlines() == ["training: started", "training: done in 0.0 s"]


def test_exploit_quiet_still_prints_what_the_trained_player_gains(monkeypatch: pytest.MonkeyPatch) -> None:
    from boardlab.experiments.commands import exploit as command

    seat = {"exploiter": 0.6, "exploiter_low": 0.59, "exploiter_high": 0.61, "own": 0.5, "gain": 0.1}
    seats = [{**seat, "seat": s, "gain_low": 0.09, "gain_high": 0.11} for s in (0, 1)]
    record = {"how": "cached", "training_seconds": 1.0, "model": "m", "seats": seats, "games": 10}
    record |= {"gain": 0.1, "gain_low": 0.09, "exploitability": 0.1, "exploitability_low": 0.09}
    monkeypatch.setattr(command, "run_exploit", lambda *args: record)
    result = CliRunner().invoke(app, ["exploit", "patolli", "--policy", "random", "--quiet"])
    assert result.exit_code == 0 and "averaged over the seats: a gain of +10.0 points" in result.stdout
