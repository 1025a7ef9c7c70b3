"""Tune a game's knobs toward designer targets (``simulate tune GAME``), with Optuna.

The question (knobs, targets, objective) is :mod:`experiments.tune_question`; the study (storage, pruning,
proposals) :mod:`experiments.tune_study`. A **trial** is one setting of the varied knobs (``--vary knob=lo..hi`` for
a whole-number or real knob, or ``--vary knob=a,b,c``; ``;`` between values of a tuple knob). Its **objective** is
how far its game metrics (:mod:`analysis.game_metrics`, or a scalar metric of the game's own) lie from the targets
(``--target metric=value`` or ``metric=lo..hi``, ``@W`` for a weight): the weighted sum of the distances, a share in
absolute terms (0.03 = three points), a count relative to the target's size. Its interval follows from the metrics'
intervals (the smallest and largest distance they allow, summed), so it is conservative.

- **Sampler**: Optuna's TPE (multivariate), which handles whole-number and categorical knobs natively. It is seeded
  afresh for each trial from the tuning seed and the trial's place (failed trials not counted), so the same seed
  proposes the same settings, and a run stopped and started again proposes what it would have.
- **Pruning** (``PairedHalving``, :mod:`experiments.tune_study`): a trial plays chunks of games and reports its
  objective after 1, η, η², … chunks; it goes on only while it is among the best 1/η of the trials that reached the
  same point. Every trial plays chunk ``i`` from the same seed (common random numbers), so trials are compared on
  the same dice.
- **Storage**: the study lives in SQLite inside the run folder (``study.db``) and finished chunks in ``chunks/`` (a
  :class:`experiments.run.FolderStore`), so a stopped run resumes where it was; a trial interrupted by a kill is
  marked failed and played again (from its saved chunks). Several processes or machines can share one study through
  ``--storage`` (see the README).
- **Budget**: at most ``--trials`` trials and ``--max-games`` games, counting each (setting, chunk) once.
- **Checks** (:func:`experiments.tune_study.storage_url` and ``open_study``): a storage URL that does not parse, or
  whose driver is not installed, is refused before anything starts; a ``study.db`` that is a folder or not a
  database is refused in one line (``--fresh`` replaces the run folder's own). Processes opening one SQLite study
  create its tables one at a time (a lock file beside the database), so starting several at once is safe.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np

from boardlab.engines import get_game
from boardlab.engines.learned.store import ModelMissing
from boardlab.experiments import train, tune_plan, validate, variants
from boardlab.experiments.run import Executor, FolderStore, InProcess, Runner, RunSpec, folder_lock
from boardlab.experiments.run.result import package_versions
from boardlab.experiments.run.spec import MAX_CHUNKS
from boardlab.experiments.tune_question import (
    Knob,
    Target,
    TuneError,
    check_trials,
    defined_metrics,
    measure,
    metric_names,
    objective,
    parse_target,
    parse_vary,
)
from boardlab.experiments.tune_study import (
    ETA,
    counted_trials,
    games_used,
    open_study,
    optuna_module,
    propose,
    rungs,
    storage_url,
)

__all__ = [  # the question's and the study's names the commands, the balance page and the tests reach through here
    "Knob",
    "Target",
    "TuneError",
    "TuneResult",
    "TuneSpec",
    "check_trials",
    "defined_metrics",
    "measure",
    "metric_names",
    "objective",
    "parse_target",
    "parse_vary",
    "storage_url",
    "summary",
    "tune",
    "worded",
]

DEFAULT_TRIALS = 40
DEFAULT_GAMES = 20_000
DEFAULT_CHUNK = 2_500
MAX_TRIALS = 10_000


@dataclass(frozen=True)
class TuneSpec:
    """A tuning question: game, seats, knobs to vary, targets, and the budget."""

    game: str
    seats: tuple[str, ...]
    knobs: tuple[Knob, ...]
    targets: tuple[Target, ...]
    settings: tuple[tuple[str, str], ...] = ()  # fixed knobs
    variant: str | None = None
    seed: int = 0
    games: int = DEFAULT_GAMES  # per trial played in full
    chunk_size: int = DEFAULT_CHUNK
    trials: int = DEFAULT_TRIALS
    max_games: int = 10**9
    eta: int = ETA
    start: tuple[tuple[str, str], ...] = field(init=False, default=())  # the baseline: the varied knobs' values

    def __post_init__(self) -> None:
        """Refuse what cannot be tuned before anything is played."""
        object.__setattr__(self, "seats", validate.names(self.seats, "seats"))
        object.__setattr__(self, "settings", validate.pairs(self.settings, "settings"))
        validate.whole(self.seed, "seed", 0, 2**63 - 1)
        validate.whole(self.games, "games", 1)
        if not self.knobs:
            raise TuneError("give at least one --vary knob=lo..hi or knob=a,b,c")
        if not self.targets:
            raise TuneError("give at least one --target metric=value or metric=lo..hi")
        varied = [k.name for k in self.knobs]
        if len(set(varied)) < len(varied):
            raise TuneError("a knob is given twice with --vary")
        if clash := {name for name, _ in self.settings} & set(varied):
            raise TuneError(f"{', '.join(sorted(clash))} is both varied (--vary) and fixed (--set)")
        if not 1 <= self.trials <= MAX_TRIALS:
            raise TuneError(f"--trials {self.trials} is out of range; allowed 1..{MAX_TRIALS}")
        if not 1 <= self.chunk_size <= self.games:
            raise TuneError(
                f"--chunk-size {self.chunk_size} is out of range; allowed 1..{self.games} (the games per trial)"
            )
        if self.max_games < self.chunk_size:
            raise TuneError(f"--max-games {self.max_games} is less than one chunk ({self.chunk_size} games)")
        if self.chunks > MAX_CHUNKS:
            raise TuneError(
                f"-n {self.games:,} in chunks of {self.chunk_size:,} games makes {self.chunks:,} chunks a trial; "
                f"allowed at most {MAX_CHUNKS:,} (fewer games or a larger --chunk-size)"
            )
        if self.variant is not None:
            fixed = {k.replace("-", "_") for k in variants.settings_of(self.game, self.variant) or {}}
            if clash := fixed & set(varied):
                raise TuneError(
                    f"{', '.join(sorted(clash))} is both varied (--vary) and set by variant '{self.variant}'; "
                    "vary it without the variant, or vary other knobs"
                )
        start = tune_plan.baseline(self.game, self.knobs, self.settings, self.variant)
        object.__setattr__(self, "knobs", tune_plan.including(self.knobs, start))
        object.__setattr__(self, "start", tuple(start.items()))
        check_trials(self.game, self.knobs, self.settings, self.variant)

    @property
    def plan(self) -> list[dict[str, str]] | None:
        """Every setting, baseline first, when there are no more than the trials; else None (the sampler's)."""
        if tune_plan.size(self.knobs) > self.trials:
            return None
        return tune_plan.every_setting(self.knobs, dict(self.start))

    @property
    def chunks(self) -> int:
        """Chunks of a trial played in full."""
        return -(-self.games // self.chunk_size)

    def settings_of(self, setting: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
        """The fixed knobs, then ``setting``'s."""
        return (*self.settings, *setting.items())

    def run_spec(self, setting: Mapping[str, str], chunks: int) -> RunSpec:
        """The run of ``setting``'s first ``chunks`` chunks (chunk ``i`` from the same seed in every trial)."""
        settings = self.settings_of(setting)
        return RunSpec(
            self.game, self.seats, chunks * self.chunk_size, self.seed, settings, self.variant, self.chunk_size
        )

    def config(self) -> dict[str, Any]:
        """What identifies the question (a study in storage must have been made for the same one)."""
        out = asdict(self)
        del out["trials"], out["max_games"]  # a resumed run may be given a larger budget
        return json.loads(json.dumps(out))


@dataclass
class TuneResult:
    """A finished (or budget-stopped) tuning run."""

    spec: TuneSpec
    trials: Any  # DataFrame: one row per trial
    best: dict[str, Any]  # number, setting, objective (value, ci), metrics {name: {value, ci}}, games
    importances: dict[str, float]
    games_used: int
    folder: Path
    baseline: dict[str, Any] | None = None  # like ``best``, for the setting before tuning (None: not played in full)
    files: list[Path] = field(default_factory=list)

    def missed(self) -> str:
        """One line naming the targets the best setting missed ('' when it reached them all)."""
        missed = [v for v in self.best["targets"] if not v["reached"]]
        if not missed:
            return ""
        what = "; ".join(f"{v['target']} (closest: {worded(v)})" for v in missed)
        every = "no target was" if len(missed) == len(self.best["targets"]) else "not every target was"
        return f"{every} reached with these knobs: {what}"

    def variant_text(self, name: str) -> str:
        """The best setting as a named variant in the variants-file format."""
        from boardlab.experiments import variants

        settings = {**dict(self.spec.settings), **self.best["setting"]}
        objective = self.best["objective"]
        note = (
            f"simulate tune {self.spec.game}: {', '.join(t.describe() for t in self.spec.targets)}; "
            f"objective {objective['value']:.4g} [{objective['ci'][0]:.4g}, {objective['ci'][1]:.4g}], "
            f"seats {','.join(self.spec.seats)}, seed {self.spec.seed}"
        )
        if missed := self.missed():
            note = f"CLOSEST SETTING ONLY: {missed}\n{note}"
        return variants.render(self.spec.game, {name: settings}, {name: note})


def worded(target: dict[str, Any]) -> str:
    """A target's measured value and 95% interval as the reports write it: ``-12.8% (-13.7 to -11.8)``."""
    from boardlab.analysis import game_metrics

    low, high = target["ci"]
    if target["metric"] in game_metrics.DEFINITIONS:
        return game_metrics.format_value(target["metric"], game_metrics.Value(target["value"], low, high))
    return f"{target['value']:.4g} ({low:.4g}–{high:.4g})"


def tolerance_worded(target: dict[str, Any]) -> str:
    """A target's tolerance in the unit its value is written in: ``1.0 point`` for a share, the number else."""
    from boardlab.analysis import game_metrics, wording

    name, tolerance = target["metric"], target["tolerance"]
    if name in game_metrics.DEFINITIONS and game_metrics.DEFINITIONS[name].share:  # as the target's own tolerance
        return wording.count(round(100 * tolerance, 1), "point")
    return f"{tolerance:.3g}"


def tune(
    spec: TuneSpec,
    folder: Path,
    executor: Executor | None = None,
    storage: str | None = None,
    fresh: bool = False,
    on_trial: Callable[[dict[str, Any]], None] | None = None,
    name: str = "tuned",
) -> TuneResult:
    """Run (or resume) the tuning of ``spec`` in ``folder``; write its outputs; return the result.

    The outputs are the tables, the plot and the winner as variant ``name`` (``variants.toml``).
    """
    variants.check_key(variants.check_name(spec.game, name))
    optuna = optuna_module()
    url = storage_url(storage, folder)
    shared = None if storage is None else open_study(spec, url, fresh)  # a bad one is refused before the folder
    folder.mkdir(parents=True, exist_ok=True)
    with folder_lock(folder):
        study = shared or open_study(spec, url, fresh, own=True)
        with folder_lock(folder / "chunks"):
            runner = Runner(FolderStore(folder / "chunks", fresh), executor or InProcess())
            plan = spec.plan
            budget = spec.trials if plan is None else len(plan)
            while True:
                counted = counted_trials(study)
                if len(counted) >= budget or games_used(counted, spec.chunk_size) >= spec.max_games:
                    break
                row = _run_trial(optuna, study, spec, len(counted), runner, plan)
                if row is None:  # the sampler proposes only settings already played: the search has converged
                    break
                if on_trial:
                    on_trial(row)
        return _finish(spec, study, folder, name)


def _run_trial(
    optuna: Any, study: Any, spec: TuneSpec, index: int, runner: Runner, plan: Sequence[Mapping[str, str]] | None
) -> dict[str, Any] | None:
    """Propose the ``index``-th counted trial, play it rung by rung, report, tell; its row (None: none proposed).

    Trial 0 plays the baseline; with a ``plan`` (every setting), trial ``i`` plays its ``i``-th.
    """
    fixed = plan[index] if plan is not None else dict(spec.start) if index == 0 else None
    proposed = propose(optuna, study, spec, index, fixed)
    if proposed is None:
        return None
    trial, setting = proposed
    key = json.dumps(setting, sort_keys=True)
    remaining = spec.max_games - games_used(counted_trials(study), spec.chunk_size)
    earlier = [t for t in counted_trials(study) if t.number != trial.number and t.user_attrs.get("setting") == key]
    saved = max((t.user_attrs.get("chunks", 0) for t in earlier), default=0)  # chunks replayed, not charged
    state, value, played, trained = "complete", None, 0, None
    try:
        model = train.ensure_learned(runner.executor, spec.game, spec.seats, spec.settings_of(setting), spec.variant)
        trained = model.seconds if model is not None and model.how == "trained" else None
    except ValueError as err:  # a combination of values the game refuses: no games, never the best
        trial.set_user_attr("refused", str(err))
        state = "pruned"
    for chunks in rungs(spec.chunks, spec.eta) if state == "complete" else ():
        new = max(0, chunks - max(saved, played))
        if new * spec.chunk_size > remaining:
            state = "pruned"
            trial.set_user_attr("budget_stop", True)
            break
        try:
            [result] = runner.play([spec.run_spec(setting, chunks)])
        except ModelMissing:  # training is off and the setting has no model: the user's to fix, not a bad setting
            raise
        except ValueError as err:  # a combination of values the game refuses: no games, never the best
            trial.set_user_attr("refused", str(err))
            state = "pruned"
            break
        remaining -= new * spec.chunk_size
        played = chunks
        metrics = measure(result, spec.targets)
        value = objective(metrics, spec.targets)
        trial.set_user_attr("chunks", played)
        trial.set_user_attr("metrics", {k: v.as_json() for k, v in metrics.items()})
        trial.set_user_attr("objective", value.as_json())
        trial.report(value.value, chunks)
        if chunks < spec.chunks and trial.should_prune():
            state = "pruned"
            break
    if state == "complete" and value is not None:
        study.tell(trial, value.value)
    else:
        study.tell(trial, state=optuna.trial.TrialState.PRUNED)
    return {
        "number": index,
        "state": state,
        "setting": setting,
        "chunks": played,
        "objective": value,
        "trained": trained,
    }


def _finish(spec: TuneSpec, study: Any, folder: Path, variant_name: str) -> TuneResult:
    """The trials table, the best setting, knob importances and the plot, written into ``folder``."""
    import pandas as pd

    optuna = optuna_module()
    counted = counted_trials(study)
    rows = []
    place = {t.number: k for k, t in enumerate(counted)}  # trials are numbered without the failed (killed) ones
    for t in counted:
        row: dict[str, Any] = {"trial": place[t.number], "state": t.state.name.lower()}
        row |= json.loads(t.user_attrs.get("setting", "{}"))
        row["games"] = t.user_attrs.get("chunks", 0) * spec.chunk_size
        obj = t.user_attrs.get("objective")
        row["objective"] = obj["value"] if obj else math.inf
        row["objective_lo"], row["objective_hi"] = obj["ci"] if obj else (math.inf, math.inf)
        for name, m in t.user_attrs.get("metrics", {}).items():
            row[name], row[f"{name}_lo"], row[f"{name}_hi"] = m["value"], *m["ci"]
        rows.append(row)
    trials = pd.DataFrame(rows)
    complete = [t for t in counted if t.state.name == "COMPLETE" and "objective" in t.user_attrs]
    if not complete:
        raise TuneError("no trial was played in full; raise --max-games or --trials")
    best_trial = min(complete, key=lambda t: (t.user_attrs["objective"]["value"], t.number))
    best = {
        "trial": place[best_trial.number],
        "setting": json.loads(best_trial.user_attrs["setting"]),
        "objective": best_trial.user_attrs["objective"],
        "metrics": best_trial.user_attrs["metrics"],
        "games": best_trial.user_attrs["chunks"] * spec.chunk_size,
    }
    best["targets"] = tune_plan.verdict(best["metrics"], spec.targets)
    best["reached"] = all(v["reached"] for v in best["targets"])
    start = json.dumps(dict(spec.start), sort_keys=True)
    base = next((t for t in counted if t.user_attrs.get("setting") == start and "objective" in t.user_attrs), None)
    baseline = None
    if base is not None:
        baseline = {
            "trial": place[base.number],
            "setting": dict(spec.start),
            "objective": base.user_attrs["objective"],
            "metrics": base.user_attrs["metrics"],
            "games": base.user_attrs["chunks"] * spec.chunk_size,
            "targets": tune_plan.verdict(base.user_attrs["metrics"], spec.targets),
        }
    importances: dict[str, float] = {}
    if len(complete) >= 2 and len({t.user_attrs["setting"] for t in complete}) >= 2:
        evaluator = optuna.importance.PedAnovaImportanceEvaluator()
        try:
            importances = {
                k: float(v) for k, v in optuna.importance.get_param_importances(study, evaluator=evaluator).items()
            }
        except (RuntimeError, ValueError):  # too few distinct values to tell knobs apart
            importances = {}
    used = games_used(counted, spec.chunk_size)
    result = TuneResult(spec, trials, best, importances, used, folder, baseline)
    result.files = _write(result, variant_name)
    return result


def _write(result: TuneResult, name: str) -> list[Path]:
    """Write the outputs, replacing the old set together (``best.json`` last).

    They are ``trials.csv``, ``trials.parquet``, ``importances.csv``, ``tune.png``, ``variants.toml`` (the winner
    as variant ``name``) and ``best.json``.
    """
    from boardlab.analysis import run_figures
    from boardlab.analysis.files import replacing_together

    folder, trials = result.folder, result.trials
    with replacing_together(folder, last="best.json") as stage:
        (stage / "trials.csv").write_bytes(trials.to_csv(index=False).encode())
        objects = {c: str for c in trials.columns if trials[c].dtype == object}
        trials.astype(objects).to_parquet(stage / "trials.parquet", index=False)
        lines = "knob,importance\n" + "".join(f"{k},{v}\n" for k, v in result.importances.items())
        (stage / "importances.csv").write_bytes(lines.encode())
        run_figures.save_png(plot(result), stage / "tune.png")
        (stage / variants.FILE_NAME).write_bytes(result.variant_text(name).encode())
        (stage / "best.json").write_bytes(json.dumps(summary(result), indent=1).encode())
    names = ("trials.csv", "trials.parquet", "importances.csv", "best.json", "tune.png", variants.FILE_NAME)
    return [folder / n for n in names]


def plot(result: TuneResult) -> Any:
    """Objective by trial (played in full: dots with intervals; stopped early: crosses), best so far; importances."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    trials = result.trials
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8), width_ratios=(2, 1))
    full = trials[(trials["state"] == "complete") & np.isfinite(trials["objective"])]
    cut = trials[(trials["state"] == "pruned") & np.isfinite(trials["objective"])]
    left.errorbar(
        full["trial"],
        full["objective"],
        yerr=[full["objective"] - full["objective_lo"], full["objective_hi"] - full["objective"]],
        fmt="o",
        ms=4,
        label="played in full (95% interval)",
    )
    left.plot(cut["trial"], cut["objective"], "x", color="grey", label="stopped early (pruned)")
    best = np.minimum.accumulate(np.where(trials["state"] == "complete", trials["objective"], np.inf))
    left.step(
        trials["trial"], np.where(np.isfinite(best), best, np.nan), where="post", color="black", label="best so far"
    )
    left.set_xlabel("trial")
    left.set_ylabel("objective (distance from the targets)")
    left.legend(fontsize=8)
    names = list(result.importances)
    right.barh(names[::-1], [result.importances[n] for n in names][::-1])
    right.set_xlabel("importance (PED-ANOVA)")
    right.set_title("knobs", fontsize=9)
    fig.suptitle(
        f"{result.spec.game}: tuning toward {', '.join(t.describe() for t in result.spec.targets)}", fontsize=10
    )
    fig.tight_layout()
    return fig


def summary(result: TuneResult) -> dict[str, Any]:
    """The result as one JSON-friendly object (what ``simulate tune --json`` prints and ``best.json`` holds)."""
    spec = result.spec
    return {
        "game": spec.game,
        "seats": list(spec.seats),
        "targets": [t.describe() for t in spec.targets],
        "knobs": [k.describe() for k in spec.knobs],
        "best": result.best,
        "reached": result.best["reached"],
        "baseline": result.baseline,
        "importances": result.importances,
        "games_used": result.games_used,
        "trials": len(result.trials),
        "folder": str(result.folder),
        "fixed": dict(spec.settings),
        "variant": spec.variant,
        "seed": spec.seed,
        "games_per_trial": spec.games,
        "chunk_size": spec.chunk_size,
        "command": " ".join(sys.argv),
        "game_version": get_game(spec.game).module.INFO.version,
        "versions": {**package_versions(), "optuna": version("optuna")},  # its sampler proposes the settings
    }
