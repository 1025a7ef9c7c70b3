"""Tune a game's knobs toward designer targets (``simulate tune GAME``), with Optuna.

A **trial** is one setting of the varied knobs (``--vary knob=lo..hi`` for a whole-number or real knob, or
``--vary knob=a,b,c``; ``;`` between values of a tuple knob). Its **objective** is how far its game metrics
(:mod:`analysis.game_metrics`, or a scalar metric of the game's own) lie from the targets (``--target
metric=value`` or ``metric=lo..hi``, ``@W`` for a weight): the weighted sum of the distances, a share in absolute
terms (0.03 = three points), a count relative to the target's size. Its interval follows from the metrics'
intervals (the smallest and largest distance they allow, summed), so it is conservative.

- **Sampler**: Optuna's TPE (multivariate), which handles whole-number and categorical knobs natively. It is
  seeded afresh for each trial from the tuning seed and the trial's place (failed trials not counted), so the
  same seed proposes the same settings, and a run stopped and started again proposes what it would have.
- **Pruning** (:class:`PairedHalving`): a trial plays chunks of games and reports its objective after 1, η, η², …
  chunks; it goes on only while it is among the best 1/η of the trials that reached the same point. Every trial
  plays chunk ``i`` from the same seed (common random numbers), so trials are compared on the same dice.
- **Storage**: the study lives in SQLite inside the run folder (``study.db``) and finished chunks in
  ``chunks/`` (a :class:`experiments.run.FolderStore`), so a stopped run resumes where it was; a trial
  interrupted by a kill is marked failed and played again (from its saved chunks). Several processes or machines
  can share one study through ``--storage`` (see the README).
- **Budget**: at most ``--trials`` trials and ``--max-games`` games, counting each (setting, chunk) once.
- **Checks** (:func:`storage_url`, :func:`open_study`): a storage URL that does not parse, or whose driver is
  not installed, is refused before anything starts; a ``study.db`` that is a folder or not a database is refused
  in one line (``--fresh`` replaces the run folder's own). Processes opening one SQLite study create its tables
  one at a time (a lock file beside the database), so starting several at once is safe.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import json
import math
import os
import socket
import sys
import typing
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np

from boardlab.analysis import game_metrics
from boardlab.engines import core, get_game
from boardlab.engines.learned.store import ModelMissing
from boardlab.experiments import train, tune_plan, validate, variants
from boardlab.experiments.output import package_versions
from boardlab.experiments.run import Executor, FolderStore, InProcess, Runner, RunSpec, folder_lock
from boardlab.experiments.run.spec import MAX_CHUNKS

STUDY_NAME = "tune"
ETA = 3
"""Pruning's reduction factor: a third of the trials that reach a rung go on."""
DEFAULT_TRIALS = 40
DEFAULT_GAMES = 20_000
DEFAULT_CHUNK = 2_500
MAX_TRIALS = 10_000
MAX_CATEGORIES = 1_000
PROBES = 64
"""Settings of the other varied knobs :func:`check_trials` tries beside each value."""
MAX_REPEATS = 20
"""Proposals of settings already played that a trial tolerates before the search is taken to have converged."""


class TuneError(ValueError):
    """Bad tuning input (one line for the user)."""


# --- what to vary and what to aim at ------------------------------------------------------------------------


@dataclass(frozen=True)
class Knob:
    """A varied knob: a range of whole numbers or reals (``low..high``), or a list of values (as text)."""

    name: str
    values: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    whole: bool = True

    def suggest(self, trial: Any) -> str:
        """The trial's value of this knob, as the text ``--set`` takes."""
        if self.values:
            return str(trial.suggest_categorical(self.name, list(self.values)))
        if self.whole:
            return str(trial.suggest_int(self.name, int(self.low), int(self.high)))
        return repr(trial.suggest_float(self.name, float(self.low), float(self.high)))

    def internal(self, text: str) -> Any:
        """``text`` (a value of this knob) as :meth:`suggest` draws it: a listed text, a whole number or a real."""
        if self.values:
            return text
        return int(text) if self.whole else float(text)

    def candidates(self) -> tuple[str, ...]:
        """The values :func:`check_trials` tries: each listed value, or a range's two ends (as ``--set`` text)."""
        if self.values:
            return self.values
        ends = (int(self.low), int(self.high)) if self.whole else (self.low, self.high)
        return tuple(str(end) for end in ends)

    def describe(self) -> str:
        """``name=lo..hi`` or ``name=a,b,c``."""
        if self.values:
            return f"{self.name}={' | '.join(self.values)}"
        return f"{self.name}={self.low:g}..{self.high:g}"


