"""Panots policies: which warehouse card to grab, where to place it, and which leftover to swap for.

Every policy decides for a batch of games at once from a :class:`~engines.panots.rules.View` (the legal
placements of every warehouse card for every seat, and their values). Methods get ``rows`` (games of the
batch), ``seats`` (the deciding seat in each) and masks over warehouse slots; they return slot indices or
placement indices. Ties go to the lowest slot and to the first placement in ``(d, r, c)`` order.

* ``gain``: the change of the seat's objective VP, majorities excluded (they depend on the other sidewalks
  at the end of the game).
* ``planner`` value: ``4 * gain + open + 2 * partial`` where ``open`` counts the empty cells next to the new
  panots that could still take some panot, and ``partial`` the line/L instances through a new panot with two
  cells matching in order and the third empty.
"""

from __future__ import annotations

import numpy as np

from engines.core import Policy
from engines.panots.rules import Params, State, View

MASKED = -(10**6)


def _rows(view: View, st: State, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """View rows of the ``(game, seat)`` pairs."""
    return rows * st.cell.shape[1] + seats


def _draw(view: View, rows: np.ndarray, n: np.ndarray) -> np.ndarray:
    """One uniform draw in ``[0, n)`` per row (all ``n >= 1``)."""
    return view.source.draw(view.games[rows], n, 1)[:, 0]


def _nth_true(mask: np.ndarray, nth: np.ndarray) -> np.ndarray:
    return (np.cumsum(mask, axis=1) > nth[:, None]).argmax(axis=1)


class Random:
    """Grab uniformly among the placeable free cards (all free cards if none is), place uniformly."""

    values = False
    plan = False

    def __init__(self, params: Params) -> None:
        """No state."""

    def grab(
        self, view: View, st: State, rows: np.ndarray, seats: np.ndarray, free: np.ndarray, order: np.ndarray, k: int
    ) -> np.ndarray:
        """One draw per row among the options."""
        options = free & (view.count[_rows(view, st, rows, seats)] > 0)
        options = np.where(options.any(axis=1, keepdims=True), options, free)
        return _nth_true(options, _draw(view, rows, options.sum(axis=1)))

    def place(self, view: View, st: State, rows: np.ndarray, seats: np.ndarray, slots: np.ndarray) -> np.ndarray:
        """One draw per row among the legal placements (none on the first, canonical, placement)."""
        r = _rows(view, st, rows, seats)
        nth = np.zeros(len(rows), dtype=np.int64) if view.first else _draw(view, rows, view.count[r, slots])
        return view.nth_legal(r, slots, nth)

    def swap(self, view: View, st: State, rows: np.ndarray, seats: np.ndarray, options: np.ndarray) -> np.ndarray:
        """One draw per row among the placeable leftovers; -1 (and no draw) when there is none."""
        n = options.sum(axis=1)
        out = np.full(len(rows), -1, dtype=np.int64)
        some = np.flatnonzero(n > 0)
        if len(some):
            out[some] = _nth_true(options[some], _draw(view, rows[some], n[some]))
        return out


class Greedy:
    """Grab the card whose best placement gains most; place it there."""

    values = True
    plan = False

    def __init__(self, params: Params) -> None:
        """No state."""

    def card_value(self, view: View, r: np.ndarray) -> np.ndarray:
        """Value of each warehouse slot for rows ``r``."""
        return view.best_gain[r]

    def placement(self, view: View, r: np.ndarray, slots: np.ndarray) -> np.ndarray:
        """Chosen placement of card ``slots``."""
        return view.best_gain_at[r, slots]

    def grab(
        self, view: View, st: State, rows: np.ndarray, seats: np.ndarray, free: np.ndarray, order: np.ndarray, k: int
    ) -> np.ndarray:
        """The free card of highest value."""
        value = self.card_value(view, _rows(view, st, rows, seats))
        return np.where(free, value, MASKED).argmax(axis=1)

    def place(self, view: View, st: State, rows: np.ndarray, seats: np.ndarray, slots: np.ndarray) -> np.ndarray:
        """The best placement."""
        return self.placement(view, _rows(view, st, rows, seats), slots)

    def swap(self, view: View, st: State, rows: np.ndarray, seats: np.ndarray, options: np.ndarray) -> np.ndarray:
        """The placeable leftover of highest value; -1 when none."""
        value = np.where(options, self.card_value(view, _rows(view, st, rows, seats)), MASKED)
        return np.where(options.any(axis=1), value.argmax(axis=1), -1)


class Planner(Greedy):
    """Greedy on the planner value (gain plus open edges and partial lines/Ls)."""

    values = False
    plan = True

    def card_value(self, view: View, r: np.ndarray) -> np.ndarray:
        """Planner value of each slot."""
        return view.best_plan[r]

    def placement(self, view: View, r: np.ndarray, slots: np.ndarray) -> np.ndarray:
        """Best placement by planner value."""
        return view.best_plan_at[r, slots]


class Denier(Greedy):
    """Greedy, but adds to each card what taking it costs the leading opponent when the leader grabs later.

    The leader is the opponent with most objective VP so far (majorities excluded; ties to the lowest seat).
    Taking the leader's best card costs them the gap to their next best free card.
    """

    watches_leader = True

    def grab(
        self, view: View, st: State, rows: np.ndarray, seats: np.ndarray, free: np.ndarray, order: np.ndarray, k: int
    ) -> np.ndarray:
        """The free card maximising own gain plus the leader's loss."""
        players = st.cell.shape[1]
        own = np.where(free, view.best_gain[_rows(view, st, rows, seats)], MASKED)
        if players == 1:
            return own.argmax(axis=1)
        score = st.pscore[rows].astype(np.int64)
        score[np.arange(len(rows)), seats] = MASKED
        leader = score.argmax(axis=1)
        later = (order[:, k + 1 :] == leader[:, None]).any(axis=1)
        theirs = np.where(free, view.best_gain[_rows(view, st, rows, leader)], MASKED)
        top = theirs.argmax(axis=1)
        best = theirs[np.arange(len(rows)), top]
        rest = theirs.copy()
        rest[np.arange(len(rows)), top] = MASKED
        loss = np.where(later, best - rest.max(axis=1), 0)
        value = own.copy()
        value[np.arange(len(rows)), top] += loss
        return value.argmax(axis=1)


POLICIES: dict[str, Policy] = {
    p.name: p
    for p in (
        Policy("greedy", "Grab and place to maximise the immediate objective VP gain (majorities excluded).", Greedy),
        Policy("random", "Grab a random placeable card and place it at a random legal spot.", Random),
        Policy("planner", "Greedy plus future potential: open matching edges and partial lines/Ls.", Planner),
        Policy("denier", "Greedy, but takes the leading opponent's best card when the swing is larger.", Denier),
    )
}
