"""`make bench`: games per second of each engine's batched `play` and of its reference engine, their ratio,
and peak memory; then the end-to-end `simulate pantolino -n 1e6` wall time.

Usage: python benchmarks/bench.py [GAME ...] [--no-cli]. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc

import numpy as np

from engines import available_games, get_game
from engines.core import ScriptedSource

# game -> (seat policies, games for `play`, games for the reference engine, stream length per reference game)
CONFIGS = {
    "pantolino": (["keep-jokers", "keep-jokers"], 200_000, 2_000, 2_000),
    "patolli": (["balanced", "balanced"], 50_000, 300, 20_000),
    "cargolino": (["selfish"] * 4, 100_000, 1_000, 5_000),
    "panots": (["greedy"] * 4, 5_000, 50, 5_000),
    "paleolino": (["greedy"] * 3, 100_000, 1_000, 5_000),
}


def bench_game(game: str) -> dict:
    module = get_game(game).module
    seats, n_play, n_ref, length = CONFIGS[game]
    params = module.Params()
    module.play(params, seats, 1_000, np.random.default_rng(0))  # warm caches and imports
    start = time.perf_counter()
    module.play(params, seats, n_play, np.random.default_rng(1))
    play_rate = n_play / (time.perf_counter() - start)

    tracemalloc.start()
    module.play(params, seats, n_play, np.random.default_rng(1))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()

    from importlib import import_module

    reference = import_module(f"{module.__name__}.reference")
    source = ScriptedSource.from_seed(2, n_ref, length)
    streams = [source.one_game(g) for g in range(n_ref)]
    start = time.perf_counter()
    for stream in streams:
        reference.play_one(params, seats, stream)
    ref_rate = n_ref / (time.perf_counter() - start)
    return {
        "game": game,
        "seats": ",".join(seats),
        "n": n_play,
        "play": play_rate,
        "reference": ref_rate,
        "ratio": play_rate / ref_rate,
        "peak_mib": peak / 2**20,
    }


def bench_cli() -> tuple[float, float]:
    """Wall time of `simulate pantolino --policy keep-jokers -n 1e6` (default jobs), including start-up."""
    exe = shutil.which("simulate", path=os.path.dirname(sys.executable)) or "simulate"
    with tempfile.TemporaryDirectory() as out:
        cmd = [exe, "pantolino", "--policy", "keep-jokers", "-n", "1e6", "--quiet", "--out", out, "--fresh"]
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - start, 1e6 / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=[g for g in available_games() if g in CONFIGS])
    parser.add_argument("--no-cli", action="store_true", help="skip the end-to-end simulate run")
    args = parser.parse_args()
    print(f"{'game':<10} {'seats':<34} {'n':>8} {'play games/s':>13} {'ref games/s':>12} {'ratio':>7} {'peak MiB':>9}")
    for game in args.games:
        r = bench_game(game)
        print(
            f"{r['game']:<10} {r['seats']:<34} {r['n']:>8} {r['play']:>13,.0f} {r['reference']:>12,.0f} "
            f"{r['ratio']:>6.0f}x {r['peak_mib']:>9.1f}",
            flush=True,
        )
    if not args.no_cli and shutil.which("simulate", path=os.path.dirname(sys.executable)):
        try:
            wall, rate = bench_cli()
            print(f"simulate pantolino --policy keep-jokers -n 1e6: {wall:.2f} s wall ({rate:,.0f} games/s end to end)")
        except subprocess.CalledProcessError as err:
            print(f"simulate end-to-end run failed: {err}")


if __name__ == "__main__":
    main()