def _range(text: str) -> tuple[str, str] | None:
    low, sep, high = text.partition("..")
    return (low.strip(), high.strip()) if sep else None


def parse_vary(game: str, text: str) -> Knob:
    """One ``--vary`` option, read against the game's knobs (its values are checked by :func:`check_trials`)."""
    params_cls = get_game(game).module.Params
    hints = typing.get_type_hints(params_cls)
    name, sep, rest = text.partition("=")
    name = name.strip().replace("-", "_")
    if not sep or not name or not rest.strip():
        raise TuneError(f"--vary {text!r} is not of the form knob=lo..hi or knob=a,b,c")
    if name not in hints:
        raise TuneError(f"--vary: unknown knob '{name}'{core.did_you_mean(name, list(hints))}")
    tp = hints[name]
    if (bounds := _range(rest)) is not None:
        if tp not in (int, float):
            raise TuneError(f"--vary {name}: a range lo..hi needs a number knob; list the values (a,b,c)")
        try:
            low, high = (core.parse_value(name, b, tp) for b in bounds)
        except ValueError as err:
            raise TuneError(f"--vary {err}") from None
        if low >= high:
            raise TuneError(f"--vary {name}={rest}: the range is empty or inverted; give lo..hi with lo < hi")
        return Knob(name, low=low, high=high, whole=tp is int)
    separator = ";" if typing.get_origin(tp) is tuple else ","
    values = tuple(dict.fromkeys(validate.items(rest, f"--vary {name}", separator)))
    if len(values) < 2:
        raise TuneError(f"--vary {name}={rest}: give at least two values (a,b,c) or a range, or fix it with --set")
    if len(values) > MAX_CATEGORIES:
        raise TuneError(f"--vary {name}: {len(values)} values; allowed at most {MAX_CATEGORIES}")
    return Knob(name, values=values)


def check_trials(
    game: str, knobs: Sequence[Knob], settings: tuple[tuple[str, str], ...], variant: str | None
) -> tuple[tuple[str, str], ...]:
    """Refuse a varied value no trial can play; return the varied knobs' setting of one trial that can.

    A trial's knobs are the defaults, then the variant's, the fixed ones (``settings``), then its varied values.
    Each value (a range's two ends, or each listed value) is tried beside up to :data:`PROBES` settings of the
    other varied knobs (their ends and values); one that none of them allows is refused with the game's reason
    (``--vary dice=3..5`` with the default ``token_values=2,3,4``: nothing allows ``dice=3``). Values inside a
    range, and combinations not tried here, are refused at play (such a trial plays nothing, never the best).
    A knob both varied and fixed, or varied twice, is left to :class:`TuneSpec`, which refuses it.
    """
    module = get_game(game).module
    spec = RunSpec(game, (core.unprepared_policy(module.POLICIES),) * module.INFO.min_players, 1, 0, (), variant, 1)
    fixed = {k.replace("-", "_"): v for k, v in (*(spec.variant_sets or ()), *settings)}
    free = list({k.name: k for k in knobs if k.name not in fixed}.values())  # a knob twice: TuneSpec refuses
    playable: tuple[tuple[str, str], ...] | None = None
    for i, knob in enumerate(free):
        others = [[(k.name, v) for v in k.candidates()] for k in free[:i] + free[i + 1 :]]
        for value in knob.candidates():
            reason = ""
            for rest in itertools.islice(itertools.product(*others), PROBES):
                setting = ((knob.name, value), *rest)
                try:
                    module.Params().with_strings({**fixed, **dict(setting)})
                except ValueError as err:
                    reason = reason or str(err)
                    continue
                playable = playable or tuple(sorted(setting))
                break
            else:
                if knob.name in reason:
                    raise TuneError(f"--vary {knob.name}={value} is never allowed here: {reason}")
                raise TuneError(f"no trial can play --vary {knob.name}={value} beside the fixed knobs: {reason}")
    return () if playable is None else playable


