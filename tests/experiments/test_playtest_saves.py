"""A person's saved game against every named policy of every game: saved, resumed, taken back, reviewed.

The person is scripted (always the middle legal move), so one game can be played three ways: straight through;
stopped after two answers, resumed, an answer taken back and given again; and replayed from the saved file as
`simulate review` replays it. All three must be the same game, to the same final scores, whatever the opponent
draws to choose its moves (``random``'s coin once moved the game's dice; the replay then met an illegal move).
Short settings keep each game to a fraction of a second; ``learned`` plays the shipped model's own setting.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from boardlab.engines import get_game
from boardlab.experiments.playtest import record, sources, table
from boardlab.experiments.playtest.setup import HUMAN, Setup
from boardlab.experiments.playtest.terminal import Session

SHORT = {  # a short game of each, in well under a second
    "pantolino": (("colours", "3"), ("dice", "3"), ("token_values", "2,3")),
    "patolli": (("buttons", "2"), ("track_length", "20"), ("arm_length", "2")),
    "cargolino": (("races", "1"), ("track", "red,green,yellow,blue,purple,white")),
    "panots": (("cards_per_player", "3"),),
    "paleolino": (("goal", "3"), ("memory", "0.5")),
}
BUDGET = 2  #: the expert's playouts (the path is under test, not its strength)


def seat_names(game: str) -> list[str]:
    """Every named policy of ``game``, searching ones at a small budget."""
    return [f"{name}:{BUDGET}" if name.startswith("expert") else name for name in get_game(game).module.POLICIES]


PAIRS = [(game, name) for game in sorted(SHORT) for name in seat_names(game)]


class Person:
    """A console whose person answers from a script: a move's number is the middle move, keys as listed."""

    def __init__(self, keys: dict[int, str] | None = None) -> None:
        """``keys[k]``: the answer to question ``k`` (from 0) instead of a move."""
        self.keys, self.asked = keys or {}, 0

    def input(self, question: str) -> str:
        count = int(question.rsplit("-", 1)[1].split("]")[0])
        answer = self.keys.get(self.asked, str((count + 1) // 2))
        self.asked += 1
        return answer

    def print(self, *args: object, **kwargs: object) -> None:
        pass

    def clear(self) -> None:
        pass


def session(saved: record.SavedGame, path: Path, person: Person) -> Session:
    return Session(saved, path, person, fast=True, hint_policy="unused", hint_playouts=2)  # type: ignore[arg-type]


@pytest.fixture
def no_training(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("BOARDLAB_TRAIN", "0")  # a learned seat uses a shipped model, never trains one here
    yield


@pytest.mark.parametrize(("game", "opponent"), PAIRS)
def test_a_saved_game_resumes_takes_back_and_reviews_to_the_same_scores(
    game: str, opponent: str, tmp_path: Path, no_training: None
) -> None:
    settings = () if opponent == "learned" else SHORT[game]
    try:
        setup = Setup(game, (HUMAN, opponent), 5, settings)
        setup.ready(opponent)
    except ValueError as err:  # pragma: no cover - only where no model ships for the game's own setting
        pytest.skip(f"{game}: no shipped learned model to play against ({err})")
    straight = session(record.SavedGame(setup), tmp_path / "straight.json", Person()).run()
    assert straight is not None

    path = tmp_path / "game.json"
    assert session(record.SavedGame(setup), path, Person({2: "q"})).run() is None  # two answers, then save and stop
    stopped = record.load(path)
    assert not stopped.finished and stopped.decisions == straight.decisions[: len(stopped.decisions)]
    resumed = session(stopped, path, Person({1: "u"})).run()  # one answer, take it back, answer again, to the end
    assert resumed is not None
    assert resumed.decisions == straight.decisions and resumed.scores == straight.scores

    saved = record.load(path)
    assert saved.scores == straight.scores
    replayed = table.play(saved.setup, saved.decisions, lambda *_: pytest.fail("the saved game ran out of moves"))
    assert replayed.scores == straight.scores
    _, seen, _ = sources.from_record(path)  # what `simulate review` replays
    assert [(d.seat, d.move) for d in seen] == saved.decisions
