"""`make bench`: games per second of each engine's batched `play` and of its reference engine (process CPU time,
so other processes on a shared machine slow the figure little), their ratio, and peak memory; the expert's games/s
and search playouts/s on one core; the learned player's games/s (CPU time) and the time to load its model; then
end-to-end figures of `simulate pantolino`: wall time at n = 1e6, --jobs 2 against --jobs 1 (also for the
library's `run` alone), the Dask backend against loky, peak memory at n = 1e5 against 1e7, and what checkpoints
cost.

Usage: python benchmarks/bench.py [GAME ...] [--no-cli] [--quick] [--repeats R]. Figures are printed, never
asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc

import numpy as np

from boardlab.engines import available_games, expert, get_game
from boardlab.engines.checker import STREAM
from boardlab.engines.core import ScriptedSource
from boardlab.engines.record import Bench, record_of


def bench_sizes(game: str) -> Bench:
    """What ``make bench`` plays of ``game``: its record's (``engines.record.Bench``), else a modest default.

    The default plays the record's reference seats (else ``random`` at the smallest table), the expert against
    the first other policy that is not ``random``, and no learned games: a game that declares no sizes is still
    measured when named (``make bench`` alone plays only the games that declare theirs).
    """
    module = get_game(game).module
    record = record_of(module)
    if record.bench is not None:
        return record.bench
    seats = record.reference_seats or ("random",) * max(2, module.INFO.min_players)
    others = [n for n in module.POLICIES if n != "random" and not n.startswith("expert")]
    return Bench(
        seats=tuple(seats),
        games=10_000,
        reference_games=100,
        stream=STREAM,
        rival=others[0] if others else "random",
        search_games=2,
    )


def declares_bench(game: str) -> bool:
    """Whether ``game``'s record gives its bench sizes (the games ``make bench`` plays when none is named)."""
    return record_of(get_game(game).module).bench is not None


def bench_game(game: str) -> dict:
    """Games/s (CPU time of this process) of ``play`` and of the reference engine, and ``play``'s peak memory."""
    module = get_game(game).module
    sizes = bench_sizes(game)
    seats, n_play, n_ref, length = list(sizes.seats), sizes.games, sizes.reference_games, sizes.stream
    params = module.Params()
    module.play(params, seats, 1_000, np.random.default_rng(0))  # warm caches and imports
    start = time.process_time()
    module.play(params, seats, n_play, np.random.default_rng(1))
    play_rate = n_play / (time.process_time() - start)

    tracemalloc.start()
    module.play(params, seats, n_play, np.random.default_rng(1))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()

    from importlib import import_module

    reference = import_module(f"{module.__name__}.reference")
    source = ScriptedSource.from_seed(2, n_ref, length)
    streams = [source.one_game(g) for g in range(n_ref)]
    start = time.process_time()
    for stream in streams:
        reference.play_one(params, seats, stream)
    ref_rate = n_ref / (time.process_time() - start)
    return {
        "game": game,
        "seats": ",".join(seats),
        "n": n_play,
        "play": play_rate,
        "reference": ref_rate,
        "ratio": play_rate / ref_rate,
        "peak_mib": peak / 2**20,
    }


def bench_search(game: str) -> dict:
    """The expert at its default budget against ``opponent`` in one process: games/s and playouts/s of its search.

    A playout is one copy of a position played to the end; its rate is counted over the time spent in playouts.
    """
    module = get_game(game).module
    opponent, n_games = bench_sizes(game).rival, bench_sizes(game).search_games
    params = module.Params()
    counted = {"playouts": 0, "seconds": 0.0}
    original = expert.Search._play

    def timed(self, *args):
        start = time.perf_counter()
        out = original(self, *args)
        counted["seconds"] += time.perf_counter() - start
        counted["playouts"] += len(out[0])
        return out

    module.play(params, ["expert", opponent], 2, np.random.default_rng(0))  # warm caches
    expert.Search._play = timed
    try:
        start = time.perf_counter()
        module.play(params, ["expert", opponent], n_games, np.random.default_rng(1))
        wall = time.perf_counter() - start
    finally:
        expert.Search._play = original
    return {
        "game": game,
        "seats": f"expert,{opponent}",
        "n": n_games,
        "games": n_games / wall,
        "playouts": counted["playouts"] / counted["seconds"],
        "per_game": counted["playouts"] / n_games,
    }


