"""Swine solved exactly for 2 players: ``win-optimal``, and every move's exact chance to win for hints.

A position is the mover's banked score ``i``, the opponent's ``j`` and the turn's total ``k`` (before a roll).
Its value is the mover's chance to win when both seats play to win (Neller and Presser 2004 solve Pig so):
holding is worth ``1 - V(j, i + k, 0)`` (1 once ``i + k`` reaches the target), rolling the mean over the faces
of ``V(i, j, k + f)``, a bust giving ``1 - V(j, i, 0)``; a turn's first roll is compulsory. The values are
found by value iteration (each sweep runs ``k`` downwards, so a sweep carries a whole turn back), to a change
below :data:`TOLERANCE`. The solution ignores the turn cap, which play to win never comes near.

A restricted player (:mod:`swine.restrictions`) is solved the same way against an unrestricted opponent: two
tables, the restricted seat's choices narrowed by its rule (where the rule leaves no legal move, the rules'
own stay). Solutions are kept per process; a target of 50 takes about half a second.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np

from swine.rules import Params, View

MAX_TARGET = 100  #: the largest target solved (ours: about 5 s; the work grows as the target's cube)
TOLERANCE = 1e-12  #: value iteration stops once no value moves by more than this in a sweep
Rule = Callable[[np.ndarray, np.ndarray, int, Params], tuple[np.ndarray, np.ndarray]]
"""``rule(own, other, total, params) -> (hold allowed, roll allowed)``, broadcast over ``own`` and ``other``."""


def check_supported(params: Params, players: int | None = None) -> None:
    """Raise ``ValueError`` (one line) where the exact solution does not cover the table."""
    if players is not None and players != 2:
        raise ValueError(f"win-optimal plays 2-player Swine only, not {players} players")
    if params.target > MAX_TARGET:
        raise ValueError(f"win-optimal is solved for targets up to {MAX_TARGET}, not target={params.target}")


@dataclass(frozen=True)
class Solution:
    """Values and decisions, indexed ``[k, i, j]`` (turn's total, mover's score, opponent's); ``k`` up to the target."""

    target: int
    values: np.ndarray  # (K, T, T): the mover's chance to win (1 where i + k reaches the target)
    opponent: np.ndarray  # (T, T): the opponent's chance at its turn's start, [its score, the mover's]
    roll: np.ndarray  # (T, T, T) bool: rolling is the better move (ties hold)
    hold_value: np.ndarray  # (T, T, T)
    roll_value: np.ndarray  # (T, T, T)
    bust: float  # a roll's chance to bust

    def chances(self, own: np.ndarray, other: np.ndarray, total: np.ndarray) -> np.ndarray:
        """``(B, 2)``: the chance to win after holding and after rolling (holding at 1 where it wins)."""
        wins = own + total >= self.target
        k = np.minimum(total, self.target - 1)
        i, j = np.minimum(own, self.target - 1), np.minimum(other, self.target - 1)
        hold = np.where(wins, 1.0, self.hold_value[k, i, j])
        roll = np.where(wins, self._roll_past(own, other, total), self.roll_value[k, i, j])
        return np.stack([hold, roll], axis=1)

    def _roll_past(self, own: np.ndarray, other: np.ndarray, total: np.ndarray) -> np.ndarray:
        """Rolling once more when holding would already win: only a bust (then the opponent moves) loses anything."""
        i, j = np.minimum(own, self.target - 1), np.minimum(other, self.target - 1)
        return 1.0 - self.bust * self.opponent[j, i]

    def rolls(self, own: np.ndarray, other: np.ndarray, total: np.ndarray) -> np.ndarray:
        """Whether the mover rolls (never once holding wins)."""
        k = np.minimum(total, self.target - 1)
        wins = own + total >= self.target
        return ~wins & self.roll[k, np.minimum(own, self.target - 1), np.minimum(other, self.target - 1)]


@cache
def solve(params: Params, rule: Rule | None = None) -> Solution:
    """The 2-player solution for ``params``: both seats free, or the mover restricted by ``rule``.

    With a ``rule`` the solution is the restricted seat's (its moves chosen among those the rule allows) against
    an opponent free to play to win, who knows the restriction.
    """
    check_supported(params)
    size, faces, bust = params.target, params.faces, params.bust
    depth = size + faces + 1
    index = np.arange(size)
    start = np.where((np.arange(depth)[:, None] + index[None, :] >= size)[:, :, None], 1.0, 0.5)
    tables = [np.broadcast_to(start, (depth, size, size)).copy() for _ in range(1 if rule is None else 2)]
    rules = [rule, None]
    while True:
        change = 0.0
        heads = [t[0].copy() for t in tables]
        for me, table in enumerate(tables):
            other = heads[1 - me] if len(tables) == 2 else heads[0]
            change = max(change, _sweep(table, other, params, rules[me])[0])
        if change < TOLERANCE:
            break
    table = tables[0]
    other = tables[1][0] if len(tables) == 2 else table[0]
    _, hold, roll, rolls = _sweep(table.copy(), other.copy(), params, rule, keep=True)
    return Solution(size, table, other, rolls, hold, roll, bust / faces)


def _sweep(
    table: np.ndarray, other: np.ndarray, params: Params, rule: Rule | None, keep: bool = False
) -> tuple[float, np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """One sweep of value iteration over ``table`` in place (``other``: the opponent's turn-start values).

    Returns the largest change and, with ``keep``, each position's hold and roll values and decision.
    """
    size, faces, bust = params.target, params.faces, params.bust
    banked = np.zeros((2 * size + faces, size))  # banked[r, j]: the opponent's value at (j, r), 0 past the target
    banked[:size] = other.T
    busted = bust / faces * (1.0 - other.T)
    window = table[size + bust + 1 : size + faces + 1].sum(axis=0)  # the sum over faces of table[k + f]
    shape = (size, size, size)
    hold_all, roll_all, rolls_all = (
        (np.zeros(shape), np.zeros(shape), np.zeros(shape, dtype=bool)) if keep else (None,) * 3
    )
    change = 0.0
    own, opp = np.arange(size)[:, None], np.arange(size)[None, :]
    for k in range(size - 1, -1, -1):
        window += table[k + bust + 1] - table[k + faces + 1]
        n = size - k  # scores still short of the target after banking k
        roll = busted[:n] + window[:n] / faces
        if k == 0:
            new, rolls, hold = roll, np.ones_like(roll, dtype=bool), np.zeros_like(roll)
        else:
            hold = 1.0 - banked[k : k + n]
            rolls = roll > hold
            if rule is not None:
                may_hold, may_roll = (np.broadcast_to(m, roll.shape) for m in rule(own[:n], opp, k, params))
                free = may_hold == may_roll  # both allowed, or neither (then the rules' own moves stay)
                rolls = np.where(free, rolls, may_roll)
            new = np.where(rolls, roll, hold)
        change = max(change, float(np.abs(new - table[k, :n]).max()))
        table[k, :n] = new
        if keep:
            hold_all[k, :n], roll_all[k, :n], rolls_all[k, :n] = hold, roll, rolls
    return change, hold_all, roll_all, rolls_all


class WinOptimal:
    """``win-optimal``: holds or rolls as the exact 2-player solution says (restricted: the restricted solution)."""

    def __init__(self, params: Params, rule: Rule | None = None) -> None:
        """Check that the solution covers ``params``; solve on first use."""
        check_supported(params)
        self.params, self.rule = params, rule

    def prepare(self, players: int) -> None:
        """Refuse anything but 2 players, then solve now rather than mid-game."""
        check_supported(self.params, players)
        solve(self.params, self.rule)

    def decide(self, view: View) -> np.ndarray:
        """Roll where the solution does."""
        check_supported(self.params, view.state.score.shape[1])
        return solve(self.params, self.rule).rolls(view.own, view.best_other, view.state.total)
