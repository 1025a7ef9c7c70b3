"""Report chapters: per game, the questions a designer asks and the runs that answer them.

A chapter module exposes ``plan(n_games, seed, chunk=None) -> Plan`` (every arm it will play, in chunks of its
own size unless told, so the command can size its progress bar) and ``build(n_games, precision, seed, jobs,
progress) -> Chapter`` (plays them on one pool with :func:`experiments.study.run_arms` and writes the pages).
The games that have one are listed in :data:`CHAPTERS`; ``simulate report GAME`` writes ``reports/GAME.pdf``
from it.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType

from analysis.book import Page
from engines.core import did_you_mean

CHAPTERS = {
    "cargolino": "experiments.chapters.cargolino",
    "paleolino": "experiments.chapters.paleolino",
    "panots": "experiments.chapters.panots",
    "pantolino": "experiments.chapters.pantolino",
    "patolli": "experiments.chapters.patolli",
}


@dataclass
class Chapter:
    """A game's report: what was run (front page lines) and one page per question."""

    heading: str
    front: Sequence[tuple[str, str]]
    pages: Sequence[Page]
    headlines: Sequence[str]


def chapter_module(game: str) -> ModuleType:
    """The chapter of ``game``; a game without one raises ``ValueError``."""
    if game not in CHAPTERS:
        raise ValueError(f"no report chapter for '{game}' yet{did_you_mean(game, list(CHAPTERS))}")
    return importlib.import_module(CHAPTERS[game])
