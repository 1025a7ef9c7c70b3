"""Designers' own named variants: a TOML file of knob settings, usable wherever a variant name is.

```toml
# one table per game and variant name: [GAME.NAME], its knobs as TOML values
[pantolino.fair-start]
token_values = [2, 3, 5]
joker_faces = 1

[patolli.short-track]
track_length = 40
```

``--variants-file FILE`` (or a ``variants.toml`` beside a study file) adds these names to the game's own
(``simulate list GAME``): a run, a tournament, a study arm or a tuning run can then say ``--variant NAME``.
A name may not shadow one of the game's own variants and must be a plain name (no
path separator). ``simulate tune`` writes its winner in this format.
Every setting is checked against the game's knobs when the file is read; a bad file is refused with one line
naming the file, the table and the problem.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from boardlab.engines import available_games, core, get_game
from boardlab.experiments import validate

FILE_NAME = "variants.toml"
"""The name of a variants file found beside a study file or written by a tuning run."""

_loaded: dict[str, dict[str, dict[str, str]]] = {}  # game -> name -> knob settings (text), from files read


class VariantsError(ValueError):
    """A variants file that cannot be used (one line, naming the file)."""


def as_text(value: Any) -> str:
    """A TOML value as the text ``--set`` takes: ``true``/``false``, numbers, strings, lists as ``a,b,c``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(as_text(v) for v in value)
    return str(value)


def read(path: Path) -> dict[str, dict[str, dict[str, str]]]:
    """The variants in ``path`` (game -> name -> knob settings as text), each checked against its game."""
    try:
        data = validate.load_toml(path, "variants file")
    except ValueError as err:
        raise VariantsError(str(err)) from None
    out: dict[str, dict[str, dict[str, str]]] = {}
    for game, table in data.items():
        if game not in available_games():
            raise VariantsError(f"{path}: unknown game '{game}'{core.did_you_mean(game, available_games())}")
        if not isinstance(table, dict) or not all(isinstance(v, dict) for v in table.values()):
            raise VariantsError(f"{path}: [{game}] must hold one table per variant, e.g. [{game}.my-variant]")
        module = get_game(game).module
        for name, knobs in table.items():
            try:
                check_name(game, name)
            except ValueError as err:
                raise VariantsError(f"{path}: [{game}.{name}]: {err}") from None
            if any(isinstance(v, dict) for v in knobs.values()):
                raise VariantsError(f"{path}: [{game}.{name}]: a knob's value must be a number, text or list")
            settings = {key.replace("-", "_"): as_text(value) for key, value in knobs.items()}
            try:
                module.Params().with_strings(settings)
            except ValueError as err:
                raise VariantsError(f"{path}: [{game}.{name}]: {err}") from None
            out.setdefault(game, {})[name] = settings
    return out


def check_name(game: str, name: str) -> str:
    """``name`` if it can name a designer's variant of ``game``: a plain name, not one of the game's own."""
    validate.check_name(name, "variant name")
    if name in get_game(game).module.VARIANTS:
        raise ValueError(f"variant name '{name}' shadows {game}'s own variant; rename it")
    return name


def check_key(name: str, what: str = "--name") -> str:
    """``name`` if it is a plain TOML key (letters, digits, ``-`` and ``_``): what a tuning run names its winner."""
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,100}", name or ""):
        raise ValueError(f"{what} {name!r} must be 1..100 letters, digits, '-' or '_' (it names a variant in a file)")
    return name


def load(path: Path) -> dict[str, dict[str, dict[str, str]]]:
    """Read ``path`` and make its variants known to this process (see :func:`settings_of`); returns them."""
    found = read(path)
    for game, variants in found.items():
        _loaded.setdefault(game, {}).update(variants)
    return found


def settings_of(game: str, name: str) -> dict[str, str] | None:
    """The knob settings of variant ``name`` of ``game``: the game's own, then those loaded from files."""
    module = get_game(game).module
    if name in module.VARIANTS:
        return dict(module.VARIANTS[name])
    return _loaded.get(game, {}).get(name)


def names(game: str) -> list[str]:
    """Every variant name of ``game``: its own, then those loaded from files."""
    return [*get_game(game).module.VARIANTS, *_loaded.get(game, {})]


def loaded(game: str) -> dict[str, dict[str, str]]:
    """The variants of ``game`` loaded from files (name -> settings)."""
    return dict(_loaded.get(game, {}))


def render(game: str, variants: Mapping[str, Mapping[str, str]], comments: Mapping[str, str] | None = None) -> str:
    """Variants of ``game`` as the TOML of a variants file (values written as their ``--set`` text, quoted).

    ``comments`` (name -> text) go on a comment line above each table.
    """
    lines = []
    for name, settings in variants.items():
        if comments and name in comments:
            lines += [f"# {line}" for line in comments[name].splitlines()]
        lines.append(f"[{game}.{_quoted(name)}]")
        lines += [f"{key} = {_quoted(text)}" for key, text in settings.items()]
        lines.append("")
    return "\n".join(lines)


def _quoted(text: str) -> str:
    """``text`` as a TOML basic string (JSON's escapes, which TOML shares, non-ASCII kept as it is)."""
    return json.dumps(text, ensure_ascii=False)
