"""The ceiling of issue #26's 3-player bar: the best any player can do alone among two `turn-optimal` players.

Solves the best reply (engines.pantolino.response; about 3 minutes on two cores and 2.2 GB at default knobs; read from
`$BOARDLAB_CACHE` when solved before), prints its value in each seat, then plays it and a policy (default `learned`) in
each seat against two `turn-optimal` players on the same seeds, so the policy's gap to the ceiling is measured on
the same games. A `learned` policy is also measured exactly, as the reply's share less its turns' losses
(engines.pantolino.regret: ±0.01 points from 10,000 games a seat). Figures are printed, never asserted. Usage:
python benchmarks/pantolino_ceiling.py [--games N] [--exact-games N] [--seed S] [--policy P].
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from boardlab.engines import core
from boardlab.engines.pantolino import POLICIES, regret
from boardlab.engines.pantolino import response as rp
from boardlab.engines.pantolino.learned import Learned
from boardlab.engines.pantolino.rules import Params

SEATS = rp.PLAYERS


def line(name: str, shares: list[np.ndarray]) -> str:
    """Seat shares and their mean with its 95% half-width."""
    means = [s.mean() for s in shares]
    half = 1.96 * math.sqrt(sum(s.var() / len(s) for s in shares)) / SEATS
    seats = " / ".join(f"{m:.2%}" for m in means)
    return f"{name}: {np.mean(means):.2%} ± {half:.2%} (seats {seats})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=100_000, help="games per seat")
    parser.add_argument("--exact-games", type=int, default=10_000, help="games per seat of the exact measure")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--policy", default="learned")
    args = parser.parse_args()
    params = Params()
    start = time.perf_counter()
    values = rp.cached_solution(params)
    ceiling = rp.seat_values(values)
    seats = " / ".join(f"{v:.3%}" for v in ceiling)
    print(f"best reply, exact: {ceiling.mean():.3%} (seats {seats}; {time.perf_counter() - start:.0f} s)")
    reply = rp.BestReply(params, values)
    print(line("best reply, played", regret.shares_among_turn_optimal(params, lambda _: reply, args.games, args.seed)))
    policy = core.instantiate(POLICIES[args.policy], params)
    print(line(args.policy, regret.shares_among_turn_optimal(params, lambda _: policy, args.games, args.seed)))
    if isinstance(policy, Learned):
        exact = regret.seat_shares(params, policy, args.exact_games, args.seed)
        mean, half = np.mean([s.share for s in exact]), math.hypot(*(s.half_width for s in exact)) / SEATS
        seats = " / ".join(f"{s.share:.3%}" for s in exact)
        print(
            f"{args.policy}, exact (the reply less its turns' losses, {args.exact_games:,} games a seat): {mean:.3%}"
            f" ± {half:.3%} (seats {seats})"
        )


if __name__ == "__main__":
    main()
