"""Checks on a game package from outside (an entry point): what it must expose before any command uses it.

A package whose ``INFO`` lacks a field, or has one of the wrong type, or that lacks ``Params``, ``POLICIES``,
``VARIANTS``, ``METRICS`` or ``play``, is refused in one line naming what is missing, instead of failing later
with an ``AttributeError`` deep inside a command.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from boardlab.engines.core import GameInfo

FIELD_TYPES: dict[str, type] = {"str": str, "int": int, "bool": bool}


def interface_problem(module: ModuleType, game_id: str) -> str:
    """What is wrong with ``module`` as the game ``game_id`` ("" when nothing is)."""
    info = getattr(module, "INFO", None)
    if info is None:
        return "it has no INFO"
    for field in dataclasses.fields(GameInfo):
        if not hasattr(info, field.name):
            return f"its INFO has no field {field.name!r}"
        if problem := _wrong_type(getattr(info, field.name), str(field.type), f"INFO.{field.name}"):
            return problem
    if info.id != game_id:
        return f"it declares INFO.id {info.id!r}, not {game_id!r}"
    if not 1 <= info.min_players <= info.max_players or info.turn_cap < 1 or info.chunk_games < 1:
        return "its INFO has players, turn_cap or chunk_games out of range"
    for name, kind in (("POLICIES", Mapping), ("VARIANTS", Mapping), ("METRICS", Mapping)):
        if not isinstance(getattr(module, name, None), kind):
            return f"it has no {name} mapping"
    for name in ("Params", "play"):
        if not callable(getattr(module, name, None)):
            return f"it has no {name}"
    return ""


def _wrong_type(value: Any, declared: str, field: str) -> str:
    wanted = FIELD_TYPES[declared]
    if isinstance(value, wanted) and (wanted is bool or not isinstance(value, bool)):
        return ""
    kind = {str: "text", int: "a whole number", bool: "True or False"}[wanted]
    return f"its {field}={value!r} must be {kind}"
