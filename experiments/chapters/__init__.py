"""Report chapters: per game, the questions a designer asks and the runs that answer them.

A chapter module declares its ``HEADING``, ``questions(n, seed, chunk)`` (its own pages: a list of
:class:`~experiments.chapters.common.Question`, each a label, the arms that answer it and how their results
become its page) and ``front(done)`` (its own front-page lines, :class:`~experiments.chapters.common.Front`, from
what was played). The shared flow (:mod:`experiments.chapters.flow`) plans a chapter once, appends the standard
questions (``skill``, ``by_skill``, ``balance``, ``handicap``, ``choices``, ``decisions``: budgets and handicap from
the game's record), plays every arm once through the report's runner, answers and writes the front page. A
registered game has a chapter when this package has a module named by its id (:func:`chapter_games`), else the
generic chapter (:mod:`experiments.chapters.generic`); ``crossplay`` checks a strong-play figure under a second
strong player, ``common`` holds what the questions share and numbers are worded by :mod:`analysis.wording`.
``simulate report GAME`` writes ``reports/GAME.pdf``; ``simulate report all`` builds the games with a chapter of
their own.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from boardlab.analysis.book import Page
from boardlab.engines import available_games
from boardlab.engines.core import did_you_mean


@dataclass
class Chapter:
    """A game's report: what was run (front page lines) and one page per question."""

    heading: str
    front: Sequence[tuple[str, str]]
    pages: Sequence[Page]
    headlines: Sequence[str]


class ChapterModule(Protocol):
    """What a chapter offers the report: a module of this package, or the generic chapter bound to a game."""

    HEADING: str

    def questions(self, n: int, seed: int, chunk: int) -> list[Any]:
        """The chapter's own questions (:class:`~experiments.chapters.common.Question`), in page order."""
        ...

    def front(self, done: Any) -> Any:
        """Its own front-page lines (a :class:`~experiments.chapters.common.Front`) from the answered chapter."""
        ...


def chapter_module(game: str) -> ChapterModule:
    """The chapter of ``game``: its own module here, else the generic chapter; an unknown game raises ``ValueError``."""
    if game not in available_games():
        raise ValueError(f"unknown game '{game}'{did_you_mean(game, available_games())}")
    if game in chapter_games():
        return importlib.import_module(f"{__name__}.{game}")  # type: ignore[return-value]
    return importlib.import_module(f"{__name__}.generic").chapter(game)


def chapter_games() -> list[str]:
    """The registered games with a chapter module here, sorted."""
    return [game for game in available_games() if importlib.util.find_spec(f"{__name__}.{game}") is not None]
