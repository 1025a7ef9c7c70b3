"""Registry of games: id -> :class:`GameSpec`, imported lazily so that listing games stays cheap."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from engines.core import did_you_mean

_GAMES: dict[str, str] = {
    "cargolino": "engines.cargolino",
    "paleolino": "engines.paleolino",
    "panots": "engines.panots",
    "pantolino": "engines.pantolino",
    "patolli": "engines.patolli",
}


@dataclass(frozen=True, slots=True)
class GameSpec:
    """A registered game; :attr:`module` imports it on first use."""

    id: str
    module_path: str

    @property
    def module(self) -> ModuleType:
        """The game package (INFO, Params, POLICIES, VARIANTS, METRICS, play, reference)."""
        return importlib.import_module(self.module_path)


def available_games() -> list[str]:
    """Ids of every registered game, sorted."""
    return sorted(_GAMES)


def get_game(game_id: str) -> GameSpec:
    """Return the spec of ``game_id``; an unknown id raises ``ValueError`` with a suggestion."""
    if game_id not in _GAMES:
        raise ValueError(f"unknown game '{game_id}'{did_you_mean(game_id, available_games())}")
    return GameSpec(game_id, _GAMES[game_id])
