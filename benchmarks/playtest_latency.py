"""How fast `simulate play` answers: a person's move, and hints at the default budget, in every game.

Two measurements, printed, never asserted (this machine is shared):

- answer: in a pseudo-terminal, a scripted person against ``expert:64`` with ``--fast``; the seconds from sending
  a move to the screen's confirmation of it ("seat 0 (you): ..."), and to the next question (which includes the
  policies' turns in between), over the first ``--moves`` questions of the default game;
- hints: in this process, the seconds :func:`experiments.playtest.hints.evaluate` takes at the default budget
  (or the exact values, where the game gives them) at each of the person's first ``--moves`` decisions.

Usage: python benchmarks/playtest_latency.py [--moves N] [--seed S] [--players P] [GAME ...].
"""

from __future__ import annotations

import argparse
import contextlib
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pexpect

from boardlab.engines import available_games
from boardlab.experiments.playtest import hints, table
from boardlab.experiments.playtest.setup import Setup

QUESTION = re.compile(r"Seat \d, your move \[1-(\d+)\]: ")


class Enough(Exception):
    """Enough decisions measured."""


def answer_times(game: str, moves: int, seed: int, players: int) -> tuple[list[float], list[float]]:
    """Seconds to the move's confirmation and to the next question after each of the first ``moves`` answers."""
    simulate = str(Path(sys.executable).with_name("simulate"))
    with tempfile.TemporaryDirectory() as folder:
        seats = ",".join(["human"] + ["expert:64"] * (players - 1))
        args = ["play", game, "--seats", seats, "--fast", "--seed", str(seed)]
        child = pexpect.spawn(simulate, [*args, "--save", f"{folder}/g.json"], encoding="utf-8", timeout=600)
        first, question = [], []
        child.expect(QUESTION)
        for k in range(moves):
            n = int(child.match.group(1))
            sent = time.perf_counter()
            child.sendline(str(1 + k % n))
            child.expect(r"\(you\): ")
            first.append(time.perf_counter() - sent)
            if child.expect([QUESTION, "game over"]) == 1:
                break
            question.append(time.perf_counter() - sent)
        child.terminate(force=True)
    return first, question


def hint_times(game: str, moves: int, seed: int, players: int) -> list[float]:
    """Seconds the default hints take at each of the person's first ``moves`` decisions with a choice."""
    setup = Setup(game, ("human", *["expert:64"] * (players - 1)), seed)
    policy, spent = setup.hint_policy(), []

    def live(point, seat, propose, index) -> int:
        legal = np.flatnonzero(point.legal()[0])
        if seat != 0:
            return int(propose()[0])
        if len(legal) > 1 and hints.searchable(point):
            started = time.perf_counter()
            if hints.exact(point, setup.seating) is None:
                hints.evaluate(point, policy, setup.hint_playouts())
            spent.append(time.perf_counter() - started)
            if len(spent) >= moves:
                raise Enough
        return int(legal[0])

    with contextlib.suppress(Enough):
        table.play(setup, [], live)
    return spent


def describe(values: list[float]) -> str:
    """Median and maximum."""
    if not values:
        return "none"
    return f"median {statistics.median(values):.2f} s, max {max(values):.2f} s over {len(values)}"


def main() -> None:
    """Measure the games named (default: all)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=available_games())
    parser.add_argument("--moves", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=2)
    options = parser.parse_args()
    for game in options.games:
        first, question = answer_times(game, options.moves, options.seed, options.players)
        print(f"{game}: answer confirmed after {describe(first)}; next question after {describe(question)}", flush=True)
        spent = hint_times(game, options.moves, options.seed, options.players)
        print(f"{game}: hints at the default budget: {describe(spent)}", flush=True)


if __name__ == "__main__":
    main()
