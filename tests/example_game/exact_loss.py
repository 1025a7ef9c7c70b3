"""How much a policy loses against a game's exact player, measured move by move (the bars of issue 62, item 2).

``python tests/example_game/exact_loss.py GAME POLICY GAMES SEED`` seats POLICY against ``win-optimal`` in each
seat in turn (GAMES games each) and, at each of POLICY's decisions with a choice, adds the exact chance to win
it gave up: the best legal candidate's exact value less its move's (``exact_values``). Every decision is seen,
including the keeps of a policy that draws whole turns in a run (Pantolino's heuristics): counting its tokens
alone would leave its keeps' loss out. By the performance difference lemma the mean of a game's sum is POLICY's
shortfall from the exact player's share against it, in expectation; it is far less noisy than counting wins,
since most decisions give up nothing. Works for any game whose seats give ``exact_values`` (Swine, 2-player
Pantolino).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from boardlab.engines import core, get_game
from boardlab.engines.seating import Decide, Seating, seating_of


def every_decision(seats: Seating, impl: object, hook: Decide) -> object:
    """``impl`` with every decision shown to ``hook``: its keeps too where a run would draw whole turns."""
    return seats.seat(impl, hook, False)


def main(game: str, policy: str, n: int, seed: int) -> str:
    """One line: the mean loss per game in points with its 95% interval, and how often the move was not best."""
    module = get_game(game).module
    seats = seating_of(module)
    params = module.Params()
    loss, off, decisions, start = np.zeros(n), [0], [0], time.time()

    def hook(point: object, games: np.ndarray, propose: object) -> np.ndarray:
        chosen = np.asarray(propose())
        for r in np.flatnonzero(point.legal().sum(axis=1) >= 2):
            values = seats.exact_values(point, int(r))
            if values is not None:
                loss[int(games[r])] += np.nanmax(values) - values[chosen[r]]
                decisions[0] += 1
                off[0] += int(chosen[r] != np.nanargmax(values))
        return chosen

    per_seat = []
    for seat in (0, 1):
        loss[:] = 0
        names = ["win-optimal", "win-optimal"]
        names[seat] = policy
        impls = seats.instances(params, names, 2)
        for impl in impls:
            if hasattr(impl, "prepare"):
                impl.prepare(2)
        impls[seat] = every_decision(seats, impls[seat], hook)
        seats.play(params, impls, n, core.RandomSource(np.random.default_rng(seed + seat)))
        per_seat.append(loss.copy())
    every = np.concatenate(per_seat)
    mean, half = every.mean(), 1.96 * every.std(ddof=1) / np.sqrt(len(every))
    return (
        f"{game} {policy}: exact loss per game against win-optimal {100 * mean:.2f} points "
        f"(95% {100 * (mean - half):.2f} to {100 * (mean + half):.2f}), {2 * n} games, "
        f"{off[0]}/{decisions[0]} decisions off the best move, {time.time() - start:.0f} s"
    )


if __name__ == "__main__":
    print(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
