"""A played game as a small JSON file: enough to replay it exactly (game, version, knobs, seats, seed, moves).

Every decision of every seat is kept, in order, as ``[seat, candidate]``; replaying the setup from its seed and
feeding the same candidates gives the same game, so a record is resumed, taken back or reviewed by replaying it.
"""

from __future__ import annotations

import contextlib
import json
import math
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardlab.analysis.files import atomic_write
from boardlab.experiments import validate
from boardlab.experiments.playtest.setup import Setup

FORMAT = 1  #: bump when the file's layout changes
MAX_MOVE = 2**31  #: no decision of any game has this many candidates
STOPS = (signal.SIGINT, signal.SIGTERM)


class RecordError(ValueError):
    """A record that cannot be used: missing, not JSON, malformed, or of another game version."""


@dataclass
class SavedGame:
    """A game in progress or over; ``decisions`` are ``(seat, candidate)`` pairs in the order they were made."""

    setup: Setup
    decisions: list[tuple[int, int]] = field(default_factory=list)
    scores: list[float] | None = None  #: each seat's final score, once the game is over

    @property
    def finished(self) -> bool:
        """Whether the game has ended."""
        return self.scores is not None

    def as_json(self) -> dict[str, Any]:
        """The record as a JSON object."""
        s = self.setup
        return {
            "format": FORMAT,
            "game": s.game,
            "version": s.module.INFO.version,
            "variant": s.variant,
            "settings": [list(pair) for pair in s.settings],
            "knobs": s.params.as_dict(),
            "seats": list(s.seats),
            "seed": s.seed,
            "decisions": [list(d) for d in self.decisions],
            "scores": self.scores,
        }

    def save(self, path: Path) -> None:
        """Write the record whole (to a temporary name, then renamed), never cut short by Ctrl-C or SIGTERM.

        Raises:
            RecordError: the file cannot be written (a read-only folder, a full disk); ``path`` is left as it was
                and no temporary file is left behind.
        """
        data = json.dumps(self.as_json(), indent=1).encode()
        try:
            with signals_held():
                atomic_write(path, data)
        except OSError as err:
            raise RecordError(f"{path}: the game cannot be saved there ({err.strerror or err})") from None


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait until the block is over, then act as they would have (from the main thread)."""
    held = [s for s in STOPS if callable(signal.getsignal(s))]
    if threading.current_thread() is not threading.main_thread() or not held:
        yield
        return
    caught: list[int] = []
    previous = {s: signal.signal(s, lambda signum, _: caught.append(signum)) for s in held}
    try:
        yield
    finally:
        for stop, handler in previous.items():
            signal.signal(stop, handler)
        if caught:
            signal.raise_signal(caught[0])


def load(path: Path) -> SavedGame:
    """Read a record, checking its layout, game version and knobs.

    Raises:
        RecordError: one line naming the file and what is wrong with it.
    """
    if not path.exists():
        raise RecordError(f"{path}: no such file")
    try:  # a regular UTF-8 file of at most 1 MiB, not nested too deeply (a device or a folder is refused)
        data = validate.load_json(path, "saved game")
    except ValueError as err:  # json's own ValueErrors (a 5,000-digit number) do not name the file
        said = str(err)
        raise RecordError(said if said.startswith(str(path)) else f"{path}: {said}") from None
    try:
        return from_json(data)
    except KeyError as err:
        raise RecordError(f"{path}: not a saved game (missing field {err})") from None
    except ValueError as err:
        raise RecordError(f"{path}: {err}") from None


def _field(data: dict[str, Any], name: str, ok: Callable[[Any], bool], what: str) -> Any:
    """``data[name]`` if ``ok(it)``; else one line naming the field and what it must be."""
    value = data[name]
    if not ok(value):
        raise RecordError(f"not a saved game (field '{name}' must be {what})")
    return value


def _whole(value: Any) -> bool:
    """Whether ``value`` is a whole number (``true`` is not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _is_list(value: Any) -> bool:
    return isinstance(value, list)


def _is_text(value: Any) -> bool:
    return isinstance(value, str)


def _decisions(items: list[Any], players: int) -> list[tuple[int, int]]:
    """The ``[seat, candidate]`` pairs, each two whole numbers in range."""
    out = []
    for number, item in enumerate(items, 1):
        if not (isinstance(item, list) and len(item) == 2 and all(_whole(x) for x in item)):
            raise RecordError(f"decision {number} ({json.dumps(item)[:40]}) is not two whole numbers [seat, move]")
        seat, move = item
        if not (0 <= seat < players and 0 <= move < MAX_MOVE):
            raise RecordError(f"decision {number} ({json.dumps(item)[:40]}) names no seat or move of this game")
        out.append((seat, move))
    return out


def _scores(value: Any, players: int) -> list[float] | None:
    """The final scores: ``None``, or one finite number per seat."""
    if value is None:
        return None
    if not (isinstance(value, list) and len(value) == players):
        raise RecordError(f"not a saved game (field 'scores' must be null or {players} numbers)")
    if not all(isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) for x in value):
        raise RecordError("not a saved game (field 'scores' must hold finite numbers)")
    return [float(x) for x in value]


def from_json(data: Any) -> SavedGame:
    """A record from its JSON object (see :meth:`SavedGame.as_json`), every field's type and range checked.

    Raises:
        RecordError: (a ``ValueError``) one line naming the field or decision that is wrong.
        KeyError: a field is missing.
    """
    if not isinstance(data, dict):
        raise RecordError("not a saved game (not a JSON object)")
    if not _whole(data["format"]) or data["format"] != FORMAT:
        raise RecordError(f"saved in format {json.dumps(data['format'])[:40]}; this boardlab reads format {FORMAT}")
    pairs = _field(data, "settings", _is_list, "a list of [knob, value] pairs")
    if not all(isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in pairs):
        raise RecordError("not a saved game (field 'settings' must be a list of [knob, value] pairs of text)")
    seats = _field(data, "seats", _is_list, "a list of seats")
    if not all(isinstance(s, str) for s in seats):
        raise RecordError("not a saved game (field 'seats' must be a list of seat names)")
    game = _field(data, "game", _is_text, "a game's name")
    variant = _field(data, "variant", lambda v: v is None or _is_text(v), "null or a variant's name")
    seed = _field(data, "seed", _whole, "a whole number")
    setup = Setup(game, tuple(seats), seed, tuple((k, v) for k, v in pairs), variant)
    version = setup.module.INFO.version
    if data["version"] != version:
        said = json.dumps(data["version"])[:40]
        raise RecordError(f"saved by {setup.game} version {said}; this boardlab plays version {version}")
    if data["knobs"] != setup.params.as_dict():
        raise RecordError("its knobs do not match its settings and variant")
    decisions = _decisions(_field(data, "decisions", _is_list, "a list of [seat, move] pairs"), setup.players)
    return SavedGame(setup, decisions, _scores(data["scores"], setup.players))
