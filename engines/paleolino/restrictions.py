"""Paleolino's restrictions: choices a player can give up, as masks over its decision points (see engines.restrict).

Two decisions are the strong players' own (:mod:`engines.paleolino.decisions`): ``CAVE`` (candidate ``v`` opens cave
``v``) and ``KEEP`` (candidate ``j`` keeps the ``j``-th bag of :func:`~engines.paleolino.decisions.keep_options`).
Every mask reads public information only: the backpack, the middle and what the table remembers and saw fall, never
the caves' true content. The learned player decides through its ``decide`` hook (its cave choice among the point's
legal caves) and the expert through its search, so a restricted point restricts both. Where a mask leaves nothing
legal (without ``backpack_swap`` a chip already on the backpack stays), the rules' own choices stay: a forced move.

The builds and the payment, and so whether to take a helper's chip, are not among these decisions: every strong
player pays as the planner pays. "Never ask for help" is therefore no mask here (its nearest measure is the rule
``help=false``); ``never-store`` is the nearest: a table that stores nothing has no chip to help with.
"""

from __future__ import annotations

import numpy as np

from boardlab.engines import core
from boardlab.engines.paleolino.decisions import CAVE, KEEP, Point, keep_options
from boardlab.engines.paleolino.rules import Params, bag_min, bag_tables
from boardlab.engines.restrict import OnPoints, Restriction


def keeps(point: object) -> Point | None:
    """The point when it is a keep decision, else None."""
    return point if isinstance(point, Point) and point.stage == KEEP else None


def keeps_nothing(point: object) -> np.ndarray | None:
    """The empty keep (candidate 0: the options are ordered by chips, fewest first)."""
    if (at := keeps(point)) is None:
        return None
    _, chips_in, _ = bag_tables()
    allowed = chips_in[keep_options(at.params.backpack)] == 0
    return np.tile(allowed, (len(at.key), 1))


def keeps_backpack(point: object) -> np.ndarray | None:
    """Keeps that hold every chip already on the backpack (the rule without ``backpack_swap``)."""
    if (at := keeps(point)) is None:
        return None
    spread = bag_tables()[2]
    options = spread[keep_options(at.params.backpack)][None, :]
    own = spread[at.turn(core.StreamSource(at.key)).own][:, None]
    return bag_min(options, own) == own


def fullest_cave(point: object) -> np.ndarray | None:
    """The caves holding the most chips expected from public information (remembered and seen falling)."""
    if not isinstance(point, Point) or point.stage != CAVE:
        return None
    chips = point.turn(core.StreamSource(point.key)).expected().sum(axis=2)
    return chips >= chips.max(axis=1, keepdims=True) - 1e-9


def has_backpack(params: Params) -> bool:
    """Whether a chip can be kept at all."""
    return params.backpack > 0


def swaps(params: Params) -> bool:
    """Whether the backpack's chip may be dumped for another."""
    return params.backpack > 0 and params.backpack_swap


#: in the order of how much of the game each removes (ours: every keep, then the cave choice up to ties, then the
#: one swap)
RESTRICTIONS: dict[str, Restriction] = {
    r.name: r
    for r in (
        Restriction(
            "never-store",
            "never keeps a chip on its backpack (so has none to help with)",
            keeps_nothing,
            has_backpack,
            "backpack of at least 1",
        ),
        Restriction(
            "fullest-cave",
            "always opens a cave with the most chips expected (from what the table remembers and saw fall)",
            fullest_cave,
        ),
        Restriction(
            "never-swap",
            "never dumps its backpack's chip for another",
            keeps_backpack,
            swaps,
            "backpack of at least 1 and backpack_swap=true",
        ),
    )
}


restricted = OnPoints()
"""``learned`` or ``expert`` (a fresh implementation) deciding on restricted points."""
