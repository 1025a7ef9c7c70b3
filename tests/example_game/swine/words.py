"""Swine in words: the table as the mover sees it (nothing is hidden) and its two moves, for a person at a table.

``simulate play swine`` shows :func:`view` and :func:`moves` at a person's decision, ``review`` and ``explain``
name the moves by :func:`moves` and the position by :func:`turn`, and ``explain`` asks :func:`explain` why the
strong move differs from a heuristic's. Plain strings only.
"""

from __future__ import annotations

import numpy as np

from swine.decisions import Point
from swine.rules import HOLD

RULES = """\
Swine, in our words.
On your turn roll one die as often as you like, adding each face to the turn's total. A face of at most the
bust number (a 1 by default) ends your turn and the total is lost. You may hold after any roll: the total is
added to your score and the next player rolls. The first to reach the target (50 by default) wins at once."""


def turn(point: Point, row: int = 0) -> int:
    """The number of the turn of ``row``'s decision, counted from 1."""
    return int(point.state.turn[row]) + 1


def view(point: Point, row: int = 0) -> list[str]:
    """The scores and the turn's total as the mover sees them, and what the decision is about."""
    me, state, params = int(point.seat[row]), point.state, point.params
    bust = "a 1" if params.bust == 1 else f"{params.bust} or less"
    lines = [
        f"Turn {turn(point, row)}: seat {me} has {int(state.total[row])} points this turn ({bust} on the "
        f"{params.faces}-sided die loses them); first to {params.target} wins."
    ]
    for seat in range(point.players):
        you = " (you)" if seat == me else ""
        lines.append(f"Seat {seat}{you}: {int(state.score[row, seat])} points banked")
    return lines


def moves(point: Point, row: int = 0) -> list[tuple[int, str]]:
    """Every legal candidate of ``row`` and its words, in candidate order."""
    total, own = int(point.state.total[row]), int(point.state.score[row, int(point.seat[row])])
    said = {HOLD: f"hold and bank {total} (score {own + total})", 1: "roll again"}
    return [(int(c), said[int(c)]) for c in np.flatnonzero(point.legal()[row])]


def explain(point: Point, strong: int, heuristic: int, name: str, row: int = 0) -> str:
    """One sentence on what the strong move knows that heuristic ``name``'s does not, in Swine's terms."""
    me, state, params = int(point.seat[row]), point.state, point.params
    own, total = int(state.score[row, me]), int(state.total[row])
    best = max(int(state.score[row, s]) for s in range(point.players) if s != me)
    chosen = dict(moves(point, row))
    standing = (
        f"Seat {me} has {own} banked and {total} this turn; the best opponent has {best}, "
        f"{params.target - best} short of {params.target}"
    )
    if strong == HOLD:
        why = "the points in hand are worth more than the chance of adding to them before a bust"
    elif params.target - best <= params.target // 5:
        why = "the opponent is close enough to win on its next turn, so banking too little is as good as losing"
    else:
        why = "another roll adds more on average than the risk of losing the turn's points costs"
    return f"{standing}: the strong move is to {chosen[strong]} where {name} would {chosen[heuristic]}: {why}."
