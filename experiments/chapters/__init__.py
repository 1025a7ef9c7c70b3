"""Report chapters: per game, the questions a designer asks and the runs that answer them.

A chapter module exposes ``plan(n_games, seed, chunk=None) -> Plan`` (every arm it will play, in chunks of its
own size unless told, so the command can size its progress bar) and ``build(n_games, precision, seed, play) ->
Chapter`` (gets its arms' results from ``play``, played for it or looked up among a whole book's, and writes the
pages); a chapter is a list of questions (:class:`~experiments.chapters.common.Question`: label, arms, answer). A
registered game has one when this package has a module named by its id (:func:`chapter_games`; ``balance``,
``skill``, ``by_skill``, ``choices``, ``decisions``, ``handicap``, ``generic``, ``crossplay`` and ``common`` are the
questions and helpers chapters share (``crossplay``: a strong-play figure checked under a second strong player;
the front page's lines come from ``common.front_page``, numbers are worded by :mod:`analysis.wording`);
``simulate report GAME`` writes ``reports/GAME.pdf`` from it, or from the generic chapter
(:mod:`experiments.chapters.generic`) for a game without one. ``simulate report all`` builds the games with a
chapter of their own.
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

    def plan(self, n: int, seed: int, chunk: int | None = None) -> Any:
        """Every arm the chapter plays (a :class:`~experiments.chapters.common.Plan`)."""
        ...

    def build(self, n_games: int, precision: float | None, seed: int, play: Any = None) -> Chapter:
        """Play (or look up) the arms and write the pages."""
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
