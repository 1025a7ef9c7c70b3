"""Red team for saved games: what a careless user, a signal or a full disk does to `simulate play` and `review`.

Bad saved files (numbers JSON allows but no move is, bombs, devices) are one line and exit 2; a file that cannot
be written is refused before the first question and leaves nothing behind; a signal never loses an answer given;
a review of a game without a person reviews every seat; no exact table is solved that no hint asked for.
"""

from __future__ import annotations

import errno
import json
import re
import signal
import sys
from pathlib import Path

import pexpect
import pytest
from typer.testing import CliRunner

from boardlab.analysis import files
from boardlab.engines.pantolino import solver
from boardlab.experiments.cli import app
from boardlab.experiments.playtest import record, table
from boardlab.experiments.playtest.setup import Setup
from boardlab.experiments.playtest.terminal import Session

SIMULATE = str(Path(sys.executable).with_name("simulate"))
SMALL = (("colours", "3"), ("dice", "3"), ("token_values", "2,3"))  # a short Pantolino, its exact table instant
SMALL_ARGS = [arg for knob, value in SMALL for arg in ("--set", f"{knob}={value}")]
QUESTION = re.compile(r"Seat 0, your move \[1-(\d+)\]: ")
runner = CliRunner()


def one_line_error(args: list[str], message: str, given: str = "") -> str:
    result = runner.invoke(app, args, input=given)
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and message in lines[0], result.stderr
    return result.stdout


def saved(tmp_path: Path, decisions: list[tuple[int, int]] | None = None) -> tuple[Path, str]:
    path = tmp_path / "game.json"
    record.SavedGame(Setup("pantolino", ("human", "random"), 3, SMALL), decisions or [(0, 1)]).save(path)
    return path, path.read_text()


BAD = {  # what replaces the first decision's [0, 1], and what the one line says
    "Infinity": ("[0, Infinity]", "decision 1 ([0, Infinity]) is not two whole numbers"),
    "NaN": ("[0, NaN]", "decision 1 ([0, NaN]) is not two whole numbers"),
    "1e400": ("[0, 1e400]", "decision 1 ([0, Infinity]) is not two whole numbers"),
    "a fraction": ("[0, 1.5]", "is not two whole numbers"),
    "true": ("[0, true]", "is not two whole numbers"),
    "text": ('["0", "1"]', "is not two whole numbers"),
    "a huge number": ("[0, " + "9" * 40 + "]", "names no seat or move of this game"),
    "a seat too many": ("[2, 1]", "names no seat or move of this game"),
}


@pytest.mark.parametrize("case", sorted(BAD))
@pytest.mark.parametrize("command", ["play", "review"])
def test_a_move_no_game_has_is_one_line(case: str, command: str, tmp_path: Path) -> None:
    path, text = saved(tmp_path)
    move, message = BAD[case]
    path.write_text(re.sub(r"\[\s*0,\s*1\s*\]", move, text, count=1))
    one_line_error(["play", "--resume", str(path)] if command == "play" else ["review", str(path)], message)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("seed", "true", "field 'seed' must be a whole number"),
        ("seed", "Infinity", "field 'seed' must be a whole number"),
        ("scores", "[Infinity, NaN]", "field 'scores' must hold finite numbers"),
        ("scores", '"ab"', "field 'scores' must be null or 2 numbers"),
        ("format", "1e400", "saved in format Infinity"),
        ("game", "5", "field 'game' must be a game's name"),
        ("variant", "[]", "field 'variant' must be null"),
        ("decisions", '"xx"', "field 'decisions' must be a list"),
    ],
)
def test_a_field_of_the_wrong_type_is_named(field: str, value: str, message: str, tmp_path: Path) -> None:
    path, text = saved(tmp_path)
    data = json.loads(text)
    path.write_text(json.dumps(data | {field: "@"}).replace('"@"', value))
    one_line_error(["play", "--resume", str(path)], message)


def test_bombs_devices_and_other_shapes_are_read_within_bounds(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.json"
    bomb.write_text('{"a": ' * 100_000 + "1" + "}" * 100_000)
    one_line_error(["review", str(bomb)], "nests more than 32 levels deep")
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    one_line_error(["play", "--resume", str(zero)], "not a regular file")
    digits = tmp_path / "digits.json"
    digits.write_text('{"format": ' + "1" * 5000 + "}")
    one_line_error(["review", str(digits)], f"{digits}: Exceeds the limit")
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]")
    one_line_error(["review", str(listed)], "not a saved game (not a JSON object)")
    path, _ = saved(tmp_path)
    one_line_error(["play", "--resume", str(path), "--save", "/dev/full"], "--save /dev/full is not a regular file")


