"""Run a study's arms side by side and tabulate them, with paired comparisons against the first arm.

Every arm shares the study's seed and chunk size, so chunk ``i`` of every arm is played from the same seed
(common random numbers): comparisons pair the arms chunk by chunk.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardlab.analysis import stats, wording
from boardlab.experiments import validate
from boardlab.experiments.output import provenance
from boardlab.experiments.run import Runner, RunResult, rule, shortfall
from boardlab.experiments.spec import Arm, Study


@dataclass
class StudyResult:
    """A study's arms and their results, in the study's order."""

    study: Study | None
    arms: Sequence[Arm]
    results: list[RunResult]

    def table(self, metrics: Sequence[str] = ()) -> Any:
        """One row per arm and seat: win rate, shared wins and mean score with intervals, game length, metrics.

        A game or seat metric adds its mean and interval; a counts metric adds its share in each bin.
        """
        import pandas as pd

        frames = []
        for arm, result in zip(self.arms, self.results, strict=True):
            seat = result.seat_table()
            mean, low, high = result.summary.mean_turns()
            seat.insert(0, "arm", arm.label)
            seat["mean_turns"], seat["turns_lo"], seat["turns_hi"] = mean, low, high
            for name in metrics:
                metric = result.spec.module.METRICS[name]
                if metric.kind == "counts":  # a histogram: one column per bin, as shares of its total
                    shares = result.summary.counts_fractions(name)
                    labels = metric.labels or tuple(str(i) for i in range(len(shares)))
                    for label, share in zip(labels, shares, strict=False):
                        seat[f"{name}: {label}"] = float(share)
                    continue
                m, lo, hi = result.summary.metric_mean(name)
                per_seat = np.ndim(m) == 1
                seat[name] = m if per_seat else float(m)
                seat[f"{name}_lo"] = lo if per_seat else float(lo)
                seat[f"{name}_hi"] = hi if per_seat else float(hi)
            frames.append(seat)
        return pd.concat(frames, ignore_index=True)

    def target(self, precision: float | None = None) -> float | None:
        """The precision the arms were played to: ``precision`` if given, else the study's (None: fixed games)."""
        return precision if precision is not None else self.study.precision if self.study is not None else None

    def shortfalls(self, precision: float | None = None) -> list[tuple[Arm, str]]:
        """Each arm played to ``precision`` (else its study's) that stopped at its cap short of it, and why."""
        target = self.target(precision)
        lines = [shortfall(r.summary, target, a.spec.chunk_size) for a, r in zip(self.arms, self.results, strict=True)]
        return [(arm, line) for arm, line in zip(self.arms, lines, strict=True) if line is not None]

    def record(self, precision: float | None = None) -> dict[str, Any]:
        """What produced the tables (``study.json``).

        :func:`~experiments.output.provenance`, the study and its file, each arm's seats, knobs, variant and games,
        and the precision asked for (``precision``, else the study's) and whether every arm reached it.
        """
        target = self.target(precision)
        out = provenance(self.arms[0].spec)
        if self.study is not None:
            source = None if self.study.source is None else str(self.study.source)
            out |= {"study": self.study.name, "title": self.study.title, "file": source}
        out["arms"] = [
            {
                "label": arm.label,
                "seats": list(arm.spec.seats),
                "variant": arm.spec.variant,
                "knobs": dict(arm.spec.settings),
                "games": result.summary.n_games,
            }
            for arm, result in zip(self.arms, self.results, strict=True)
        ]
        out |= {"precision": target, "precision_reached": None if target is None else not self.shortfalls(target)}
        return out

    def comparisons(self) -> Any:
        """Each arm against the first: seat-0 (or table) win rate and game length.

        Paired by chunk (common random numbers) when the arms have at least
        :data:`~analysis.stats.MIN_PAIRED_UNITS` chunks; with fewer, the games of the two arms are compared as
        independent samples (a valid, wider interval) rather than from a handful of chunk means. Each row says
        its unit (``chunks`` or ``games``) and how many; ``p`` is the p-value as printed (never 0).
        """
        import pandas as pd

        base = self.results[0]
        cooperative = base.spec.module.INFO.cooperative
        win = "table win rate" if cooperative else "seat-0 win rate"
        rows = []
        for arm, result in zip(self.arms[1:], self.results[1:], strict=True):
            if [c.n_games for c in result.per_chunk] != [c.n_games for c in base.per_chunk]:
                continue
            for measure in (win, "mean turns"):
                rows.append({"arm": arm.label, "versus": self.arms[0].label, "measure": measure})
                rows[-1].update(_compare(result, base, measure, cooperative))
        frame = pd.DataFrame(rows)
        if len(frame):
            frame["p"] = [wording.p_figures(p) for p in frame["p_value"]]
        return frame


def _compare(result: RunResult, base: RunResult, measure: str, cooperative: bool) -> dict[str, Any]:
    """One measure of ``result`` against ``base``: paired by chunk when there are enough chunks, else by game."""
    if len(result.per_chunk) >= stats.MIN_PAIRED_UNITS:
        of = _mean_turns if measure == "mean turns" else _table_rate if cooperative else _seat0_rate
        return stats.paired_difference(of(result), of(base))
    if measure == "mean turns":
        return stats.mean_difference(_turn_sums(result), _turn_sums(base))
    wins = (lambda r: r.summary.shared_wins[0]) if cooperative else (lambda r: r.summary.wins[0])
    return stats.proportion_difference(int(wins(result)), result.summary.n_games, int(wins(base)), base.summary.n_games)


def _seat0_rate(result: RunResult) -> np.ndarray:
    return np.array([c.wins[0] / c.n_games for c in result.per_chunk])


def _table_rate(result: RunResult) -> np.ndarray:
    return np.array([c.shared_wins[0] / c.n_games for c in result.per_chunk])


def _mean_turns(result: RunResult) -> np.ndarray:
    return np.array([(np.arange(len(c.turns_hist)) * c.turns_hist).sum() / c.n_games for c in result.per_chunk])


def _turn_sums(result: RunResult) -> tuple[float, float, int]:
    hist = result.summary.turns_hist
    t = np.arange(len(hist), dtype=np.float64)
    return float((t * hist).sum()), float((t * t * hist).sum()), int(result.summary.n_games)


PRECISION_MAX_GAMES = 50_000_000
"""Games an arm may grow to when played to a precision target."""


def run_arms(
    arms: Sequence[Arm],
    runner: Runner,
    precision: float | None = None,
    progress: Callable[[int], None] | None = None,
    study: Study | None = None,
) -> StudyResult:
    """Play every arm through ``runner`` (to a target precision when given) and collect the results."""
    validate.precision(precision)
    if not isinstance(arms, list | tuple) or not all(isinstance(arm, Arm) for arm in arms):
        raise ValueError(f"arms={arms!r} must be a list of Arm (a label and a RunSpec each)")
    results = runner.play([arm.spec for arm in arms], rule(precision, PRECISION_MAX_GAMES), progress)
    return StudyResult(study, arms, results)


def player(runner: Runner, precision: float | None = None, progress: Callable[[int], None] | None = None) -> Any:
    """A chapter's :data:`experiments.chapters.common.Play`: arms played through ``runner``, results in order."""
    return lambda arms: run_arms(arms, runner, precision, progress).results


def run_study(
    study: Study, runner: Runner, precision: float | None = None, progress: Callable[[int], None] | None = None
) -> StudyResult:
    """Play a study's arms (``precision`` overrides the study's own)."""
    return run_arms(study.arms, runner, precision if precision is not None else study.precision, progress, study)