def bench_learned(game: str) -> dict:
    """The learned player's games/s (process CPU time: one core) and the seconds to load its cached model.

    Two ``learned`` seats play the record's ``learned_games``; the model is loaded (or trained) before the clock.
    """
    module = get_game(game).module
    seats, n_games = ["learned", "learned"], bench_sizes(game).learned_games
    params = module.Params()
    module.play(params, seats, 1_000, np.random.default_rng(0))  # train if missing, compile, warm caches
    impl = module.POLICIES["learned"].impl
    start = time.perf_counter()
    impl(params).prepare(len(seats))
    load = time.perf_counter() - start
    start = time.process_time()
    module.play(params, seats, n_games, np.random.default_rng(1))
    return {
        "game": game,
        "seats": ",".join(seats),
        "n": n_games,
        "games": n_games / (time.process_time() - start),
        "load": load,
    }


PEAK_OF_CHILD = (
    "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def simulate(*args: str, quiet: bool = True) -> tuple[float, int]:
    """Wall time and peak RSS (MiB, its largest process) of one `simulate pantolino` run, start-up included.

    Each run is started by a fresh wrapper process, so the peak is this run's alone. ``quiet=False`` runs the
    command as a user types it (progress bar and tables, sent to /dev/null).
    """
    exe = shutil.which("simulate", path=os.path.dirname(sys.executable)) or "simulate"
    with tempfile.TemporaryDirectory() as out:
        cmd = [exe, "pantolino", "--policy", "keep-jokers", *(["--quiet"] if quiet else []), "--out", out, *args]
        start = time.perf_counter()
        peak = subprocess.run([sys.executable, "-c", PEAK_OF_CHILD, *cmd], check=True, capture_output=True, text=True)
        wall = time.perf_counter() - start
    return wall, int(peak.stdout.strip()) // 1024


RUN_IN_FRESH_PROCESS = (
    "import sys, time; from experiments.run import MemoryStore, RunSpec, open_executor, play; "
    "spec = RunSpec('pantolino', ('keep-jokers', 'keep-jokers'), 1_000_000, seed=0); start = time.perf_counter()\n"
    "with open_executor('loky', int(sys.argv[1])) as executor: play([spec], MemoryStore(), executor)\n"
    "print(time.perf_counter() - start)"
)


def runner_wall(jobs: int) -> float:
    """Wall time of the library's ``play`` of 1e6 Pantolino games in a fresh process (pool start included)."""
    out = subprocess.run([sys.executable, "-c", RUN_IN_FRESH_PROCESS, str(jobs)], check=True, capture_output=True)
    return float(out.stdout)


def checkpoint_cost(n: int, repeats: int) -> tuple[list[float], list[float], float]:
    """Wall times of `run` at ``n`` games on all cores without and with a run folder (checkpoints), and the time
    the run's checkpoint writes alone take.

    A small run first starts the worker pool and builds the policy tables, so that no timed run pays them. The
    pairs alternate which goes first: this machine drifts by more than the cost being measured.
    """
    from dataclasses import replace
    from pathlib import Path

    from boardlab.experiments.run import MemoryStore, RunSpec, open_executor, play, run_in_folder
    from boardlab.experiments.run.chunk import play_chunk
    from boardlab.experiments.run.chunkfile import chunk_label, write_checkpoint

    spec = RunSpec("pantolino", ("keep-jokers", "keep-jokers"), n, seed=1)
    executor = contextlib.ExitStack().enter_context(open_executor())  # every core, for the whole measurement
    play([replace(spec, n_games=2 * spec.chunk_size)], MemoryStore(), executor)

    def timed(saved: bool) -> float:
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            if saved:
                run_in_folder(spec, Path(out), executor)
            else:
                play([spec], MemoryStore(), executor)
            return time.perf_counter() - start

    walls: dict[bool, list[float]] = {False: [], True: []}
    for i in range(repeats):
        for saved in (False, True) if i % 2 == 0 else (True, False):
            walls[saved].append(timed(saved))
    summary = play_chunk(spec, 0, spec.chunk_size).summary
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        for index, games in spec.chunks():
            label = chunk_label("bench", index, games)
            write_checkpoint(Path(out) / f"chunk-{index:06d}.ckpt", summary, label)
        writes = time.perf_counter() - start
    return walls[False], walls[True], writes


def metrics_cost(repeats: int) -> tuple[list[float], list[float]]:
    """CPU times of `run` of 1e6 Pantolino games (keep-jokers, --jobs 1, in this process) with the game metrics and
    without them (the engine's mid_score and lead_changes off, the summaries' game-metric sums skipped), interleaved.
    """
    from unittest import mock

    from boardlab.analysis import game_metrics
    from boardlab.engines import pantolino
    from boardlab.experiments.run import RunSpec, local_runner

    spec = RunSpec("pantolino", ("keep-jokers", "keep-jokers"), 1_000_000, seed=2)
    play = pantolino.play

    def bare_play(*args, **options):
        return play(*args, metrics=False, **options)

    def timed(metrics: bool) -> float:
        with contextlib.ExitStack() as stack:
            if not metrics:
                stack.enter_context(mock.patch.object(pantolino, "play", bare_play))
                stack.enter_context(mock.patch.object(game_metrics, "accumulate", lambda outcome, cooperative: {}))
            start = time.process_time()  # CPU time: this machine's load moves wall times by more than the cost
            local_runner().play([spec])
            return time.process_time() - start

    timed(True)  # tables and imports
    walls: dict[bool, list[float]] = {True: [], False: []}
    for i in range(repeats):
        for metrics in (True, False) if i % 2 == 0 else (False, True):
            walls[metrics].append(timed(metrics))
    return walls[True], walls[False]


def bench_cli(quick: bool, repeats: int) -> None:
    """End-to-end figures of the `simulate` command: each variant ``repeats`` times, interleaved, and medians.

    This machine's speed drifts by tens of percent within minutes, so variants alternate and the speed-up is
    also given pair by pair.
    """
    variants = {
        "default": ("-n", "1e6"),
        "jobs 1": ("-n", "1e6", "--jobs", "1"),
        "jobs 2": ("-n", "1e6", "--jobs", "2"),
    }
    if importlib.util.find_spec("dask") is not None:
        variants["dask"] = ("-n", "1e6", "--backend", "dask")
    walls: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(repeats):
        for name, args in variants.items():
            walls[name].append(simulate(*args, quiet=name != "default")[0])
    median = {name: float(np.median(values)) for name, values in walls.items()}
    each = {name: ", ".join(f"{v:.2f}" for v in values) for name, values in walls.items()}
    wall = median["default"]
    with_m, without = metrics_cost(max(repeats, 3))
    pairs = ", ".join(f"{100 * (a / b - 1):+.1f}%" for a, b in zip(with_m, without, strict=True))
    print(
        f"game metrics, run() of 1e6 games --jobs 1, CPU time: with {np.median(with_m):.2f} s, "
        f"without {np.median(without):.2f} s:"
        f" they cost {100 * (np.median(with_m) / np.median(without) - 1):+.1f}% (pair by pair: {pairs})"
    )
    print(f"simulate pantolino --policy keep-jokers -n 1e6: {wall:.2f} s wall, median of {each['default']} s")
    print(f"  {1e6 / wall:,.0f} games/s end to end")
    pairs = ", ".join(f"{a / b:.2f}" for a, b in zip(walls["jobs 1"], walls["jobs 2"], strict=True))
    print(
        f"-n 1e6 --quiet --jobs 1: {median['jobs 1']:.2f} s ({each['jobs 1']}); --jobs 2: {median['jobs 2']:.2f} s "
        f"({each['jobs 2']}); speed-up {median['jobs 1'] / median['jobs 2']:.2f}x (pair by pair: {pairs})"
    )
    one, two = [], []
    for _ in range(repeats):
        one.append(runner_wall(1))
        two.append(runner_wall(2))
    pairs = ", ".join(f"{a / b:.2f}" for a, b in zip(one, two, strict=True))
    print(
        f"runner alone (run() of 1e6 games in a fresh process): jobs 1 {np.median(one):.2f} s, jobs 2 "
        f"{np.median(two):.2f} s, speed-up {np.median(one) / np.median(two):.2f}x (pair by pair: {pairs})"
    )
    if "dask" in walls:
        dask = median["dask"]
        pairs = ", ".join(f"{a / b:.2f}" for a, b in zip(walls["dask"], walls["jobs 2"], strict=True))
        print(
            f"-n 1e6 --quiet --backend dask (local cluster): {dask:.2f} s ({each['dask']}), "
            f"{dask / median['jobs 2']:.2f}x the default backend's wall time (pair by pair: {pairs})"
        )
    if quick:
        return
    _, small = simulate("-n", "1e5", "--jobs", "1")
    _, large = simulate("-n", "1e7", "--jobs", "1")
    print(f"peak memory --jobs 1: n=1e5 {small} MiB, n=1e7 {large} MiB ({large / small:.2f}x)")
    bare, saved, writes = checkpoint_cost(10_000_000, repeats)
    pairs = ", ".join(f"{100 * (b / a - 1):+.1f}%" for a, b in zip(bare, saved, strict=True))
    print(
        f"n=1e7 without checkpoints {np.median(bare):.1f} s, with {np.median(saved):.1f} s: checkpoints cost "
        f"{100 * (np.median(saved) / np.median(bare) - 1):+.1f}% (pair by pair: {pairs}); its checkpoint "
        f"writes alone take {writes:.2f} s, {100 * writes / np.median(bare):.1f}% of the run"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=[g for g in available_games() if declares_bench(g)])
    parser.add_argument("--no-cli", action="store_true", help="skip the end-to-end simulate runs")
    parser.add_argument("--quick", action="store_true", help="skip the 1e7-game memory and checkpoint runs")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each end-to-end variant (default 3)")
    args = parser.parse_args()
    print(f"{'game':<10} {'seats':<34} {'n':>8} {'play games/s':>13} {'ref games/s':>12} {'ratio':>7} {'peak MiB':>9}")
    for game in args.games:
        r = bench_game(game)
        print(
            f"{r['game']:<10} {r['seats']:<34} {r['n']:>8} {r['play']:>13,.0f} {r['reference']:>12,.0f} "
            f"{r['ratio']:>6.0f}x {r['peak_mib']:>9.1f}",
            flush=True,
        )
    print(f"\n{'search':<10} {'seats':<34} {'n':>8} {'games/s':>13} {'playouts/s':>12} {'playouts/game':>14}")
    for game in [g for g in args.games if "expert" in get_game(g).module.POLICIES]:
        r = bench_search(game)
        print(
            f"{r['game']:<10} {r['seats']:<34} {r['n']:>8} {r['games']:>13,.1f} {r['playouts']:>12,.0f} "
            f"{r['per_game']:>14,.0f}",
            flush=True,
        )
    print(f"\n{'learned':<10} {'seats':<34} {'n':>8} {'games/s':>13} {'load s':>12}")
    for game in [g for g in args.games if bench_sizes(g).learned_games]:
        r = bench_learned(game)
        print(f"{r['game']:<10} {r['seats']:<34} {r['n']:>8} {r['games']:>13,.0f} {r['load']:>12.3f}", flush=True)
    if not args.no_cli:
        bench_cli(args.quick, args.repeats)


if __name__ == "__main__":
    main()