@pytest.mark.parametrize("code", [errno.EROFS, errno.ENOSPC])
def test_a_save_that_cannot_be_written_is_refused_before_the_first_question(
    code: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(path: Path, data: bytes) -> None:  # as a read-only folder or a full disk fails, part-way
        with files.replacing(path) as tmp:
            tmp.write_bytes(data[:10])
            raise OSError(code, "cannot write")

    monkeypatch.setattr(record, "atomic_write", failing)
    folder = tmp_path / "saves"
    args = ["play", "pantolino", "--seats", "human,random", "--fast", "--save", str(folder / "g.json"), *SMALL_ARGS]
    shown = one_line_error(args, f"{folder / 'g.json'}: the game cannot be saved there (cannot write)", "1\n")
    assert "your move" not in shown
    assert list(folder.iterdir()) == []  # no temporary file left behind


def test_a_disk_that_fills_mid_game_keeps_the_file_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    writes = []

    def filling(path: Path, data: bytes) -> None:
        writes.append(path)
        if len(writes) > 2:  # the empty game, the first answer; then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device")
        files.atomic_write(path, data)

    monkeypatch.setattr(record, "atomic_write", filling)
    path = tmp_path / "g.json"
    args = ["play", "pantolino", "--seats", "human,random", "--fast", "--save", str(path), *SMALL_ARGS]
    one_line_error(args, "the game cannot be saved there (No space left on device)", "1\n1\n1\n")
    assert [s for s, _ in record.load(path).decisions].count(0) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["g.json"]


class Interrupting:
    """A console whose person answers ``1`` and presses Ctrl-C at question ``at``."""

    def __init__(self, at: int) -> None:
        self.at, self.asked = at, 0

    def input(self, question: str) -> str:
        self.asked += 1
        if self.asked == self.at:
            raise KeyboardInterrupt
        return "1"

    def print(self, *args: object, **kwargs: object) -> None:
        pass


def test_ctrl_c_keeps_every_answer_given(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    setup = Setup("pantolino", ("human", "random"), 3, SMALL)
    session = Session(record.SavedGame(setup), path, Interrupting(4), fast=True)  # type: ignore[arg-type]
    with pytest.raises(KeyboardInterrupt):
        session.run()
    decisions = record.load(path).decisions
    assert [s for s, _ in decisions].count(0) == 3
    assert decisions == session.log.decisions  # the seats' moves after the last answer too


def test_a_save_is_not_cut_short_by_a_signal() -> None:
    finished = False
    with pytest.raises(KeyboardInterrupt), record.signals_held():
        signal.raise_signal(signal.SIGINT)
        finished = True  # the block goes on; the signal acts when it is over
    assert finished


def test_sigterm_right_after_an_answer_keeps_it(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    args = ["play", "pantolino", "--seats", "human,random", "--fast", "--save", str(path), *SMALL_ARGS]
    child = pexpect.spawn(SIMULATE, args, encoding="utf-8", timeout=30)
    for _ in range(3):
        child.expect(QUESTION)
        child.sendline("1")
    child.expect(r"seat 0 \(you\)")  # the third answer is taken
    child.kill(signal.SIGTERM)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert "Traceback" not in child.before
    assert [s for s, _ in record.load(path).decisions].count(0) == 3
    assert [p.name for p in tmp_path.iterdir()] == ["g.json"]


def test_a_game_without_a_person_reviews_every_seat(tmp_path: Path) -> None:
    setup = Setup("pantolino", ("greedy", "turn-optimal"), 3, SMALL)
    played = table.play(setup, [], lambda point, seat, propose, index: int(propose()[0]))
    path = tmp_path / "bots.json"
    record.SavedGame(setup, played.decisions, played.scores).save(path)
    result = runner.invoke(app, ["review", str(path), "--hint-playouts", "2"])
    assert result.exit_code == 0, result.output
    assert "every seat" in result.stdout and "seat ," not in result.stdout
    assert re.search(r"summary: \d+ decisions with a choice", result.stdout)


def test_no_exact_table_is_solved_before_the_first_question_without_hints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def solving(self: solver.Solver) -> None:
        raise AssertionError("solved the exact table")

    monkeypatch.setattr(solver.Solver, "table", property(solving))
    path = tmp_path / "g.json"
    result = runner.invoke(app, ["play", "pantolino", "--seats", "human,random", "--save", str(path)], input="q\n")
    assert result.exit_code == 0, result.output
    assert "your move" in result.stdout and path.is_file()
