"""The checks every command's inputs go through, before any pool, process or folder: files, names, sizes, types.

The CLI, study and variants files and the Python API call the same functions; each raises ``ValueError`` with
one line naming the input (``simulate`` prints it and exits with code 2). Limits:

- a file read as input (study, variants, saved game) is a regular file of at most :data:`MAX_FILE_BYTES`, UTF-8
  text, nested at most :data:`MAX_DEPTH` tables or lists deep;
- a name that becomes part of a path or a variant (a study's name, a variant's, ``tune --name``) is
  :func:`check_name`'s;
- a command plays at most :data:`MAX_ARMS` arms (study arms, tournament or ladder seatings, sweep points), at
  most :data:`MAX_TOTAL_GAMES` games and :data:`MAX_TOTAL_CHUNKS` chunks in all.
"""

from __future__ import annotations

import json
import stat
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

MAX_FILE_BYTES = 1 << 20
MAX_DEPTH = 32
MAX_NAME = 100
MAX_ARMS = 10_000
MAX_TOTAL_GAMES = 10**12
MAX_TOTAL_CHUNKS = 1_000_000


def read_text(path: Path | str, what: str) -> str:
    """The text of input file ``path`` (``what`` names it in messages): a regular UTF-8 file, not too large."""
    path = Path(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        raise ValueError(f"{path}: no such {what}") from None
    except OSError as err:
        raise ValueError(f"{path}: cannot read this {what} ({err.strerror or err})") from None
    if stat.S_ISDIR(info.st_mode):
        raise ValueError(f"{path}: a folder, not a {what}")
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{path}: not a regular file (a device, pipe or socket), so not a {what}")
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as err:
        raise ValueError(f"{path}: cannot read this {what} ({err.strerror or err})") from None
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"{path}: larger than the {MAX_FILE_BYTES:,} bytes a {what} may have")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(
            f"{path}: this {what} is not UTF-8 text (byte 0x{data[err.start]:02x} at offset {err.start}); "
            "save it as UTF-8"
        ) from None


def depth(value: Any) -> int:
    """How deeply tables and lists nest in ``value`` (a scalar is 0), without recursion."""
    deepest, todo = 0, [(value, 0)]
    while todo:
        item, level = todo.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, level + 1)
        if deepest > MAX_DEPTH:
            break
        todo.extend((child, level + 1) for child in children)
    return deepest


def _shallow(data: Any, what: str, path: Path | str) -> Any:
    if depth(data) > MAX_DEPTH:
        raise ValueError(f"{path}: this {what} nests more than {MAX_DEPTH} levels deep")
    return data


def load_toml(path: Path | str, what: str) -> dict[str, Any]:
    """Input file ``path`` parsed as TOML, through :func:`read_text` and the depth limit."""
    return _parsed(path, what, tomllib.loads, tomllib.TOMLDecodeError, "TOML")


def load_json(path: Path | str, what: str) -> Any:
    """Input file ``path`` parsed as JSON, through :func:`read_text` and the depth limit."""
    return _parsed(path, what, json.loads, json.JSONDecodeError, "JSON")


def _parsed(path: Path | str, what: str, parse: Any, error: type[Exception], form: str) -> Any:
    text = read_text(path, what)
    try:
        data = parse(text)
    except error as err:
        raise ValueError(f"{path}: this {what} is not valid {form} ({err})") from None
    except RecursionError:
        raise ValueError(f"{path}: this {what} nests more than {MAX_DEPTH} levels deep") from None
    return _shallow(data, what, path)


