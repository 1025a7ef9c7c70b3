"""Registry of games: id -> :class:`GameSpec`, imported lazily so that listing games stays cheap.

The built-in games are named here; an installed package adds its own through the entry point group
:data:`GROUP` (``[project.entry-points."boardlab.games"]`` in its ``pyproject.toml``: ``my-game = "my_package"``,
the id and the game package's import path). The registry reads installed metadata, so every process of a run
(loky workers, Dask workers on the same environment) sees the same games. An entry point that would shadow a
built-in game or another entry point, or whose id or path is malformed, is left out with one line on stderr; one
whose package cannot be imported, or declares another id, raises a one-line ``ValueError`` when it is used.
"""

from __future__ import annotations

import functools
import importlib
import re
import sys
from dataclasses import dataclass
from importlib.metadata import entry_points
from types import ModuleType

from engines.core import did_you_mean

GROUP = "boardlab.games"
"""The entry point group through which an installed package registers a game."""

BUILT_IN: dict[str, str] = {
    "cargolino": "engines.cargolino",
    "paleolino": "engines.paleolino",
    "panots": "engines.panots",
    "pantolino": "engines.pantolino",
    "patolli": "engines.patolli",
}

GAME_ID = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
MODULE_PATH = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


@dataclass(frozen=True, slots=True)
class GameSpec:
    """A registered game; :attr:`module` imports it on first use."""

    id: str
    module_path: str

    @property
    def module(self) -> ModuleType:
        """The game package (INFO, Params, POLICIES, VARIANTS, METRICS, play, reference).

        Raises:
            ValueError: (one line) for a game from an entry point that cannot be imported or declares another id.
        """
        if self.id in BUILT_IN:
            return importlib.import_module(self.module_path)
        where = f"game '{self.id}' (entry point {self.module_path} in {GROUP})"
        try:
            module = importlib.import_module(self.module_path)
        except Exception as err:  # an outside package's import may fail in any way; say so in one line
            raise ValueError(f"{where} cannot be imported: {type(err).__name__}: {err}") from None
        declared = getattr(getattr(module, "INFO", None), "id", None)
        if declared != self.id:
            raise ValueError(f"{where} declares INFO.id {declared!r}, not {self.id!r}")
        return module


def entry_point_problem(name: str, value: str, taken: dict[str, str]) -> str:
    """Why the entry point ``name = value`` cannot register a game beside ``taken`` (empty: it can)."""
    if name in BUILT_IN:
        return f"'{name}' is a built-in game"
    if name in taken:
        return f"'{name}' is already registered by {taken[name]}"
    if not GAME_ID.fullmatch(name):
        return "a game id is lower-case letters, digits and single hyphens, starting with a letter"
    if not MODULE_PATH.fullmatch(value):
        return "the value must be the game package's import path (no ':attribute')"
    return ""


@functools.cache
def registry() -> dict[str, str]:
    """Every game id -> its package's import path: the built-in games, then the installed entry points."""
    games = dict(BUILT_IN)
    for point in sorted(entry_points(group=GROUP), key=lambda p: (p.name, p.value)):
        if problem := entry_point_problem(point.name, point.value, games):
            sys.stderr.write(f"boardlab: ignoring entry point '{point.name} = {point.value}' in {GROUP}: {problem}\n")
            continue
        games[point.name] = point.value
    return games


def available_games() -> list[str]:
    """Ids of every registered game, sorted."""
    return sorted(registry())


def get_game(game_id: str) -> GameSpec:
    """Return the spec of ``game_id``; an unknown id raises ``ValueError`` with a suggestion."""
    games = registry()
    if game_id not in games:
        raise ValueError(f"unknown game '{game_id}'{did_you_mean(game_id, available_games())}")
    return GameSpec(game_id, games[game_id])
