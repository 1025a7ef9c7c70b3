"""What `simulate report all` spends its CPU on: every arm of every chapter (and the ladders `report all` adds),
each arm counted once as the shared pool plays it, with the CPU time its games cost here.

Each arm's first chunk is timed in this one process; an arm of several chunks also times its second chunk (the
first can carry a policy's one-off table building) and counts the rest at the second's rate. Figures are printed,
never asserted; they are estimates of the pool's CPU (a worker builds a policy's tables once for every arm that
shares it). Usage: python benchmarks/report_cost.py [-n N] [--seed S] [--top K] [--cores C] [GAME ...].
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict

from boardlab.experiments.chapters import chapter_games, chapter_module, flow
from boardlab.experiments.reporting import has_ladder, ladder_plan, searches
from boardlab.experiments.run import RunSpec
from boardlab.experiments.run.chunk import play_chunk


def chunk_cpu(spec: RunSpec, index: int, size: int) -> float:
    """CPU seconds this process spends playing one chunk."""
    start = time.process_time()
    play_chunk(spec, index, size)
    return time.process_time() - start


def arm_cpu(spec: RunSpec) -> float:
    """Estimated CPU seconds of a whole arm (see the module's docstring)."""
    chunks = spec.chunks()
    first = chunk_cpu(spec, *chunks[0])
    if len(chunks) == 1:
        return first
    index, size = chunks[1]
    rate = chunk_cpu(spec, index, size) / size
    return first + rate * sum(games for _, games in chunks[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "games", nargs="*", metavar="GAME", help=f"chapters to cost (default: {', '.join(chapter_games())})"
    )
    parser.add_argument("-n", type=int, default=20_000, help="games per arm, as `simulate report -n`")
    parser.add_argument("--seed", type=int, default=2026, help="the root seed, as `simulate report --seed`")
    parser.add_argument("--top", type=int, default=25, help="the costliest arms to list")
    parser.add_argument("--cores", type=int, default=2, help="cores for the wall-time floor")
    args = parser.parse_args()
    if unknown := set(args.games) - set(chapter_games()):
        parser.error(f"no chapter for {', '.join(sorted(unknown))}; chapters: {', '.join(chapter_games())}")
    for name, value, top in (("-n", args.n, 1_000_000), ("--top", args.top, 10_000), ("--cores", args.cores, 1024)):
        if not 1 <= value <= top:
            parser.error(f"{name} {value} is out of range; allowed 1..{top:,}")
    if not 0 <= args.seed < 2**63:
        parser.error(f"--seed {args.seed} is out of range; allowed 0..2**63-1")
    seen: set[str] = set()
    rows = []
    for game in args.games or chapter_games():
        plan = flow.prepare(game, chapter_module(game), args.n, args.seed).plan
        arms = [*plan.arms, *(ladder_plan(game, args.n, args.seed).arms if not has_ladder(plan) else [])]
        for arm in arms:
            identity = json.dumps({**arm.spec.identity(), "n": arm.spec.n_games}, sort_keys=True)
            if identity in seen:  # the same games in two chapters' plans: the pool plays them once
                continue
            seen.add(identity)
            cpu = arm_cpu(arm.spec)
            rows.append((cpu, game, arm.label, arm.spec.n_games, searches(arm.spec)))
            print(f"{cpu:8.1f} s  {game:<10} {arm.spec.n_games:>7,} games  {arm.label}", flush=True)
    by_game: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for cpu, game, _, _, searching in rows:
        by_game[game][0] += cpu
        by_game[game][1] += cpu if searching else 0.0
    total = sum(cpu for cpu, *_ in rows)
    print(f"\nthe {args.top} costliest of {len(rows)} arms:")
    for cpu, game, label, n, _ in sorted(rows, reverse=True)[: args.top]:
        print(f"{cpu:8.1f} s  {100 * cpu / total:5.1f}%  {game:<10} {n:>7,} games  {label}")
    print("\nby chapter (CPU s, of which arms with a searching seat):")
    for game, (cpu, searching) in by_game.items():
        print(f"  {game:<10} {cpu:8.1f}  {searching:8.1f}")
    print(f"all arms: {total:.0f} CPU s; on {args.cores} cores at least {total / args.cores:.0f} s of playing")


if __name__ == "__main__":
    main()
