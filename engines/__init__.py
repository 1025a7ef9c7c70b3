"""Registry of games: id -> :class:`GameSpec`, imported lazily so that listing games stays cheap.

The built-in games are named here; an installed package adds its own through the entry point group
:data:`GROUP` (``[project.entry-points."boardlab.games"]`` in its ``pyproject.toml``: ``my-game = "my_package"``,
the id and the game package's import path). The registry reads installed metadata, so every process of a run
(loky workers, Dask workers on the same environment) sees the same games. An entry point that would shadow a
built-in game or another entry point, or whose id or path is malformed, is left out (:func:`ignored_entry_points`
says why; ``simulate`` prints it once per command). A package that fails to import in any way (an exception,
``sys.exit``, any ``BaseException`` but ``KeyboardInterrupt``) or does not expose what a game must
(:mod:`engines.plugins`) breaks only the commands that name it: using it raises a one-line ``ValueError``, and
:func:`available_games` leaves it out, so a caller that visits every game is safe.
"""

from __future__ import annotations

import functools
import importlib
import re
from dataclasses import dataclass
from importlib.metadata import entry_points
from types import ModuleType

from boardlab.engines.core import did_you_mean
from boardlab.engines.plugins import interface_problem

GROUP = "boardlab.games"
"""The entry point group through which an installed package registers a game."""

BUILT_IN: dict[str, str] = {
    "cargolino": "boardlab.engines.cargolino",
    "paleolino": "boardlab.engines.paleolino",
    "panots": "boardlab.engines.panots",
    "pantolino": "boardlab.engines.pantolino",
    "patolli": "boardlab.engines.patolli",
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
            ValueError: (one line) for a game from an entry point that cannot be imported or is not a game.
        """
        if self.id in BUILT_IN:
            return importlib.import_module(self.module_path)
        if (problem := _broken.get(self.id)) is None:
            problem = _broken[self.id] = _outside_problem(self.id, self.module_path)
        if problem:
            raise ValueError(f"game '{self.id}' (entry point {self.module_path} in {GROUP}) {problem}")
        return importlib.import_module(self.module_path)


_broken: dict[str, str] = {}  # outside game id -> why it cannot be used ("" when it can), found once per process


def _outside_problem(game_id: str, module_path: str) -> str:
    """Why the outside game package cannot be used ("" when it can), whatever its import does."""
    try:
        module = importlib.import_module(module_path)
    except KeyboardInterrupt:
        raise
    except SystemExit as err:  # a package must not end the process (a scheduler would count it a success)
        return f"cannot be imported: it called sys.exit({err.code!r})"
    except BaseException as err:  # an outside package's import may fail in any way; say so in one line
        text = " ".join(str(err).split())[:200]
        return f"cannot be imported: {type(err).__name__}: {text}".rstrip(": ")
    if problem := interface_problem(module, game_id):
        return f"is not a usable game: {problem}"
    return ""


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


def registry() -> dict[str, str]:
    """Every game id -> its package's import path: the built-in games, then the installed entry points."""
    return _scan()[0]


def ignored_entry_points() -> list[str]:
    """One line for each entry point left out of the registry, saying why (the CLI prints them once a command)."""
    return list(_scan()[1])


@functools.cache
def _scan() -> tuple[dict[str, str], tuple[str, ...]]:
    games, ignored = dict(BUILT_IN), []
    for point in sorted(entry_points(group=GROUP), key=lambda p: (p.name, p.value)):
        if problem := entry_point_problem(point.name, point.value, games):
            ignored.append(f"boardlab: ignoring entry point '{point.name} = {point.value}' in {GROUP}: {problem}")
            continue
        games[point.name] = point.value
    return games, tuple(ignored)


def registered_games() -> list[str]:
    """Ids of every registered game, sorted, usable or not (read from metadata: nothing is imported)."""
    return sorted(registry())


def available_games() -> list[str]:
    """Ids of every game that can be used, sorted: an outside game that cannot (:func:`unusable`) is left out.

    A caller that visits every game (a figure's colours, a listing) is safe whatever an outside package does;
    the commands that name a broken game say why it cannot be used.
    """
    return [game_id for game_id in registered_games() if not unusable(game_id)]


def unusable(game_id: str) -> str:
    """Why registered game ``game_id`` cannot be used, in one line ("" when it can)."""
    try:
        get_game(game_id).module  # noqa: B018 (importing it is the check)
    except ValueError as err:
        return str(err)
    return ""


def get_game(game_id: str) -> GameSpec:
    """Return the spec of ``game_id``; an unknown id (or one that is not text) raises ``ValueError``."""
    if not isinstance(game_id, str):
        raise ValueError(f"game={game_id!r} must be text (a game's id, e.g. 'pantolino')")
    games = registry()
    if game_id not in games:
        raise ValueError(f"unknown game '{game_id}'{did_you_mean(game_id, registered_games())}")
    return GameSpec(game_id, games[game_id])
