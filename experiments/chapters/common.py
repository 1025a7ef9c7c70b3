"""What every report chapter shares: the plan of arms, the package version, rates and their wording."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from analysis import stats
from experiments.runner import RunResult, RunSpec
from experiments.spec import Arm
from experiments.study import run_arms


@dataclass
class Plan:
    """The arms of a chapter, by question; labels are unique keys (adding a label twice keeps the first)."""

    game: str
    arms: list[Arm] = field(default_factory=list)

    def add(
        self,
        label: str,
        seats: list[str] | tuple[str, ...],
        n: int,
        seed: int,
        chunk: int,
        variant: str | None = None,
        settings: tuple[tuple[str, str], ...] = (),
    ) -> None:
        """Add an arm unless one with the same label exists."""
        if all(a.label != label for a in self.arms):
            self.arms.append(Arm(label, RunSpec(self.game, tuple(seats), n, seed, tuple(settings), variant, chunk)))


def play_pages(
    plan: Plan,
    makers: Sequence[Callable[[dict[str, RunResult]], tuple[Any, ...]]],
    jobs: int | None,
    precision: float | None,
    progress: Callable[[int], None] | None,
) -> tuple[dict[str, RunResult], list[tuple[Any, ...]]]:
    """Play ``plan`` on one pool (to ``precision`` when given) and call each page maker on the results by arm label.

    Returns the results and what each maker made.

    A maker returns ``(page, headline, ...)``; callers unzip the tuples.
    """
    played = run_arms(plan.arms, jobs, precision, progress).results
    results = dict(zip((a.label for a in plan.arms), played, strict=True))
    return results, [make(results) for make in makers]


def provenance(seed: int) -> list[tuple[str, str]]:
    """The front-page lines every chapter shares: seed, package version and date."""
    from analysis.report import build_date

    return [("seed", str(seed)), ("version", f"boardlab {version()}"), ("date", build_date())]


def version() -> str:
    """The installed boardlab version, for the front page."""
    from importlib.metadata import version as installed

    return installed("boardlab")


def proportion(wins: int, n: int) -> tuple[float, float, float]:
    """A proportion and its 95% Wilson interval."""
    low, high = stats.wilson(wins, n)
    return wins / n, float(low), float(high)


def pct(value: float, low: float, high: float) -> str:
    """``"64.2% (62.7–65.7%)"``; rare events (upper bound under 0.5%) get two decimals."""
    d = 2 if high < 0.005 else 1
    return f"{100 * value:.{d}f}% ({100 * low:.{d}f}–{100 * high:.{d}f}%)"
