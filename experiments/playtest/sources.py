"""Where a reviewed game comes from: a saved game's file, or game ``K`` of a run replayed from its seed."""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np

from boardlab.engines import core
from boardlab.experiments import validate
from boardlab.experiments.playtest import record as records
from boardlab.experiments.playtest import table
from boardlab.experiments.playtest.setup import HUMAN, Setup
from boardlab.experiments.run.spec import MAX_CHUNK_GAMES, MAX_GAMES


class _End(Exception):
    """A saved game that is not over ends where its decisions end."""


def _stop(*_: object) -> int:
    raise _End


def from_record(path: Path) -> tuple[Setup, list[table.Observed], Path]:
    """The saved game's setup, every decision replayed, and the default path of its chart."""
    saved = records.load(path)
    seen: list[table.Observed] = []
    with contextlib.suppress(_End):
        table.play(saved.setup, saved.decisions, _stop, watch=seen.append)
    return saved.setup, seen, path.with_name(path.stem + "-review.png")


def from_run(
    game: str,
    seats: tuple[str, ...],
    seed: int,
    settings: tuple[tuple[str, str], ...],
    variant: str | None,
    chunk_size: int | None,
    number: int,
) -> tuple[Setup, list[table.Observed]]:
    """Game ``number`` of the run ``simulate GAME --seats ... --seed ...`` (chunk size as the run's): its decisions.

    Chunk ``i`` of a run draws from ``SeedSequence(seed, spawn_key=(i,))`` (``experiments.run.seeds.chunk_rng``) and
    plays its games in one batch, whose chance is drawn for all of its games at once; so the whole chunk is
    played again, as the run played it, and only the game's own row is watched.
    """
    if HUMAN in seats:
        raise ValueError("a run's seats are policies; a game with a person is reviewed from its saved file")
    setup = Setup(game, seats, seed, settings, variant)
    module = setup.module
    size = core.default_chunk(module.INFO, module.POLICIES, seats) if chunk_size is None else chunk_size
    validate.whole(size, "chunk_size", 1, MAX_CHUNK_GAMES)
    validate.whole(number, "game", 0, MAX_GAMES - 1)
    chunk, row = divmod(number, size)
    seen = table.observe_run_game(setup, np.random.SeedSequence(seed, spawn_key=(chunk,)), size, row)
    return setup, seen