@dataclass(frozen=True)
class Target:
    """Aim ``metric`` at ``[low, high]`` (a single value when equal), with a weight."""

    metric: str
    low: float
    high: float
    weight: float = 1.0
    share: bool = True  # a share of games: distances in absolute terms; else relative to the target's size
    tol: float | None = None  # how far off still counts as reached (``~T``); None: :attr:`tolerance`'s default

    @property
    def tolerance(self) -> float:
        """How far outside ``[low, high]`` a metric may lie and still reach the target.

        Given with ``~T``; by default one point for a share, 2% of the target's size for a count.
        """
        if self.tol is not None:
            return self.tol
        return 0.01 if self.share else 0.02 * self.scale

    @property
    def scale(self) -> float:
        """What a distance is divided by: 1 for a share, else the target's size (at least 1)."""
        return 1.0 if self.share else max(abs(self.low), abs(self.high), 1.0)

    def distance(self, value: float) -> float:
        """How far ``value`` lies outside ``[low, high]``, scaled and weighted."""
        gap = max(self.low - value, 0.0, value - self.high)
        return self.weight * gap / self.scale

    def describe(self) -> str:
        """``metric=value`` or ``metric=lo..hi`` (with ``@weight`` unless 1)."""
        aim = f"{self.low:g}" if self.low == self.high else f"{self.low:g}..{self.high:g}"
        tol = f"~{self.tol:g}" if self.tol is not None else ""
        return f"{self.metric}={aim}{tol}" + (f"@{self.weight:g}" if self.weight != 1 else "")


def metric_names(module: Any) -> list[str]:
    """Names a target may use: the game metrics, then the game's own per-game metrics."""
    own = [name for name, m in module.METRICS.items() if m.kind == "game"]
    return [*game_metrics.DEFINITIONS, *own]


def parse_target(game: str, text: str, defined: Sequence[str]) -> Target:
    """One ``--target`` option; ``defined`` are the metrics this game and seating can measure."""
    module = get_game(game).module
    name, sep, rest = text.partition("=")
    name = name.strip()
    if not sep or not name or not rest.strip():
        raise TuneError(
            f"--target {text!r} is not of the form metric=value or metric=lo..hi (optionally ~tolerance, @weight)"
        )
    names = metric_names(module)
    if name not in names:
        raise TuneError(f"--target: unknown metric '{name}'{core.did_you_mean(name, names)}")
    definition = game_metrics.DEFINITIONS.get(name)
    if definition is not None and definition.needs == "ladder":
        raise TuneError(f"--target {name}: it comes from a skill ladder (simulate ladder {game}) and cannot be tuned")
    if name not in defined:
        if definition is not None and definition.needs == "cooperative":
            why = "the game is not cooperative: no table wins or loses together"
        elif name == "turns":
            why = "its turns are rounds, in which every seat moves: aim at duration"
        elif module.INFO.cooperative:
            why = "the game is cooperative"
        else:
            why = "its engine reports no mid-game scores"
        raise TuneError(f"--target {name}: {game} cannot define it ({why})")
    aim, _, weight_text = rest.partition("@")
    aim, has_tol, tol_text = aim.partition("~")
    try:
        weight = float(weight_text) if weight_text.strip() else 1.0
        tol = float(tol_text) if has_tol else None
        bounds = _range(aim)
        low, high = (float(b) for b in bounds) if bounds else (float(aim),) * 2
    except ValueError:
        raise TuneError(f"--target {text!r}: the value, range, tolerance and weight must be numbers") from None
    if not all(math.isfinite(v) for v in (low, high, weight, 0.0 if tol is None else tol)):
        raise TuneError(f"--target {text!r}: the value, range, tolerance and weight must be finite")
    if tol is not None and tol < 0:
        raise TuneError(f"--target {text!r}: the tolerance must be zero or positive")
    if bounds and low >= high:
        raise TuneError(f"--target {name}={aim}: the range is empty or inverted; give lo..hi with lo < hi")
    if weight <= 0:
        raise TuneError(f"--target {text!r}: the weight must be positive")
    return Target(name, low, high, weight, definition.share if definition else False, tol)


