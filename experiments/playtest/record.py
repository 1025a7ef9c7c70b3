"""A played game as a small JSON file: enough to replay it exactly (game, version, knobs, seats, seed, moves).

Every decision of every seat is kept, in order, as ``[seat, candidate]``; replaying the setup from its seed and
feeding the same candidates gives the same game, so a record is resumed, taken back or reviewed by replaying it.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from experiments import validate
from experiments.playtest.setup import Setup

FORMAT = 1  #: bump when the file's layout changes


class RecordError(ValueError):
    """A record that cannot be used: missing, not JSON, malformed, or of another game version."""


@dataclass
class Record:
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
        """Write the record whole (to a temporary name, then renamed)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=path.name, suffix=".tmp", delete=False) as f:
            json.dump(self.as_json(), f, indent=1)
        os.replace(f.name, path)


def load(path: Path) -> Record:
    """Read a record, checking its layout, game version and knobs.

    Raises:
        RecordError: one line naming the file and what is wrong with it.
    """
    if not path.exists():
        raise RecordError(f"{path}: no such file")
    try:  # a regular UTF-8 file of at most 1 MiB, not nested too deeply (a device or a folder is refused)
        data = validate.load_json(path, "saved game")
    except ValueError as err:
        raise RecordError(str(err)) from None
    try:
        return from_json(data)
    except (KeyError, TypeError, AttributeError) as err:
        raise RecordError(f"{path}: not a saved game (bad or missing field {err})") from None
    except ValueError as err:
        raise RecordError(f"{path}: {err}") from None


def from_json(data: dict[str, Any]) -> Record:
    """A record from its JSON object (see :meth:`Record.as_json`)."""
    if data["format"] != FORMAT:
        raise RecordError(f"saved in format {data['format']!r}; this boardlab reads format {FORMAT}")
    settings = tuple((str(k), str(v)) for k, v in data["settings"])
    seats = tuple(str(s) for s in data["seats"])
    if not isinstance(data["seed"], int):
        raise TypeError("seed")
    setup = Setup(data["game"], seats, data["seed"], settings, data["variant"])
    version = setup.module.INFO.version
    if data["version"] != version:
        raise RecordError(f"saved by {setup.game} version {data['version']!r}; this boardlab plays version {version}")
    if data["knobs"] != setup.params.as_dict():
        raise RecordError("its knobs do not match its settings and variant")
    decisions = [(int(seat), int(move)) for seat, move in data["decisions"]]
    scores = data["scores"]
    return Record(setup, decisions, None if scores is None else [float(x) for x in scores])
