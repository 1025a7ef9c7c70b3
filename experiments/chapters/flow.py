"""The one report flow: plan a chapter once, play its arms through the runner, answer, write the front page.

A chapter module declares its ``HEADING``, ``questions(n, seed, chunk)`` for its own pages and
``front(done) -> Front`` for its own front-page lines (it reads what was played from ``done``). Here the
standard questions are appended to its own, in one order: the skill ladder, balance by skill, balance, the
handicap, restricted play and the decisions; their budgets and the handicap come from the game's record
(``RECORD.pages``, ``RECORD.handicap``), and a chapter's question with a standard question's label takes that
one's place. A chapter whose arms play fewer games than the report's ``n`` declares ``arm_games(n)`` (and
``MAX_CHUNK``, its chunks' cap); otherwise every arm plays ``n`` in the game's chunks.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from boardlab.engines import get_game
from boardlab.engines.record import Pages, record_of
from boardlab.engines.restrict import default_strong
from boardlab.experiments import restrict as rp
from boardlab.experiments.chapters import (
    Chapter,
    ChapterModule,
    balance,
    by_skill,
    chapter_module,
    choices,
    decisions,
    handicap,
    skill,
)
from boardlab.experiments.chapters.common import (
    Front,
    Plan,
    Play,
    PlayedPages,
    Question,
    front_page,
    plan_of,
    play_pages,
)
from boardlab.experiments.run import Executor, RunResult
from boardlab.experiments.spec import Arm, arm_chunk

SEARCH_SHARE = 40  # restricted play by a searching strong player: 250 games per seating in a default report


@dataclass
class Planned:
    """A chapter's plan, made once: its module, sizes, every question (standard ones appended) and their arms."""

    game: str
    module: ChapterModule
    n_games: int  # the report's games per arm
    seed: int
    games: int  # the chapter's games per arm (``arm_games(n_games)``)
    chunk: int
    questions: list[Question]
    plan: Plan


@dataclass
class Done:
    """A chapter answered: its plan, the precision asked for and what its questions made of the results."""

    planned: Planned
    precision: float | None
    played: PlayedPages

    @property
    def arms(self) -> int:
        """How many arms the chapter played."""
        return len(self.planned.plan.arms)

    def games_line(self, per_arm: str) -> str:
        """The usual games line: games in arms, each to the precision or ``per_arm``, chunks; common random numbers."""
        sizes = f"each to a 95% half-width of {self.precision:.2%}" if self.precision else per_arm
        return (
            f"{self.played.games:,} in {self.arms} arms ({sizes}, chunks of {self.planned.chunk:,}); common random "
            "numbers across arms"
        )


def prepare(
    game: str,
    module: ChapterModule,
    n_games: int,
    seed: int,
    executor: Executor | None = None,
    chunk: int | None = None,
) -> Planned:
    """Build the chapter's questions once (the decisions page's games go to ``executor``) and every arm they play."""
    games = module.arm_games(n_games) if hasattr(module, "arm_games") else n_games
    if chunk is None:
        cap = getattr(module, "MAX_CHUNK", None)
        chunk = arm_chunk(get_game(game).module.INFO, games) if cap is None else max(1, min(cap, games))
    own = list(module.questions(games, seed, chunk))
    mine = {q.label: q for q in own}
    standard = [mine.get(q.label, q) for q in standard_questions(game, games, seed, chunk, executor)]
    labels = {q.label for q in standard}
    questions = [q for q in own if q.label not in labels] + standard
    return Planned(game, module, n_games, seed, games, chunk, questions, plan_of(game, questions, games, seed, chunk))


def finish(planned: Planned, precision: float | None, play: Play) -> Chapter:
    """The chapter's pages from ``play`` (its arms' results) and its front page."""
    played = play_pages(planned.plan, [q.answer for q in planned.questions], play)
    done = Done(planned, precision, played)
    lines: Front = planned.module.front(done)
    return Chapter(planned.module.HEADING, front_page(planned.seed, lines), played.pages, played.headlines)


