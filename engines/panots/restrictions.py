"""Panots's restrictions: choices a player can give up, as masks over its grabs (see engines.restrict).

The decision the strong players make is the grab (:mod:`engines.panots.decisions`): candidate ``c`` takes
warehouse slot ``c``; where to lay the card and what to swap follow the rollout or baseline policy (the planner).
Each mask picks among the point's legal cards by what the deciding seat sees: its best immediate gain of each card
(objective VP, majorities aside) and its legal placements of each card. The learned player decides through its
``decide`` hook and the expert through its search, so a restricted point restricts both.

"Ignore the objectives" is a way of valuing, not a set of cards; its nearest mask is ``most-placements``: the grab
is chosen by how many ways the card can be laid, which no objective enters (the player still lays it as the planner
does).
"""

from __future__ import annotations

import numpy as np

from boardlab.engines.panots.decisions import Point
from boardlab.engines.restrict import OnPoints, Restriction


def own(point: Point, per_seat: np.ndarray) -> np.ndarray:
    """``(B, C)``: the deciding seat's row of a ``(B, P, C)`` table."""
    return per_seat[np.arange(len(point.key)), point.seat]


def top_legal(point: Point, value: np.ndarray) -> np.ndarray:
    """The legal cards of the highest ``value`` (every legal card where they tie)."""
    value = np.where(point.legal(), value, np.iinfo(np.int64).min)
    return value == value.max(axis=1, keepdims=True)


def best_gain(point: Point) -> np.ndarray:
    """The legal cards of the highest immediate gain."""
    return top_legal(point, own(point, point.gains))


def most_placements(point: Point) -> np.ndarray:
    """The legal cards with the most legal placements."""
    return top_legal(point, point.count)


def scoring(point: Point) -> np.ndarray:
    """The cards of a positive immediate gain where some legal card has one (elsewhere every card)."""
    gains = own(point, point.gains) > 0
    return np.where((gains & point.legal()).any(axis=1, keepdims=True), gains, True)


#: in the order of how much of the grab each fixes (ours: the two that fix it up to ties, then the one that only
#: forbids a card scoring nothing)
RESTRICTIONS: dict[str, Restriction] = {
    r.name: r
    for r in (
        Restriction(
            "greedy-grab",
            "always grabs a card of the highest immediate gain (objective VP, majorities aside)",
            best_gain,
        ),
        Restriction(
            "most-placements",
            "ignores the objectives when grabbing: always grabs a card it can lay in the most ways",
            most_placements,
        ),
        Restriction(
            "always-score",
            "never grabs a card that scores it nothing now while one that scores is free",
            scoring,
        ),
    )
}


restricted = OnPoints()
"""``learned`` or ``expert`` (a fresh implementation) deciding on restricted points."""
