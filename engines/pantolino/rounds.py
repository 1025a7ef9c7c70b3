"""Compiled (numba) kernel of Pantolino's game-metrics columns for games in which no token changed hands.

Pantolino's engine plays a game in about 3 µs; laying its rounds out in numpy arrays costs a fifth of that again
(measured by ``benchmarks/bench.py``, whose bar allows 5%), while a loop over each game's ~15 tokens costs a
hundredth. See :func:`engines.pantolino.rules.round_columns` for what the columns mean.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def round_columns_kernel(
    owner: np.ndarray, taken_at: np.ndarray, value: np.ndarray, start: np.ndarray, turns: np.ndarray, turn_cap: int
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled; tested through rules.round_columns
    """``(mid_score, lead_changes)`` of each game (see the module docstring), walking each game turn by turn.

    ``start`` holds each seat's boots before play (the head start).
    """
    n, t = owner.shape
    players = len(start)
    mid_score = np.empty((n, players), np.int32)
    changes = np.zeros(n, np.int16)
    taken = np.full(turn_cap + 1, -1, np.int64)  # the token taken at each turn, -1 for none
    boots = np.zeros(players, np.int32)
    for g in range(n):
        for j in range(t):
            if owner[g, j] >= 0:
                taken[taken_at[g, j]] = j
        length = turns[g]
        middle = (length + players - 1) // players // 2
        boots[:] = start
        mid_score[g, :] = start
        leader = -1
        for turn in range(length):
            j = taken[turn]
            if j >= 0:
                boots[owner[g, j]] += value[j]
                taken[turn] = -1
            if (turn + 1) % players == 0 or turn + 1 == length:  # a round ends (the last may be cut short)
                if (turn + 1 + players - 1) // players == middle:
                    mid_score[g, :] = boots
                best, lead, level = boots[0], 0, 1
                for s in range(1, players):
                    if boots[s] > best:
                        best, lead, level = boots[s], s, 1
                    elif boots[s] == best:
                        level += 1
                if level == 1:
                    if leader >= 0 and lead != leader:
                        changes[g] += 1
                    leader = lead
    return mid_score, changes
