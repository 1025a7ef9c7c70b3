"""The tuning bar of issue #18: on a grid of 63 Pantolino knob settings, does `simulate tune` find a setting whose
objective lies within the interval of the best setting of an exhaustive `simulate sweep` of the same grid, using at
most a third of the sweep's games?

Both commands are run as a user would run them; the objective of every sweep point is computed from the sweep's
table with the tuner's own definition (experiments.tune.objective), and tune's winner is looked up in that table
(the same games for every point). Usage: python benchmarks/tune_vs_sweep.py [--jobs J] [--out DIR] [--seed S].
Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

from boardlab.analysis.game_metrics import Value
from boardlab.experiments import tune as tn

GAMES = 12_000  # per grid point (sweep) and per trial played in full (tune)
GRID = {  # 3 x 3 x 7 = 63 settings, every one a valid game that ends well before the turn cap
    "joker_faces": "1,2,3",
    "rolls": "2,3,4",
    "token_values": "2,3,4;1,2,3;1,3,4;1,2,4;2,4;3,4;1,2,3,4",
}
TARGETS = ["first_seat_advantage=0", "duration=15..30@0.5"]
POLICY = "keep-jokers"


def run(command: list[str]) -> float:
    print("$", shlex.join(command), flush=True)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("runs/bar-tune-vs-sweep"))
    parser.add_argument("--seed", type=int, default=1, help="the tuning seed (the sweep's chunks are reused)")
    args = parser.parse_args()
    simulate = [str(Path(sys.executable).with_name("simulate"))]
    points = 1
    for name, values in GRID.items():
        points *= len(values.split(";" if name == "token_values" else ","))
    sweep_games = points * GAMES
    sweep_cmd = [*simulate, "sweep", "pantolino", "--policy", POLICY, "-n", str(GAMES), "-j", str(args.jobs), "-q"]
    sweep_cmd += [x for k, v in GRID.items() for x in ("--set", f"{k}={v}")] + ["--out", str(args.out / "sweep")]
    tune_cmd = [*simulate, "tune", "pantolino", "--policy", POLICY, "-n", str(GAMES), "--chunk-size", "2000"]
    tune_cmd += [x for k, v in GRID.items() for x in ("--vary", f"{k}={v}")]
    tune_cmd += [x for t in TARGETS for x in ("--target", t)]
    tune_cmd += ["--trials", "80", "--max-games", str(sweep_games // 3), "--seed", str(args.seed), "-j", str(args.jobs)]
    tune_cmd += ["-q", "--out", str(args.out / f"tune-{args.seed}")]
    sweep_s = run(sweep_cmd)
    tune_s = run(tune_cmd)

    defined = tn.defined_metrics("pantolino", (POLICY, POLICY), (), None)
    targets = [tn.parse_target("pantolino", t, defined) for t in TARGETS]
    table = pd.read_csv(args.out / "sweep" / "sweep.csv").drop_duplicates("value")
    scored = []
    for _, row in table.iterrows():
        metrics = {t.metric: Value(row[t.metric], row[f"{t.metric}_lo"], row[f"{t.metric}_hi"]) for t in targets}
        scored.append((tn.objective(metrics, targets), {k: str(row[k]) for k in GRID}))
    best_value, best_setting = min(scored, key=lambda s: s[0].value)
    summary = json.loads((args.out / f"tune-{args.seed}" / "best.json").read_text())
    tuned = {k: str(v) for k, v in summary["best"]["setting"].items()}
    in_sweep = next(value for value, setting in scored if setting == tuned)
    rank = sorted(v.value for v, _ in scored).index(in_sweep.value) + 1
    print(f"grid: {points} settings; sweep: {sweep_games:,} games in {sweep_s:.0f} s")
    print(f"sweep best: {best_setting}: objective {best_value.value:.4f} [{best_value.low:.4f}, {best_value.high:.4f}]")
    print(
        f"tune: {summary['games_used']:,} games ({summary['games_used'] / sweep_games:.1%} of the sweep's) in "
        f"{tune_s:.0f} s, {summary['trials']} trials; best {tuned}: objective "
        f"{summary['best']['objective']['value']:.4f} {summary['best']['objective']['ci']} on its own games"
    )
    print(
        f"tune's setting on the sweep's games: objective {in_sweep.value:.4f} (rank {rank} of {points}); within the "
        f"sweep best's interval: {best_value.low <= in_sweep.value <= best_value.high}; at most a third of the "
        f"games: {summary['games_used'] <= sweep_games / 3}"
    )


if __name__ == "__main__":
    main()