def check_name(name: Any, what: str) -> str:
    """``name`` if it can name a file or a variant: text of 1..100 characters, no path separator, not ``.``/``..``.

    Also refused: surrounding spaces, a leading ``.`` or ``-``, control characters.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"{what} {name!r} must be a non-empty name")
    problem = None
    if len(name) > MAX_NAME:
        problem = f"is longer than {MAX_NAME} characters"
    elif any(c in name for c in "/\\") or name in (".", ".."):
        problem = "would be a path; use letters, digits, '-', '_' and '.' only"
    elif name != name.strip() or name[0] in ".-" or any(ord(c) < 32 or ord(c) == 127 for c in name):
        problem = "may not start with '.' or '-', have surrounding spaces or control characters"
    if problem:
        raise ValueError(f"{what} {name!r} {problem}")
    return name


def items(text: str, what: str, separator: str = ",") -> list[str]:
    """The stripped items of a ``separator``-separated list (none for blank text).

    An empty item (two separators together, or one at either end) is refused rather than dropped: ``greedy,,random``
    most likely lost a name, and dropping it would change the count.
    """
    if not text.strip():
        return []
    parts = [part.strip() for part in text.split(separator)]
    if "" in parts:
        raise ValueError(f"{what} {text!r} has an empty item; separate the items with single '{separator}'")
    return parts


def whole(value: Any, field: str, low: int = 0, high: int | None = None) -> int:
    """``value`` if it is a whole number (not a bool) in ``low..high``, else ``ValueError`` naming ``field``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{field}={value!r} must be a whole number, not {type(value).__name__}")
    if value < low or (high is not None and value > high):
        allowed = f"{low}..{high:,}" if high is not None else f"at least {low}"
        raise ValueError(f"{field}={value} is out of range; allowed {allowed}")
    return value


def names(value: Any, field: str) -> tuple[str, ...]:
    """``value`` as a tuple if it is a list or tuple of strings, else ``ValueError`` naming ``field``.

    One string is refused, not read letter by letter: ``"greedy,random"`` is not a list of two names.
    """
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{field}={value!r} must be a list of names, not {type(value).__name__}")
    return tuple(value)


def pairs(value: Any, field: str) -> tuple[tuple[str, str], ...]:
    """``value`` as a tuple of ``(name, value)`` pairs of text (a list or tuple of them), else ``ValueError``."""
    if not isinstance(value, list | tuple) or not all(
        isinstance(p, tuple | list) and len(p) == 2 and all(isinstance(v, str) for v in p) for p in value
    ):
        raise ValueError(f"{field}={value!r} must be a tuple of (knob, value) pairs of text")
    return tuple((p[0], p[1]) for p in value)


def text(value: Any, field: str) -> str:
    """``value`` if it is a string, else ``ValueError`` naming ``field``."""
    if not isinstance(value, str):
        raise ValueError(f"{field}={value!r} must be text, not {type(value).__name__}")
    return value


def precision(value: Any, field: str = "precision") -> float | None:
    """``value`` if it is None or a number strictly between 0 and 0.5 (a 95% half-width of win rates)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 0.5:
        raise ValueError(f"{field}={value!r} must be a number between 0 and 0.5 (e.g. 0.002)")
    return float(value)


def check_arms(count: int, what: str) -> None:
    """Refuse a command of more than :data:`MAX_ARMS` arms (checked before they are built)."""
    if count > MAX_ARMS:
        raise ValueError(f"{what} has {count:,} arms; allowed at most {MAX_ARMS:,}")


def check_sizes(arms: Iterable[tuple[int, int]], what: str) -> None:
    """Refuse a command of too many arms, games or chunks in all; ``arms`` gives each arm's (games, chunks)."""
    count = games = chunks = 0
    for arm_games, arm_chunks in arms:
        count, games, chunks = count + 1, games + arm_games, chunks + arm_chunks
    check_arms(count, what)
    if games > MAX_TOTAL_GAMES:
        raise ValueError(f"{what} plays {games:,} games in all; allowed at most {MAX_TOTAL_GAMES:.0e}")
    if chunks > MAX_TOTAL_CHUNKS:
        raise ValueError(
            f"{what} plays {chunks:,} chunks in all; allowed at most {MAX_TOTAL_CHUNKS:,} (fewer games or arms)"
        )
