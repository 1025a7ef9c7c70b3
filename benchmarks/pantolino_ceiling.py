"""The ceiling of issue #26's 3-player bar: the best any player can do alone among two `turn-optimal` players.

Solves the best reply (engines.pantolino.response; about 5 minutes on one core and 2.2 GB at default knobs), prints its
value in each seat, then plays it and a policy (default `learned`) in each seat against two `turn-optimal`
players on the same seeds, so the policy's gap to the ceiling is measured on the same games. Figures are
printed, never asserted. Usage: python benchmarks/pantolino_ceiling.py [--games N] [--seed S] [--policy P].
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from engines import core
from engines.pantolino import POLICIES
from engines.pantolino import response as rp
from engines.pantolino.heuristics import TurnOptimal
from engines.pantolino.rules import Params, play_with

SEATS = rp.PLAYERS


def seat_shares(params: Params, player: object, games: int, seed: int) -> list[np.ndarray]:
    """``player``'s share of each game in each seat, the other two seats `turn-optimal`."""
    out = []
    for seat in range(SEATS):
        impls: list[object] = [TurnOptimal(params) for _ in range(SEATS)]
        impls[seat] = player
        won = play_with(params, impls, games, np.random.default_rng([seed, seat]))["winners"].astype(np.float64)
        out.append((won / won.sum(axis=1, keepdims=True))[:, seat])
    return out


def line(name: str, shares: list[np.ndarray]) -> str:
    """Seat shares and their mean with its 95% half-width."""
    means = [s.mean() for s in shares]
    half = 1.96 * math.sqrt(sum(s.var() / len(s) for s in shares)) / SEATS
    seats = " / ".join(f"{m:.2%}" for m in means)
    return f"{name}: {np.mean(means):.2%} ± {half:.2%} (seats {seats})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=100_000, help="games per seat")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--policy", default="learned")
    args = parser.parse_args()
    params = Params()
    start = time.perf_counter()
    values = rp.solve(params)
    ceiling = rp.seat_values(values)
    seats = " / ".join(f"{v:.3%}" for v in ceiling)
    print(f"best reply, solved: {ceiling.mean():.3%} (seats {seats}; {time.perf_counter() - start:.0f} s)")
    print(line("best reply, played", seat_shares(params, rp.BestReply(params, values), args.games, args.seed)))
    policy = core.instantiate(POLICIES[args.policy], params)
    print(line(args.policy, seat_shares(params, policy, args.games, args.seed)))


if __name__ == "__main__":
    main()
