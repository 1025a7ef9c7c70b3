"""`simulate play` in a pseudo-terminal: a scripted person against expert:8 in every game, to the end.

Each game checks that a bad entry gets the same question again, that the screen never shows what the person's
seat cannot see, and that the saved file replays to the final scores on the screen.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pexpect
import pytest

from boardlab.experiments.playtest import record, table

SIMULATE = str(Path(sys.executable).with_name("simulate"))
QUESTION = re.compile(r"Seat (\d), your move \[1-(\d+)\]: ")
SMALL = {  # a short game of each (seconds, not minutes)
    "pantolino": ["--set", "colours=3", "--set", "dice=3", "--set", "token_values=2,3"],
    "patolli": ["--set", "buttons=2"],
    "cargolino": ["--set", "races=1"],
    "panots": ["--set", "cards_per_player=3"],
    "paleolino": ["--set", "goal=3", "--set", "memory=0.5"],
}
TIMEOUT = 30


def spawn(args: list[str]) -> pexpect.spawn:
    return pexpect.spawn(SIMULATE, args, encoding="utf-8", timeout=TIMEOUT, dimensions=(60, 120))


def answer_to_end(child: pexpect.spawn, choose) -> str:
    """Answer every question with ``choose(count, n_questions)``; return the screen from the first question on."""
    seen, asked = [], 0
    while True:
        found = child.expect([QUESTION, r"game over", r"Pass the device to seat \d, then press Enter\."])
        seen.append(child.before + child.after)
        if found == 1:
            child.expect(pexpect.EOF)
            seen.append(child.before)
            return "".join(seen)
        if found == 2:
            child.sendline("")
            continue
        child.sendline(str(choose(int(child.match.group(2)), asked)))
        asked += 1


def final_scores(screen: str) -> list[float]:
    return [float(x) for x in re.findall(r"seat \d \([^)]*\): (-?[\d.]+) ", screen.split("game over")[-1])]


def caves_stay_hidden(path: Path, opening: str, screen: str) -> None:
    """At each of the person's cave choices the screen shows what the table remembers, never a cave's contents.

    ``opening`` is the screen before the first question, ``screen`` all after its repetition.
    """
    from boardlab.engines.paleolino.decisions import CAVE
    from boardlab.engines.paleolino.words import bag

    saved = record.load(path)
    seen: list[table.Observed] = []
    table.play(saved.setup, saved.decisions, lambda *_: pytest.fail("ran out"), watch=seen.append)
    asked = [d.point for d in seen if d.seat == 0 and d.point.legal()[0].sum() >= 2]
    screens = [opening, *QUESTION.split(screen)[::3]][: len(asked)]  # the screen before each question
    differ = 0
    for point, shown in zip(asked, screens, strict=True):
        if getattr(point, "stage", None) != CAVE:  # builds carry no cave view
            continue
        for cave in range(point.params.caves):
            truth, known = int(point.state.caves[0, cave]), int(point.state.belief[0, cave])
            assert f"Cave {cave + 1}: remembered {bag(known)}" in shown
            if truth != known:
                differ += 1
                assert f"Cave {cave + 1}: remembered {bag(truth)}" not in shown
    assert differ  # the game had something to hide


def first_view_is_shown_whole(path: Path, game: str, opening: str) -> None:
    """Every line of the game's view of the person's first decision is on the screen, unmangled.

    The panel may wrap a long line: borders and line breaks are read as spaces.
    """
    import importlib

    saved = record.load(path)
    seen: list[table.Observed] = []
    table.play(saved.setup, saved.decisions, lambda *_: pytest.fail("ran out"), watch=seen.append)
    first = next(d.point for d in seen if d.seat == 0 and d.point.legal()[0].sum() >= 2)
    flat = " ".join(opening.replace("│", " ").split())
    for line in importlib.import_module(f"engines.{game}.words").view(first):
        assert " ".join(line.split()) in flat


def replayed_scores(path: Path) -> list[float]:
    saved = record.load(path)
    played = table.play(saved.setup, saved.decisions, lambda *_: pytest.fail("the record ran out of decisions"))
    return played.scores


@pytest.mark.parametrize("game", sorted(SMALL))
def test_a_person_plays_every_game_to_the_end(game: str, tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    child = spawn(
        ["play", game, "--seats", "human,expert:8", "--fast", "--seed", "7", "--save", str(path), *SMALL[game]]
    )
    child.expect(QUESTION)
    question, opening = child.after, child.before
    child.sendline("seven")
    child.expect("Not a move: type a number")
    child.expect(QUESTION)
    assert child.after == question  # the same question again
    child.sendline("1")
    screen = child.before + answer_to_end(child, lambda n, k: 1 + k % n)
    assert "Traceback" not in screen
    if game == "cargolino":  # the owners of the other snails are never on the person's screen
        assert not re.search(r"snail: [^\n]*\(seat \d\)", screen)
        assert re.search(r"snail: [^\n]*← yours", screen)
    first_view_is_shown_whole(path, game, opening)
    if game == "paleolino":
        caves_stay_hidden(path, opening, screen)
    scores = final_scores(screen)
    assert len(scores) == 2
    assert replayed_scores(path) == scores


def test_rules_take_back_save_and_resume(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    args = ["--fast", "--save", str(path)]
    child = spawn(["play", "pantolino", "--seats", "expert:8,human", "--seed", "2", *args, *SMALL["pantolino"]])
    child.expect(QUESTION)
    child.sendline("?")
    child.expect("Pantolino, in our words")
    child.expect(QUESTION)
    child.sendline("h")
    child.expect(r"chance to win \(exact")
    child.expect(QUESTION)
    child.sendline("u")
    child.expect("Nothing to take back yet")
    child.expect(QUESTION)
    first = child.after
    child.sendline("2")
    child.expect(QUESTION)
    child.sendline("u")
    child.expect("Taken back")
    child.expect(QUESTION)
    assert child.after == first
    child.sendline("3")
    child.expect(QUESTION)
    child.sendline("q")
    child.expect("Saved to")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert record.load(path).decisions  # the moves before the stop are kept
    child = spawn(["play", "--resume", str(path), "--fast"])
    screen = answer_to_end(child, lambda n, k: 1 + k % n)
    assert replayed_scores(path) == final_scores(screen)


def test_two_people_pass_the_device(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    child = spawn(["play", "pantolino", "--seats", "human,human", "--fast", "--save", str(path), *SMALL["pantolino"]])
    screen = answer_to_end(child, lambda n, k: n)
    assert screen.count("Pass the device to seat 1") >= 2
    assert replayed_scores(path) == final_scores(screen)
