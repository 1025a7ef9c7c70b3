"""What every chapter shares: its questions, the plan of their arms, the front page, rates (worded: analysis/wording).

A chapter is a list of :class:`Question` objects: each names the arms that answer it and turns their results into
its page. :func:`plan_of` collects the arms of every question (an arm two questions need is one arm, played
once) and :func:`answer` hands each question the results, so a question's arms and its page live side by side.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from boardlab.analysis import stats
from boardlab.experiments.run import RunResult, RunSpec, local_runner
from boardlab.experiments.spec import Arm
from boardlab.experiments.study import player

Play = Callable[[Sequence[Arm]], list[RunResult]]
"""How a chapter gets its arms' results: played for it, or looked up among those a whole book played once."""


@dataclass
class Plan:
    """The arms of a chapter, by question; labels are unique keys (adding a label twice keeps the first)."""

    game: str
    arms: list[Arm] = field(default_factory=list)

    @property
    def chunk(self) -> int:
        """Games per chunk of the plan's first arm: the chapter's chunk where its arms share one (an arm may cap it)."""
        return self.arms[0].spec.chunk_size

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


Arms = Callable[[Plan, int, int, int], None]
"""``arms(plan, n, seed, chunk)``: add a question's arms (``n`` games each unless the question says) to ``plan``."""
Answer = Callable[[dict[str, RunResult]], tuple[Any, ...]]
"""``answer(results)``: the question's page and headline ``(page, headline, ...)`` from the results by arm label."""


@dataclass(frozen=True)
class Question:
    """One question of a chapter: its short label, the arms that answer it and how their results become its page."""

    label: str
    arms: Arms
    answer: Answer


def plan_of(game: str, questions: Sequence[Question], n: int, seed: int, chunk: int) -> Plan:
    """Every arm the questions play, in question order; a label two questions add is one arm."""
    plan = Plan(game)
    for question in questions:
        question.arms(plan, n, seed, chunk)
    return plan


def answer(plan: Plan, questions: Sequence[Question], play: Play) -> PlayedPages:
    """Play ``plan`` (every arm of ``questions``) through ``play`` and let each question write its page."""
    return play_pages(plan, [question.answer for question in questions], play)


@dataclass
class PlayedPages:
    """A chapter's played arms (by label) and what each page maker returned: ``(page, headline, ...)``."""

    results: dict[str, RunResult]
    made: list[tuple[Any, ...]]

    def column(self, i: int) -> list[Any]:
        """Item ``i`` of every maker's tuple, in page order (``None`` where a shared question's maker has fewer)."""
        return [m[i] if i < len(m) else None for m in self.made]

    @property
    def pages(self) -> list[Any]:
        """The pages, in order."""
        return self.column(0)

    @property
    def headlines(self) -> list[str]:
        """One headline per page."""
        return self.column(1)

    @property
    def games(self) -> int:
        """Games played over every arm."""
        return sum(r.summary.n_games for r in self.results.values())


def play_pages(
    plan: Plan, makers: Sequence[Callable[[dict[str, RunResult]], tuple[Any, ...]]], play: Play
) -> PlayedPages:
    """Get ``plan``'s results from ``play`` and call each page maker on them by arm label."""
    played = play(plan.arms)
    results = dict(zip((a.label for a in plan.arms), played, strict=True))
    return PlayedPages(results, [make(results) for make in makers])


def local_play(precision: float | None = None) -> Play:
    """Arms played in this process, kept in memory (to ``precision`` when given): a chapter's default."""
    return player(local_runner(), precision)


def knobs_line(params: Any, describe: Callable[[str, Any], str] = lambda _name, value: str(value)) -> str:
    """The front page's ``knob=value`` list of ``params``, each value worded by ``describe(name, value)``."""
    return ", ".join(f"{k}={describe(k, v)}" for k, v in params.as_dict().items())


@dataclass(frozen=True)
class Front:
    """A chapter's own front-page lines, each ``None`` where the chapter does not give it.

    ``closing``: the chapter's headlines or answers, ``(label, text)``.
    """

    game: str
    knobs: str
    policies: str
    games: str
    sources: str | None = None
    arms: str | None = None
    reading: str | None = None
    closing: tuple[str, str] | None = None


def front_page(seed: int, front: Front) -> list[tuple[str, str]]:
    """A chapter's front-page lines, in the book's one order.

    The game, where its rules come from (``sources``), its knobs, the policies, the arms, the games played, then
    seed, version and date (:func:`provenance`), how to read the numbers and a closing line. A line not given is
    left out.
    """
    f = front
    lines = [("game", f.game), ("sources", f.sources), ("knobs", f.knobs), ("policies", f.policies), ("arms", f.arms)]
    shown = [(label, text) for label, text in [*lines, ("games", f.games)] if text is not None]
    ending = [("reading", f.reading)] if f.reading is not None else []
    return [*shown, *provenance(seed), *ending, *([f.closing] if f.closing is not None else [])]


def provenance(seed: int) -> list[tuple[str, str]]:
    """The front-page lines every chapter shares: seed, package version and date."""
    from boardlab.analysis.book import build_date

    return [("seed", str(seed)), ("version", f"boardlab {version()}"), ("date", build_date())]


def version() -> str:
    """The installed boardlab version, for the front page."""
    from importlib.metadata import version as installed

    return installed("boardlab")


proportion = stats.proportion  #: a proportion and its 95% Wilson interval (the chapters' name for it)


def seat_share(s: Any, seat: int = 0) -> tuple[float, float, float]:
    """The share of an arm's games (its summary ``s``) won by ``seat`` alone, with its 95% interval."""
    return proportion(int(s.wins[seat]), s.n_games)


def fair_share(s: Any) -> float:
    """A seat's fair share of an arm's games: the games won alone (not shared), divided by the players."""
    return float(s.wins.sum()) / s.n_games / s.players