def defined_metrics(
    game: str, seats: Sequence[str], settings: tuple[tuple[str, str], ...], variant: str | None
) -> list[str]:
    """The target names this game defines with these seats: from the columns of a zero-game play.

    The play seats a policy with nothing to prepare in every seat (the columns are the game's, whoever plays), so
    no model is trained nor table built for the fixed knobs alone, which no trial may play.
    """
    module = get_game(game).module
    probe = [core.unprepared_policy(module.POLICIES)] * len(seats)
    spec = RunSpec(game, tuple(probe), 1, 0, settings, variant, 1)
    outcome = module.play(spec.params, probe, 0, np.random.default_rng(0))
    has = {"duration"} | (set() if module.INFO.turns_are_rounds else {"turns"})
    if module.INFO.cooperative:
        has.add("table_win_rate")
    else:
        has |= {"first_seat_advantage", "max_seat_advantage", "decisiveness"}
        if "mid_score" in outcome and "lead_changes" in outcome:
            has |= {"drama", "lead_changes"}
    return [name for name in metric_names(module) if name in has or name in module.METRICS]


# --- measuring a setting ------------------------------------------------------------------------------------


def measure(result: Any, targets: Sequence[Target]) -> dict[str, game_metrics.Value]:
    """The scalar metrics of a run that targets may name: game metrics, then the game's own per-game metrics."""
    out = {k: v for k, v in result.game_metrics().items() if isinstance(v, game_metrics.Value)}
    module = result.spec.module
    for target in targets:
        if target.metric not in out and target.metric in module.METRICS:
            m, lo, hi = result.summary.metric_mean(target.metric)
            out[target.metric] = game_metrics.Value(float(m), float(lo), float(hi))
    return out


def objective(metrics: Mapping[str, game_metrics.Value], targets: Sequence[Target]) -> game_metrics.Value:
    """The weighted distance from the targets, with the smallest and largest distance the metrics' intervals allow."""
    value = low = high = 0.0
    for target in targets:
        m = metrics[target.metric]
        value += target.distance(m.value)
        overlap = m.low <= target.high and m.high >= target.low
        ends = (target.distance(m.low), target.distance(m.high))
        low += 0.0 if overlap else min(ends)
        high += max(ends)
    return game_metrics.Value(value, low, high)


# --- pruning ------------------------------------------------------------------------------------------------


def _optuna() -> Any:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    return optuna


def rungs(total: int, eta: int = ETA) -> list[int]:
    """Chunk counts at which a trial reports and may be stopped: 1, η, η², … below ``total``, then ``total``."""
    out, step = [], 1
    while step < total:
        out.append(step)
        step *= eta
    return [*out, total]


