"""Pantolino's policy registry: the heuristics, the exact solution, the search and the learned player.

How a policy decides (``keep``, ``choose``, an optional whole-turn ``sampler``) and the shared token rule are
described in :mod:`engines.pantolino.heuristics`, which holds every policy that neither solves nor searches nor
learns. This module adds ``win-optimal`` (:mod:`engines.pantolino.solver`), ``expert``
(:mod:`engines.pantolino.decisions`) and ``learned`` (:mod:`engines.pantolino.learned`).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cached_property, partial

import numpy as np

from boardlab.engines.core import Policy
from boardlab.engines.expert import expert_policy, searching
from boardlab.engines.learned.exploit import exploit_policy
from boardlab.engines.pantolino import learned, solver
from boardlab.engines.pantolino.decisions import ROLLOUT, Seat
from boardlab.engines.pantolino.heuristics import HEURISTICS, TurnOptimal
from boardlab.engines.pantolino.restrictions import RESTRICTIONS, restricted
from boardlab.engines.pantolino.rules import Params, Turn
from boardlab.engines.pantolino.teacher import Taught
from boardlab.engines.restrict import restricting

EXPERT_CHUNK = 1000  # games per chunk with an expert seat: large search batches, about a minute each
#: the expert's default playouts per decision by player count: with 2 players 512 beat turn-optimal at ~50 games/s
#: on 2 cores (against win-optimal it gives up 3.2 points a game where turn-optimal gives up 5.1; rolling out with
#: learned costs more and is no better than learned: engines/README.md, "The expert"); with 3 or more a decision
#: moves a seat's chance less, and 512 only drew level, 2048 beat it
EXPERT_PLAYOUTS = {2: 512, 3: 2048}
MAX_CACHED_POSITIONS = 200_000  # win-optimal keeps (~0.7 kB each) kept per process before the cache restarts
RESTRICT = restricting(RESTRICTIONS, restricted)  # learned!never-keep-joker, expert:64@learned!never-steal, ...


class WinOptimal:
    """``win-optimal``: keeps and token from the exact 2-player solution (:mod:`engines.pantolino.solver`).

    The solution is read from the disk cache, or built once, on first use; :meth:`prepare` does it up front.
    """

    def __init__(self, params: Params) -> None:
        """Check that the exact solution covers ``params``; load nothing yet."""
        solver.check_supported(params)
        self.params, self.tables = params, params.tables
        self.cache: dict[int, np.ndarray] = {}

    def prepare(self, players: int) -> None:
        """Refuse anything but 2 players, then make sure the solution is at hand."""
        solver.check_supported(self.params, players)
        self.values  # noqa: B018 - read or build the solution now, not mid-game

    @cached_property
    def solver(self) -> solver.Solver:
        """The solver's turn machinery; its table is the cached equilibrium."""
        return solver.Solver(self.params, [solver.TABLED])

    @property
    def values(self) -> np.ndarray:
        """Win-optimal values ``(1, supplies, differences)`` (read or built on first use)."""
        return self.solver.table

    def position(self, turn: Turn) -> tuple[np.ndarray, np.ndarray]:
        """Supply and score difference (the mover's boots minus the opponent's) of each game."""
        rows = np.arange(len(turn.mover))
        difference = turn.boots[rows, turn.mover] - turn.boots[rows, 1 - turn.mover]
        return turn.supply_bits, self.solver.within(difference)

    def keep(self, turn: Turn, code: np.ndarray, rolls_left: int) -> np.ndarray:
        """The keep that maximises the chance of winning, from tables built per position and cached."""
        supply, d = self.position(turn)
        width = self.values.shape[2]
        keys = supply * width + d + self.solver.offset
        unique, inverse = np.unique(keys, return_inverse=True)
        missing = np.array([k for k in unique.tolist() if k not in self.cache], dtype=np.int64)
        if len(missing):
            if len(self.cache) + len(missing) > MAX_CACHED_POSITIONS:
                self.cache.clear()  # positions are recomputed identically when met again
            keeps = self.solver.tabled_turn(missing // width, missing % width - self.solver.offset)[0]
            self.cache.update(zip(missing.tolist(), keeps[:, 1:].astype(np.int16), strict=True))  # rolls left 1..
        rows = np.stack([self.cache[k][rolls_left - 1] for k in unique.tolist()])
        throw = self.tables.full_position[self.tables.index_of_code[code]]
        return self.tables.codes[rows[inverse, throw]]

    def choose(self, turn: Turn, throw: np.ndarray) -> np.ndarray:
        """The fitting token with the best chance of winning (near-ties go to the preferred token)."""
        supply, d = self.position(turn)
        take = self.solver.successor_values(self.values, supply, d, np.zeros(len(supply), dtype=np.int64))
        return solver.pick_token(take, self.solver.fits[throw])


WIN_OPTIMAL = Policy(
    "win-optimal",
    "Exact 2-player base-game solution (built once, cached): keeps and token maximise the chance to win.",
    WinOptimal,
)
ORDER = ("keep-jokers", "reroll-jokers", "greedy", "turn-optimal", "win-optimal", "random")  # as `simulate list` shows
POLICIES: dict[str, Policy] = {name: WIN_OPTIMAL if name == "win-optimal" else HEURISTICS[name] for name in ORDER}
POLICIES["expert"] = replace(
    expert_policy(
        partial(searching, seat=Seat, rollout=ROLLOUT, defaults=EXPERT_PLAYOUTS, policies=POLICIES),
        ROLLOUT,
        EXPERT_PLAYOUTS,
        EXPERT_CHUNK,
        ("learned",),
    ),
    restrict=RESTRICT,
)


class LearnedPlayer(learned.Learned):
    """``learned``: round 0 of its training plays ``turn-optimal``; with 3 players the best reply teaches it."""

    baseline = TurnOptimal
    teacher = Taught


POLICIES["learned"] = Policy(
    "learned",
    "Value network of the position after each token; keeps by the exact turn programme over those values. Models "
    "for 2-4 players and 2-player escaping boots ship; others are trained on first use and cached (BOARDLAB_TRAIN=0 "
    "refuses; training settings ours, seed 0): with 3 players in the base game fitted to the exact best reply to two "
    "turn-optimal players (a solve of about three minutes, then 60,000 games); elsewhere by self-play, 60,000 games "
    "with 2 players, 20,000 with more, fewer for a setting costlier to train.",
    LearnedPlayer,
    restrict=RESTRICT,
    exploit=exploit_policy,
)
