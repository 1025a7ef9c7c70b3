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


def test_every_command_takes_the_shared_options_from_the_one_set_in_clikit() -> None:
    import inspect

    import typer.main

    from boardlab.experiments import cli, clikit

    shared = set(clikit.PLAYING)
    commands = {name: f for name, f in cli.COMMANDS.items() if name not in ("list", "play", "review")}
    commands["pantolino"] = clikit_game = cli.game.make_game_command("pantolino")
    for name, command in commands.items():
        own = set(inspect.signature(command.__wrapped__).parameters)  # the command's own options
        own -= {"report": {"n", "seed"}, "sweep": {"settings"}}.get(name, set())  # their own meaning (a study
        # file's games and seed when not given; the values swept)
        assert not own & shared and "common" in own, (name, own & shared)
    helps: dict[str, set[str | None]] = {}
    for command in commands.values():
        for param in typer.main.get_command_from_info(
            typer.models.CommandInfo(callback=command), pretty_exceptions_short=True, rich_markup_mode=None
        ).params:
            if param.name in ("jobs", "backend", "scheduler", "fresh", "variants_file", "as_json"):
                helps.setdefault(param.name, set()).add(param.help)
    assert all(len(texts) == 1 for texts in helps.values()), helps  # worded once
    assert clikit_game.__doc__.startswith("Play pantolino games")
