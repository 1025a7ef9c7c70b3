"""The tuning question (:mod:`experiments.tune`): the knobs varied, the targets aimed at, and a setting's distance.

A **knob** is varied over a range (``--vary knob=lo..hi``) or a list (``--vary knob=a,b,c``); a **target** aims a
game metric at a value or a range (``--target metric=value``, ``~T`` a tolerance, ``@W`` a weight). The
**objective** of a setting is its weighted distance from the targets, with the interval its metrics' allow.
"""

from __future__ import annotations

import itertools
import math
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardlab.analysis import game_metrics
from boardlab.engines import core, get_game
from boardlab.experiments import validate
from boardlab.experiments.run import RunSpec

MAX_CATEGORIES = 1_000
PROBES = 64
"""Settings of the other varied knobs :func:`check_trials` tries beside each value."""


class TuneError(ValueError):
    """Bad tuning input (one line for the user)."""


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
