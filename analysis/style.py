"""The one visual language of every boardlab figure: seaborn's colour-blind-safe palette, one look per policy.

A policy has the same colour and marker on every page of its game's report (:func:`policy_style`): a game's looks
(:func:`policy_looks`) are the shared ones and its own record's, so no game's looks reach another's figures and an
installed game can neither restyle a built-in game's policy nor, if it is broken, stop a built-in game's figures.
Figures are drawn for the game set by :func:`drawing_for` (the report writers and run folders set it); with none
set, the built-in games' looks apply. An argument (``expert:64``) keeps its base policy's colour and marker, lighter
for a smaller budget, and a name the looks do not know gets a look derived from a checksum of the name (stable
between runs). Series that are
not policies (rules, modes, seats) take :data:`SERIES` in order, grey last (grey is ``random``'s). Line styles
and hatches stay as a second cue for greyscale prints. Importing this module costs nothing: no seaborn, no
matplotlib, no game (the registry is read on first use).
"""

from __future__ import annotations

import functools
import importlib
import math
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

PALETTE = (
    "#0173b2",  # 0 blue
    "#de8f05",  # 1 orange
    "#029e73",  # 2 green
    "#d55e00",  # 3 vermillion
    "#cc78bc",  # 4 pink
    "#ca9161",  # 5 brown
    "#fbafe4",  # 6 light pink
    "#949494",  # 7 grey
    "#ece133",  # 8 yellow
    "#56b4e9",  # 9 sky blue
)
"""seaborn's ``colorblind`` palette (``sns.color_palette("colorblind")``), written out so importing is free."""

SERIES = tuple(PALETTE[i] for i in (0, 1, 2, 3, 4, 9, 5, 6, 8, 7))
"""Colours of series that are not policies, in order: the strongest contrasts first, grey last."""
GREYS = SERIES
"""The name chapters written before the palette index (``plots.GREYS[i]``): the same series colours."""
LINESTYLES = ("-", "--", ":", "-.", (0, (5, 1)), (0, (1, 1)), (0, (3, 1, 1, 1)), (0, (5, 5)))
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "p", "h")
HATCHES = ("", "//", "..", "xx", "\\\\", "--", "++", "oo")
HEATMAP = "cividis"
"""The colour map of annotated matrices: designed to read the same with any colour vision."""
INK = "#222222"  # text, reference lines and outlines
TINT_COLOR = "#fdf3dc"  # the Assumptions box and the knobs it lists
EDGE_COLOR = PALETTE[1]  # the Assumptions box's frame


@dataclass(frozen=True)
class Look:
    """How one series is drawn: colour, marker, line style."""

    color: str
    marker: str
    linestyle: str | tuple = "-"


SHARED_LOOKS: dict[str, tuple[int, str]] = {
    "random": (7, "X"),
    "greedy": (1, "s"),
    "expert": (3, "*"),
    "planner": (2, ">"),
    "learned": (6, "P"),
}
"""Palette index and marker of the policies several games share; each game's record adds its own."""


_GAME: ContextVar[str | None] = ContextVar("boardlab_style_game", default=None)


@contextmanager
def drawing_for(game: str | None) -> Iterator[None]:
    """Draw the figures made inside the block with ``game``'s looks (None: the built-in games')."""
    token = _GAME.set(game)
    try:
        yield
    finally:
        _GAME.reset(token)


def drawn_for(game: str | None, draw: Callable[..., Any], *args: Any) -> Any:
    """``draw(*args)`` with ``game``'s looks (a task a worker process can run: the looks travel with it)."""
    with drawing_for(game):
        return draw(*args)


@functools.cache
def built_in_looks() -> dict[str, tuple[int, str]]:
    """The shared looks and the built-in games' (their records are ours, so they cannot clash or fail)."""
    from boardlab.engines import BUILT_IN
    from boardlab.engines.record import record_of

    looks = dict(SHARED_LOOKS)
    for path in BUILT_IN.values():
        looks |= record_of(importlib.import_module(path)).looks
    return looks


@functools.cache
def game_looks(game: str) -> dict[str, tuple[int, str]]:
    """The looks of ``game``'s figures: the shared looks and its own record's (only that game is imported)."""
    from boardlab.engines import get_game
    from boardlab.engines.record import record_of

    return dict(SHARED_LOOKS) | dict(record_of(get_game(game).module).looks)


def policy_looks(game: str | None = None) -> dict[str, tuple[int, str]]:
    """Palette index and marker of the policies of ``game`` (default: the one being drawn for, else built-in)."""
    from boardlab.engines import registry

    game = _GAME.get() if game is None else game
    return game_looks(game) if game is not None and game in registry() else built_in_looks()


FULL_BUDGET = 512  # the expert's default playouts: an ``expert:N`` with N at least this is drawn at full colour


def _lighter(color: str, amount: float) -> str:
    """``color`` mixed with white (``amount`` 0: unchanged, 1: white)."""
    rgb = [int(color[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(c + (255 - c) * amount):02x}" for c in rgb)


def policy_style(name: str) -> Look:
    """The look of policy ``name`` (``base`` or ``base:arg``) on every page and in every game."""
    base, _, arg = str(name).partition(":")
    if base in (looks := policy_looks()):
        index, marker = looks[base]
    else:
        digest = zlib.crc32(base.encode())
        index, marker = digest % len(PALETTE), MARKERS[(digest // len(PALETTE)) % len(MARKERS)]
    color = PALETTE[index]
    if arg.isdigit() and 0 < int(arg) < FULL_BUDGET:  # a smaller search budget: the same hue, lighter
        color = _lighter(color, min(0.6, 0.1 * (math.log2(FULL_BUDGET) - math.log2(int(arg)))))
    return Look(color, marker, "-" if not arg else "--")


def is_policy(name: object) -> bool:
    """Whether ``name`` names a registered policy (with or without an argument)."""
    return str(name).partition(":")[0] in policy_looks()


def series_styles(names: list) -> list[Look]:
    """Looks for the series ``names`` of one plot: the policy registry if every name is a policy, else in order."""
    if names and all(is_policy(n) for n in names):
        return [policy_style(str(n)) for n in names]
    return [
        Look(SERIES[i % len(SERIES)], MARKERS[i % len(MARKERS)], LINESTYLES[i % len(LINESTYLES)])
        for i in range(len(names))
    ]
