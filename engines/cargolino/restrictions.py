"""Cargolino's restrictions: choices a player can give up, as masks over its die decisions (see engines.restrict).

Candidates (:mod:`engines.cargolino.decisions`): ``6 * snail + colour`` moves ``snail`` with a die of ``colour``.
Every mask reads only what the mover knows: its own tokens (``held`` of the mover, the same in every draw of the
deal the point holds), the public board and the dice; never the other seats' tokens. The learned player decides
through its ``decide`` hook and the expert through its search (its hiding moves too), so a restricted point
restricts both. Where a mask leaves nothing legal (the only die left can move only an own snail), the rules' own
moves stay: a forced move (a player must use a die that can move a snail).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from boardlab.engines.cargolino.decisions import ACTIONS, Hiding, Point
from boardlab.engines.cargolino.rules import N_SNAILS
from boardlab.engines.restrict import OnPoints, Restriction

SNAIL = np.arange(ACTIONS) // N_SNAILS  #: the snail of each candidate
COLOUR = np.arange(ACTIONS) % N_SNAILS  #: the die colour of each candidate


def own_colour(point: Point) -> np.ndarray:
    """Moves of a snail by a die of its own colour (not by its space's colour, nor off the start stone)."""
    return np.tile(SNAIL == COLOUR, (len(point.mover), 1))


def not_own(point: Point) -> np.ndarray:
    """Moves of snails the mover does not hold (its own tokens only: never the others' hidden ones)."""
    own = point.state.held[np.arange(len(point.mover)), point.mover]
    return ((own[:, None] >> SNAIL) & 1) == 0


def not_finishing(point: Point) -> np.ndarray:
    """Moves that leave the moved snail short of the finish (reaching it ends the race at the turn's end)."""
    short = point.state.pos.astype(np.int64) + 1 < point.params.tables.finish
    return short[:, SNAIL]


#: in the order of how much of the game each removes (ours: most of the die choices, a third of the snails, the
#: rare finishing step)
RESTRICTIONS: dict[str, Restriction] = {
    r.name: r
    for r in (
        Restriction(
            "own-colour-only",
            "moves a snail only with a die of its own colour (never by the colour of its space or off the start)",
            own_colour,
        ),
        Restriction("never-move-own", "never moves one of its own snails (unless no other move is legal)", not_own),
        Restriction(
            "never-finish", "never moves a snail onto the finish (unless no other move is legal)", not_finishing
        ),
    )
}


def restricted(impl: Any, restrictions: tuple[Restriction, ...]) -> object:
    """``learned`` or ``expert`` (a fresh implementation) deciding on restricted points."""
    if isinstance(getattr(impl, "decide", None), Hiding):
        impl.decide = dataclasses.replace(impl.decide, restrictions=restrictions)
        return impl
    return OnPoints()(impl, restrictions)