def make_pruner(eta: int = ETA) -> Any:
    """Successive halving on the trials' reported objectives, failed trials left out (see the module docstring)."""
    optuna = _optuna()

    class PairedHalving(optuna.pruners.BasePruner):
        """Stop a trial at a rung unless its objective is among the best 1/η of the trials that reached it."""

        def prune(self, study: Any, trial: Any) -> bool:
            step = trial.last_step
            if step is None:
                return False
            mine = trial.intermediate_values[step]
            others = [
                t.intermediate_values[step]
                for t in study.get_trials(deepcopy=False)
                if t.number != trial.number
                and t.state.name != "FAIL"
                and "repeat_of" not in t.user_attrs
                and step in t.intermediate_values
            ]
            if len(others) + 1 < eta:  # too few to compare: go on
                return False
            keep = max(1, (len(others) + 1) // eta)
            return mine > sorted([*others, mine])[keep - 1]

    return PairedHalving()


# --- the tuning run -----------------------------------------------------------------------------------------


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


def _owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _alive(owner: str) -> bool:
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return True  # another machine's: it may be running
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def storage_url(storage: str | None, folder: Path) -> str:
    """The study's storage URL: ``storage``, checked (it parses, its driver is installed), or ``folder/study.db``.

    A SQLite database that is a folder is refused. Nothing is created.
    """
    if storage is None:
        url = f"sqlite:///{(folder / 'study.db').resolve()}"
    else:
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError

        try:
            parsed = make_url(storage)
        except ArgumentError:
            raise TuneError(
                f"--storage {storage!r} is not a database URL (e.g. sqlite:////path/study.db, postgresql://user@host/db)"
            ) from None
        try:
            parsed.get_dialect().import_dbapi()
        except ImportError as err:
            raise TuneError(
                f"--storage {parsed.get_backend_name()}: its driver is not installed ({err}); install it, e.g. psycopg2"
            ) from None
        except Exception as err:  # sqlalchemy's NoSuchModuleError and the like: an unknown database kind
            raise TuneError(f"--storage {storage!r}: {str(err).splitlines()[0]}") from None
        url = storage
    if (path := _sqlite_file(url)) is not None and path.exists() and not path.is_file():
        raise TuneError(f"the tuning study {path} is not a file; remove it or choose another --out or --storage")
    return url


def _sqlite_file(url: str) -> Path | None:
    """The database file of a SQLite URL (None for other databases and for memory)."""
    prefix = "sqlite:///"
    return Path(url[len(prefix) :]) if url.startswith(prefix) and len(url) > len(prefix) else None


@contextlib.contextmanager
def _schema_lock(url: str) -> Any:
    """For a SQLite study: hold ``DB.lock`` beside the database, so only one process creates its tables at once."""
    path = _sqlite_file(url)
    if path is None:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def open_study(spec: TuneSpec, storage: str, fresh: bool, own: bool = False) -> Any:
    """Create or load the study; refuse one made for another question; fail trials whose process is gone.

    ``own``: the storage is the run folder's ``study.db``, which ``fresh`` deletes (even when it is damaged).
    A storage that cannot be used is refused in one line.
    """
    optuna = _optuna()
    from sqlalchemy.exc import SQLAlchemyError

    try:
        with _schema_lock(storage):
            if fresh and own and (path := _sqlite_file(storage)) is not None:
                path.unlink(missing_ok=True)
            elif fresh:
                with contextlib.suppress(KeyError):  # nothing stored yet
                    optuna.delete_study(study_name=STUDY_NAME, storage=storage)
            study = optuna.create_study(
                study_name=STUDY_NAME,
                storage=storage,
                direction="minimize",
                load_if_exists=True,
                pruner=make_pruner(spec.eta),
            )
    except (SQLAlchemyError, ImportError) as err:
        first = str(getattr(err, "orig", None) or err).splitlines()[0]
        hint = "; --fresh starts a new one" if own else ""
        raise TuneError(f"cannot use the tuning study {_sqlite_file(storage) or storage}: {first}{hint}") from None
    config = json.dumps(spec.config(), sort_keys=True)
    stored = study.user_attrs.get("config")
    if stored is None:
        study.set_user_attr("config", config)
    elif stored != config:
        raise TuneError("the study in storage was made for another tuning question; use --fresh or another --out")
    for trial in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,)):
        if not _alive(trial.user_attrs.get("owner", "")):  # killed: played again as the next trial
            study._storage.set_trial_state_values(trial._trial_id, optuna.trial.TrialState.FAIL)
    return study


