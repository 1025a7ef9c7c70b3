"""Patolli's restrictions: choices a player can give up, as masks over its decision points (see engines.restrict).

Candidates (:mod:`engines.patolli.decisions`): after a roll, ``0`` enters a button (or loses the roll when nothing
is legal) and ``p + 1`` moves the mover's button at progress ``p``; at a grey corner's optional extra move, ``0``
takes it and ``1`` passes; markers are not restricted. Every strong player decides through these points (the
learned player through its ``decide`` hook, the expert through its search), so a restricted point restricts both.
Where a restriction leaves nothing legal (entering is the only move, for a player who never enters), the rules'
own moves stay: a forced move.
"""

from __future__ import annotations

import numpy as np

from boardlab.engines.patolli.decisions import ExtraPoint, Point
from boardlab.engines.patolli.rules import ONE, U64, Params
from boardlab.engines.restrict import OnPoints, Restriction


def button_bits(point: Point, bits: np.ndarray) -> np.ndarray:
    """``(B, track_length)``: the move candidates ``p + 1`` whose source progress ``p`` is in ``bits``."""
    return ((bits[:, None] >> np.arange(point.params.track_length, dtype=U64)) & ONE).astype(bool)


def no_capture(point: object) -> np.ndarray | None:
    """Moves that capture nothing (a capturing move, or entering onto an opponent's button, is forbidden)."""
    if not isinstance(point, Point):
        return None
    moves = point.moves()
    return ~np.concatenate([moves.enter_captures[:, None], button_bits(point, moves.capture)], axis=1)


def capture_if_possible(point: object) -> np.ndarray | None:
    """Where some legal move captures, only the capturing moves."""
    if not isinstance(point, Point):
        return None
    captures = ~no_capture(point)
    return np.where(captures.any(axis=1, keepdims=True), captures, True)


def no_entering(point: object) -> np.ndarray | None:
    """Everything but entering a new button."""
    if not isinstance(point, Point):
        return None
    moves = point.moves()
    allowed = np.ones((len(point.key), point.params.track_length + 1), dtype=bool)
    allowed[:, 0] = ~moves.enter
    return allowed


def no_extra(point: object) -> np.ndarray | None:
    """Passing on the grey corner's extra move."""
    if not isinstance(point, ExtraPoint):
        return None
    return np.tile([False, True], (len(point.key), 1))


def optional_extra(params: Params) -> bool:
    """Whether the grey corner's extra move is a choice."""
    return params.grey_bonus and params.grey_extra == "optional"


#: in the order of how much of the game each removes (ours: every capture, entering, one optional move, then the
#: rule that removes only the choice not to capture)
RESTRICTIONS: dict[str, Restriction] = {
    r.name: r
    for r in (
        Restriction("never-capture", "never captures", no_capture),
        Restriction("never-enter", "never enters a button on a 1 (unless it is the only move)", no_entering),
        Restriction(
            "never-extra",
            "never takes a grey corner's extra move",
            no_extra,
            optional_extra,
            "grey_bonus=true and grey_extra=optional",
        ),
        Restriction("always-capture", "always captures when a move can", capture_if_possible),
    )
}


restricted = OnPoints()
"""``learned`` or ``expert`` (a fresh implementation) deciding on restricted points."""
