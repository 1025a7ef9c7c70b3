"""`simulate play` and `simulate review`: bad input is one line on stderr and exit code 2; records round-trip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from boardlab.experiments.cli import app
from boardlab.experiments.playtest import record, sources, terminal
from boardlab.experiments.playtest.setup import Setup

runner = CliRunner()


def saved_game(tmp_path: Path) -> Path:
    path = tmp_path / "game.json"
    record.SavedGame(Setup("pantolino", ("human", "greedy"), 3, (("dice", "5"),)), [(0, 1)]).save(path)
    return path


def one_line_error(args: list[str], message: str) -> None:
    result = runner.invoke(app, args)
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and message in lines[0], result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "pantolinno", "--seats", "human,greedy"], "did you mean 'pantolino'"),
        (["play", "pantolino", "--seats", "human,genius"], "unknown policy 'genius'"),
        (["play", "patolli", "--seats", "human,expert,random"], "players=3 is out of range"),
        (["play", "pantolino", "--seats", "greedy,expert:8"], "no human seat"),
        (["play", "pantolino"], "give --seats"),
        (["play", "pantolinno"], "did you mean 'pantolino'"),  # the game first, before the seats are asked for
        (["play", "pantolino", "--seats", "human,greedy", "--set", "dice=9"], "dice=9 is out of range"),
        (["play", "pantolino", "--seats", "human,greedy", "--variant", "nope"], "unknown variant 'nope'"),
        (["play", "--resume", "missing.json"], "missing.json: no such file"),
        (["review", "missing.json"], "missing.json: no such file"),
        (["review", "missing.jsn"], "missing.jsn: no such saved game, nor a game's name"),  # a mistyped file
        (["review", "pantolino", "--seats", "greedy,random"], "--game"),
        (["play", "pantolino", "--seats", "human,greedy", "--hint-policy", "genius"], "unknown policy 'genius'"),
        (["play", "pantolino", "--seats", "human,greedy,greedy", "--hint-policy", "win-optimal"], "players=3"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    one_line_error(args, message)


def test_a_save_or_chart_nothing_can_be_written_to_is_refused_before_the_game_or_review(
    tmp_path: Path, monkeypatch
) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("went on although the file could not be written")

    monkeypatch.setattr(sources, "from_run", refuse)
    monkeypatch.setattr(terminal.Session, "run", refuse)
    blocker = tmp_path / "a-file"
    blocker.write_text("in the way")
    play = ["play", "pantolino", "--seats", "human,greedy", "--save"]
    one_line_error([*play, str(blocker / "game.json")], "its folder cannot be made")
    (tmp_path / "folder").mkdir()
    resume = ["play", "--resume", str(saved_game(tmp_path)), "--save", str(tmp_path / "folder")]
    one_line_error(resume, "is a folder; name a file")
    review = ["review", "pantolino", "--seats", "keep-jokers,greedy", "--game", "0", "--chart"]
    one_line_error([*review, str(tmp_path / "chart.txt")], "must name a PNG file")
    one_line_error([*review, str(blocker / "chart.png")], "its folder cannot be made")


def test_a_corrupt_or_foreign_file_is_refused(tmp_path: Path) -> None:
    path = saved_game(tmp_path)
    data = json.loads(path.read_text())
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text(path.read_text()[:40])
    one_line_error(["play", "--resume", str(corrupt)], "this saved game is not valid JSON")
    foreign = tmp_path / "foreign.json"
    foreign.write_text(json.dumps(data | {"version": data["version"] + 1}))
    one_line_error(["review", str(foreign)], f"version {data['version'] + 1}")
    fields = tmp_path / "fields.json"
    fields.write_text(json.dumps({k: v for k, v in data.items() if k != "seats"}))
    one_line_error(["play", "--resume", str(fields)], "missing field")
    moves = tmp_path / "moves.json"
    moves.write_text(json.dumps(data | {"decisions": [[1, 0]]}))
    one_line_error(["review", str(moves)], "does not replay")


def test_a_record_round_trips(tmp_path: Path) -> None:
    path = saved_game(tmp_path)
    loaded = record.load(path)
    assert loaded.setup == Setup("pantolino", ("human", "greedy"), 3, (("dice", "5"),))
    assert loaded.decisions == [(0, 1)]
    assert not loaded.finished
