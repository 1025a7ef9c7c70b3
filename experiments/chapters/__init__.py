"""Report chapters: per game, the questions a designer asks and the runs that answer them.

A chapter module exposes ``plan(n_games, seed, chunk=None) -> Plan`` (every arm it will play, in chunks of its
own size unless told, so the command can size its progress bar) and ``build(n_games, precision, seed, jobs,
progress) -> Chapter`` (plays them on one pool with :func:`experiments.study.run_arms` and writes the pages).
A registered game has one when this package has a module named by its id (:func:`chapter_games`; ``balance``,
``skill`` and ``common`` are the pages and helpers chapters share); ``simulate report GAME`` writes ``reports/GAME.pdf``
from it.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType

from analysis.book import Page
from engines import available_games
from engines.core import did_you_mean


@dataclass
class Chapter:
    """A game's report: what was run (front page lines) and one page per question."""

    heading: str
    front: Sequence[tuple[str, str]]
    pages: Sequence[Page]
    headlines: Sequence[str]


def chapter_module(game: str) -> ModuleType:
    """The chapter of ``game``; a game without one raises ``ValueError``."""
    games = chapter_games()
    if game not in games:
        raise ValueError(f"no report chapter for '{game}' yet{did_you_mean(game, games)}")
    return importlib.import_module(f"{__name__}.{game}")


def chapter_games() -> list[str]:
    """The registered games with a chapter module here, sorted."""
    return [game for game in available_games() if importlib.util.find_spec(f"{__name__}.{game}") is not None]