def chapter(game: str, n_games: int, precision: float | None, seed: int, play: Play) -> Chapter:
    """Plan and answer ``game``'s chapter in one go (``play`` plays or looks up its arms)."""
    return finish(prepare(game, chapter_module(game), n_games, seed), precision, play)


def pages(game: str) -> Pages:
    """The game's budgets for the standard pages (its record's)."""
    return record_of(get_game(game).module).pages


def standard_questions(game: str, n: int, seed: int, chunk: int, executor: Executor | None = None) -> list[Question]:
    """The questions every report asks, where the game declares what they need, budgets from its record."""
    budgets, strong = pages(game), strong_player(game)
    declared = declared_handicap(game)
    return [
        skill.question(game),
        by_skill.question(game, budgets.by_skill_share),
        balance.question(game, budgets.balance_share),
        *([handicap.question(game, declared)] if declared else []),
        *(choices.questions(game, n, seed, chunk, choices_share(game), strong) if restricts(game) else []),
        *(
            [decisions.question(game, n, seed, budgets.decisions_games, budgets.decisions_playouts, strong, executor)]
            if explains(game)
            else []
        ),
    ]


def declared_handicap(game: str) -> Any:
    """The handicap the game's record declares, if it plays 2-player games."""
    module = get_game(game).module
    declared = record_of(module).handicap
    info = module.INFO
    return declared if declared and info.min_players <= handicap.PLAYERS <= info.max_players else None


def strong_player(game: str) -> str | None:
    """The game's strong player (``learned``, else the expert: ``engines.restrict.default_strong``), if any.

    Spelled once for every page (:func:`spelled`): the expert as ``expert:64``, as the skill ladder names it.
    """
    policies = get_game(game).module.POLICIES
    try:
        return spelled(policies, default_strong(policies))
    except ValueError:
        return None


def spelled(policies: Any, name: str) -> str:
    """``name`` with its default argument where it takes one (``expert`` -> ``expert:64``): one player, one name.

    The skill ladder names the expert by its budget; a page naming the same player ``expert`` would list it twice.
    """
    policy = policies[name.split(":")[0]]
    if ":" in name or policy.parse_arg is None or not isinstance(default := policy.parse_arg(None), int):
        return name
    return f"{name}:{default}"


def restricts(game: str) -> bool:
    """Whether the game declares restrictions its strong player takes (the choices and dominant pages)."""
    module = get_game(game).module
    strong = module.POLICIES.get((strong_player(game) or "").split(":")[0])
    return bool(record_of(module).restrictions) and strong is not None and strong.restrict is not None


def explains(game: str) -> bool:
    """Whether the game declares what the decisions page needs (words, decision points, a strong player)."""
    module = get_game(game).module
    declared = all(importlib.util.find_spec(f"{module.__name__}.{part}") for part in ("decisions", "words"))
    return declared and strong_player(game) is not None and module.INFO.min_players <= decisions.PLAYERS


def choices_share(game: str) -> int:
    """1/share of the chapter's games per restricted seating: the record's, else fewer where the strong player searches.

    ``learned`` plays thousands of games a second; the expert (a game without a learned model, Swine) plays
    tens: its restricted play gets :data:`SEARCH_SHARE` times fewer games.
    """
    declared = pages(game).choices_share
    if declared is not None:
        return declared
    return choices.SHARE * (SEARCH_SHARE if strong_player(game) != rp.STRONG else 1)


def results_by_spec(arms: Sequence[Arm], results: Sequence[RunResult]) -> Callable[[Sequence[Arm]], list[RunResult]]:
    """A ``play`` that looks up arms among ``arms`` already played (``results``, in their order) by their spec."""
    by_spec = {arm.spec: result for arm, result in zip(arms, results, strict=True)}

    def look_up(wanted: Sequence[Arm]) -> list[RunResult]:
        return [by_spec[arm.spec] for arm in wanted]

    return look_up


def with_page(question: Question, change: Callable[[Any], Any]) -> Question:
    """``question`` with ``change`` applied to the page it makes (the rest of its answer as it was)."""

    def answered(results: dict[str, RunResult]) -> tuple[Any, ...]:
        page, *rest = question.answer(results)
        return (change(page), *rest)

    return replace(question, answer=answered)
