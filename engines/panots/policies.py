"""Panots policies: which warehouse card to grab, where to place it, and which leftover to swap for.

Every policy decides for a batch of games at once from a :class:`~engines.panots.rules.View` (the legal
placements of every warehouse card for every seat, and their values). Methods get ``rows`` (games of the
batch), ``seats`` (the deciding seat in each) and masks over warehouse slots; they return slot indices or
placement indices. Ties go to the lowest slot and to the first placement in ``(d, r, c)`` order.

* ``gain``: the change of the seat's objective VP, majorities excluded (they depend on the other sidewalks
  at the end of the game).
* ``growth``: when the majority face is up, the cells by which the seat's largest group of each majority token
  grows (one point per cell: a group that grows is the one most likely to win its 3 VP).
* ``open``: the empty cells next to the new panots that some panot could still fill; a tie-break only (it
  never outweighs a point), so that equal placements keep spots open.
* ``potential``: the lookahead over the public pool of unseen cards (the 72 cards minus every card revealed so
  far). For every pattern instance touching the new panots with exactly one empty cell, the VP it would score
  times the unseen panots that would complete it and fit there; the planner counts the change this placement
  makes, divided by the unseen panots ``T`` (so, VP times the chance that one random unseen panot completes it).
  No potential on a seat's last card. (Weights 1/4, 1/2, 1 and 2 on the potential won 68.1%, 68.2%, 70.0% and
  59.3% of 4,000 two-player games against greedy: 1 it is.)

Values (integers, exact): majority-aware ``8 * (gain + growth) + open``; planner ``8 * (T * (gain + growth) +
potential change) + open``.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import numpy as np

from boardlab.engines.core import Policy
from boardlab.engines.expert import expert_policy
from boardlab.engines.learned.exploit import exploit_policy
from boardlab.engines.panots import learned
from boardlab.engines.panots.decisions import ROLLOUT, expert
from boardlab.engines.panots.kernels import GAIN, MAJORITY_AWARE, PLANNER
from boardlab.engines.panots.restrictions import RESTRICTIONS, restricted
from boardlab.engines.panots.rules import Params, State, View
from boardlab.engines.restrict import restricting

MASKED = -(1 << 50)  # below every value, UNPLACEABLE_VALUE included
EXPERT_CHUNK = 200  # games per chunk with an expert seat: large search batches, about a minute each
EXPERT_PLAYOUTS = 16  # default playouts per decision: beats planner (67% of 300 games), ~1.5 games/s on a busy core
RESTRICT = restricting(RESTRICTIONS, restricted)  # learned!greedy-grab, expert:64@learned!most-placements, ...


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
    mode = GAIN

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
    mode = GAIN

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


class MajorityAware(Greedy):
    """Greedy on gain plus majority growth, keeping spots open on ties."""

    values = False
    mode = MAJORITY_AWARE

    def card_value(self, view: View, r: np.ndarray) -> np.ndarray:
        """Best value of each slot."""
        return view.best_plan[r]

    def placement(self, view: View, r: np.ndarray, slots: np.ndarray) -> np.ndarray:
        """Best placement by value."""
        return view.best_plan_at[r, slots]


class Planner(MajorityAware):
    """Majority-aware greedy plus the lookahead over the unseen pool (the potential change)."""

    mode = PLANNER


class Denier(Greedy):
    """Greedy, plus what taking each card costs the opponents who grab after this seat this round.

    Taking a later grabber's best free card costs them the gap to their next best free card; the seat maximises
    ``(P - 1) * own gain + the sum of those costs`` (one opponent's loss weighs ``1 / (P - 1)`` of own gain).
    """

    def grab(
        self, view: View, st: State, rows: np.ndarray, seats: np.ndarray, free: np.ndarray, order: np.ndarray, k: int
    ) -> np.ndarray:
        """The free card maximising own gain plus the later grabbers' losses."""
        players = st.cell.shape[1]
        own = np.where(free, view.best_gain[_rows(view, st, rows, seats)], MASKED)
        if players == 1:
            return own.argmax(axis=1)
        value = own * (players - 1)
        at = np.arange(len(rows))
        for later in range(k + 1, players):
            theirs = np.where(free, view.best_gain[_rows(view, st, rows, order[:, later])], MASKED)
            top = theirs.argmax(axis=1)
            best = theirs[at, top]
            rest = theirs.copy()
            rest[at, top] = MASKED
            value[at, top] += np.maximum(best - rest.max(axis=1), 0)
        return value.argmax(axis=1)


POLICIES: dict[str, Policy] = {
    p.name: p
    for p in (
        Policy("greedy", "Grab and place to maximise the immediate objective VP gain (majorities excluded).", Greedy),
        Policy("random", "Grab a random placeable card and place it at a random legal spot.", Random),
        Policy(
            "majority-aware",
            "Greedy on gain plus one point per cell each largest majority group grows; open spots break ties.",
            MajorityAware,
        ),
        Policy(
            "planner",
            "Majority-aware greedy plus lookahead: the chance unseen cards complete the patterns it starts.",
            Planner,
        ),
        Policy("denier", "Greedy, plus what taking a card costs every opponent who grabs after it.", Denier),
    )
}
POLICIES["expert"] = replace(
    expert_policy(
        partial(expert, policies=POLICIES, default=EXPERT_PLAYOUTS),
        ROLLOUT,
        EXPERT_PLAYOUTS,
        EXPERT_CHUNK,
        ("learned",),
    ),
    restrict=RESTRICT,
)


class LearnedPlayer(learned.Learned):
    """``learned``: round 0 of its training grabs as ``planner`` (the strongest heuristic), which lays every card."""

    baseline = "planner"
    policies = POLICIES


POLICIES["learned"] = Policy(
    "learned",
    "Value network of the position after each grab; the best valued card is taken and laid as planner lays it "
    "(in the last round, where nothing is hidden, each card is played out to the final score and the best taken). "
    "Models for 2 and 4 players (default knobs, and the majority face up) ship; other settings are trained by "
    "self-play on first use and cached (BOARDLAB_TRAIN=0 refuses; training settings ours: 120,000 seat-games, "
    "so 60,000 two-player games, seed 0; 2 players then 2 rounds of expert iteration, learning from search values "
    "of the cards with the model's own playouts).",
    LearnedPlayer,
    restrict=RESTRICT,
    exploit=exploit_policy,
)