def _counted(study: Any) -> list[Any]:
    """The trials that count: not failed (killed), nor a repeated proposal told an earlier setting's result."""
    return [t for t in study.get_trials(deepcopy=False) if t.state.name != "FAIL" and "repeat_of" not in t.user_attrs]


def games_used(trials: Sequence[Any], chunk_size: int) -> int:
    """Games charged so far: each setting's chunks once (a repeated setting replays saved chunks)."""
    reached: dict[str, int] = {}
    for t in trials:
        key = t.user_attrs.get("setting")
        if key is not None:
            reached[key] = max(reached.get(key, 0), t.user_attrs.get("chunks", 0))
    return sum(reached.values()) * chunk_size


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
    optuna = _optuna()
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
                counted = _counted(study)
                if len(counted) >= budget or games_used(counted, spec.chunk_size) >= spec.max_games:
                    break
                row = _run_trial(optuna, study, spec, len(counted), runner, plan)
                if row is None:  # the sampler proposes only settings already played: the search has converged
                    break
                if on_trial:
                    on_trial(row)
        return _finish(spec, study, folder, name)


def _propose(
    optuna: Any, study: Any, spec: TuneSpec, index: int, fixed: Mapping[str, str] | None
) -> tuple[Any, dict[str, str]] | None:
    """The ``index``-th counted trial and its setting: ``fixed`` if given, else the sampler's first new proposal.

    A proposal of a setting already played is told that setting's result (no games) and the sampler asked again,
    up to :data:`MAX_REPEATS` times; then None (the search has converged).
    """
    repeats = sum(1 for t in study.get_trials(deepcopy=False) if t.user_attrs.get("for_index") == index)
    for attempt in range(repeats, repeats + MAX_REPEATS + 1):
        key_of_seed = (spec.seed, index) if attempt == 0 else (spec.seed, index, attempt)
        seed = int(np.random.SeedSequence(key_of_seed).generate_state(1)[0])  # this trial's, whatever ran before
        study.sampler = optuna.samplers.TPESampler(seed=seed, multivariate=True, n_startup_trials=min(10, spec.trials))
        if fixed is not None:
            study.enqueue_trial({k.name: k.internal(fixed[k.name]) for k in spec.knobs})
        trial = study.ask()
        trial.set_user_attr("owner", _owner())
        setting = {k.name: k.suggest(trial) for k in spec.knobs}
        key = json.dumps(setting, sort_keys=True)
        trial.set_user_attr("setting", key)
        earlier = [t for t in _counted(study) if t.number != trial.number and t.user_attrs.get("setting") == key]
        if fixed is not None or not earlier:
            return trial, setting
        trial.set_user_attr("repeat_of", earlier[0].number)
        trial.set_user_attr("for_index", index)
        if earlier[0].state.name == "COMPLETE":
            study.tell(trial, earlier[0].value)
        else:
            for step, value in earlier[0].intermediate_values.items():
                trial.report(value, step)
            study.tell(trial, state=optuna.trial.TrialState.PRUNED)
    return None


def _run_trial(
    optuna: Any, study: Any, spec: TuneSpec, index: int, runner: Runner, plan: Sequence[Mapping[str, str]] | None
) -> dict[str, Any] | None:
    """Propose the ``index``-th counted trial, play it rung by rung, report, tell; its row (None: none proposed).

    Trial 0 plays the baseline; with a ``plan`` (every setting), trial ``i`` plays its ``i``-th.
    """
    fixed = plan[index] if plan is not None else dict(spec.start) if index == 0 else None
    proposed = _propose(optuna, study, spec, index, fixed)
    if proposed is None:
        return None
    trial, setting = proposed
    key = json.dumps(setting, sort_keys=True)
    remaining = spec.max_games - games_used(_counted(study), spec.chunk_size)
    earlier = [t for t in _counted(study) if t.number != trial.number and t.user_attrs.get("setting") == key]
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

    optuna = _optuna()
    counted = _counted(study)
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
