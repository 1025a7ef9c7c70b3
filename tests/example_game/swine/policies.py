"""Swine's policies: hold or roll, for a whole batch of rows at once (``decide(view) -> (B,) bool``, True: roll).

The engine asks only where holding is legal (the turn's total is above zero).
"""

from __future__ import annotations

import dataclasses
from functools import partial

import numpy as np

from boardlab.engines.core import Policy
from boardlab.engines.expert import expert_policy, searching
from boardlab.engines.restrict import restricting
from swine import learned
from swine.decisions import ROLLOUT, Seat
from swine.restrictions import RESTRICTIONS, restricted
from swine.rules import Params, View
from swine.solver import MAX_TARGET, WinOptimal

EXPERT_PLAYOUTS = 64  # the expert's default playouts per decision
EXPERT_CHUNK = 500  # games per chunk with an expert seat
RESTRICT = restricting(RESTRICTIONS, restricted)  # win-optimal!never-hold-under-25, expert!never-roll-at-25, ...


class Random:
    """Hold or roll with even odds (one uniform from the row's stream)."""

    def __init__(self, params: Params) -> None:
        self.params = params

    def decide(self, view: View) -> np.ndarray:
        """Roll when the row's uniform is below one half."""
        return view.source.uniform(view.state.game)[:, 0] < 0.5


class HoldAt:
    """Roll until the turn's total reaches ``threshold``, or would win the game if banked."""

    def __init__(self, params: Params, threshold: int) -> None:
        self.params, self.threshold = params, threshold

    def decide(self, view: View) -> np.ndarray:
        """Roll while under the threshold and short of the target."""
        total = view.state.total
        return (total < self.threshold) & (view.own + total < self.params.target)


class Chase:
    """Hold at 20, at 25 when behind; when an opponent is within 10 of the target, roll until reaching it."""

    def __init__(self, params: Params) -> None:
        self.params = params

    def decide(self, view: View) -> np.ndarray:
        """The threshold for each row's situation, then as :class:`HoldAt`."""
        need = self.params.target - view.own
        other = view.best_other
        threshold = np.where(self.params.target - other <= 10, need, np.where(view.own < other, 25, 20))
        return (view.state.total < threshold) & (view.state.total < need)


POLICIES: dict[str, Policy] = {
    "random": Policy("random", "holds or rolls with even odds.", Random),
    "hold-at-20": Policy(
        "hold-at-20", "rolls until the turn's total reaches 20 (or would win).", partial(HoldAt, threshold=20)
    ),
    "hold-at-10": Policy(
        "hold-at-10", "rolls until the turn's total reaches 10 (or would win).", partial(HoldAt, threshold=10)
    ),
    "chase": Policy("chase", "holds at 20, at 25 when behind, and goes for the win when an opponent is close.", Chase),
    "win-optimal": Policy(
        "win-optimal",
        f"the exact solution: holds or rolls to maximise its chance to win (2 players, targets up to {MAX_TARGET}).",
        WinOptimal,
        restrict=RESTRICT,
    ),
}


class LearnedPlayer(learned.Learned):
    """``learned``: round 0 of its training plays ``chase``; decision points resolve names in ``POLICIES``."""

    baseline = "chase"
    policies = POLICIES


POLICIES["learned"] = Policy(
    "learned",
    "a value network of the position after holding and after rolling; the better is played (a hold that wins, "
    "always). The 2-player model ships; other settings train by self-play on first use, in seconds.",
    LearnedPlayer,
    restrict=RESTRICT,
)
POLICIES["expert"] = dataclasses.replace(
    expert_policy(
        partial(searching, seat=Seat, rollout=ROLLOUT, defaults=EXPERT_PLAYOUTS, policies=POLICIES),
        ROLLOUT,
        EXPERT_PLAYOUTS,
        EXPERT_CHUNK,
        ("learned",),  # expert:N@learned plays out with the learned player
    ),
    restrict=RESTRICT,
)
