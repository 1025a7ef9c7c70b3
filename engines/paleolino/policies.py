"""Paleolino policies: which cave to open, what to build, how to pay, which chips to keep on the backpack.

Every policy decides for a whole batch at once through four methods that read a :class:`Turn`:
``cave(turn)`` returns the cave to open per game; ``builds(turn)`` returns ``(B, S)`` counts of cards to build
from each stack; ``pay(turn, k)`` returns the chips taken from each holder (middle, then each seat's backpack)
to pay for them; ``store(turn, left)`` returns the bag of chips kept on the mover's backpack out of bag ``left``
(middle plus the mover's backpack after building). Policies see the caves only through public information (what
the table remembers and which chips it saw fall unplaced), and of each stack only its top: a card below is read
only once the policy has committed to building the cards above it (it is then revealed).

Shared rules. Offers: another seat offers its whole backpack when it may give that many chips, else the chips the
keep rule ranks first. Builds are tracked one card at a time, each paid matching chips first (optimal for what
can still be afforded). Keep rule: crystals first, then the resource the stack tops ask for most, then the other
resources (ties to wood, then stone, then berry), up to the backpack's room; without ``backpack_swap`` the chips
already on the backpack stay. Payment (``greedy``, ``planner``): of two orders, matching chips from any holder
before crystals, or the mover's own chips (matching, then crystals) before any help, the one that leaves the
backpacks the more valuable chips after the keep rule (crystal 100, resource 10 + chips the new tops ask for).
"""

from __future__ import annotations

import dataclasses
import itertools
from functools import lru_cache, partial

import numpy as np

from boardlab.engines.core import Policy
from boardlab.engines.expert import expert_policy
from boardlab.engines.paleolino import kernels, learned
from boardlab.engines.paleolino.building import iterative_builds, keep_chips, keep_order, offers, top_demand
from boardlab.engines.paleolino.decisions import BUDGET, PLAYOUTS, ROLLOUT, ROLLOUTS, expert, parse_budget
from boardlab.engines.paleolino.restrictions import RESTRICTIONS, restricted
from boardlab.engines.paleolino.rules import CRYSTAL, Params, Tables, Turn, bag_tables, cards_cost, pack
from boardlab.engines.restrict import restricting

EXPERT_CHUNK = 200  # games per chunk with an expert seat: large search batches, about a minute each
RESTRICT = restricting(RESTRICTIONS, restricted)  # learned!never-store, expert:64@learned!fullest-cave, ...


def cards_need(turn: Turn, k: np.ndarray) -> np.ndarray:
    """Chips per resource of the cards ``k`` builds (counts ``(B, 3)``; the cards are revealed as built)."""
    return cards_cost(turn.tables, turn.deck, turn.taken, k)


def pay_in_order(turn: Turn, k: np.ndarray, own_first: bool) -> np.ndarray:
    """Takes per holder (middle, then each seat) paying for ``k``: see the module docstring for the two orders.

    Holders in order: the middle, the mover's backpack, the offers of the other seats in turn order after the
    mover. ``own_first`` pays from the middle and the mover's backpack (matching, then crystals) before any help.
    """
    middle = turn.state.middle[turn.rows].astype(np.int64)
    helpers = np.array(turn.helper_seats, dtype=np.int64)
    return kernels.pay_in_order(
        middle, turn.backpacks, offers(turn), cards_need(turn, k), turn.mover, helpers, own_first
    )


def best_payment(turn: Turn, k: np.ndarray, demand_after: np.ndarray) -> np.ndarray:
    """Of the two payment orders, the one leaving the backpacks the more valuable chips (ties: matching first)."""
    return kernels.best_payment(
        turn.state.middle[turn.rows].astype(np.int64),
        turn.backpacks,
        offers(turn),
        cards_need(turn, k),
        demand_after,
        keep_order(demand_after),
        turn.mover,
        np.array(turn.helper_seats, dtype=np.int64),
        turn.capacity,
        turn.params.backpack_swap,
    )


class Random:
    """Open a random cave; build random affordable tops while any fits; pay matching chips first; keep at random."""

    def __init__(self, params: Params) -> None:
        """Nothing to prepare."""
        self.params = params

    def cave(self, turn: Turn) -> np.ndarray:
        """A uniformly random cave (one draw)."""
        return turn.source.draw(turn.games, self.params.caves)[:, 0]

    def builds(self, turn: Turn) -> np.ndarray:
        """Each step, one draw picks uniformly among the affordable tops (in stack order)."""

        def pick(
            rows: np.ndarray, ok: np.ndarray, tops: np.ndarray, supply: np.ndarray, left: np.ndarray
        ) -> np.ndarray:
            r = turn.source.draw(turn.games[rows], ok.sum(axis=1))[:, 0]
            return (np.cumsum(ok, axis=1) > r[:, None]).argmax(axis=1)

        return iterative_builds(turn, pick)

    def pay(self, turn: Turn, k: np.ndarray) -> np.ndarray:
        """Matching chips from any holder before crystals."""
        return pay_in_order(turn, k, own_first=False)

    def store(self, turn: Turn, left: np.ndarray) -> np.ndarray:
        """Up to the room left, one draw per chip picks a uniformly random chip (in type order)."""
        own = turn.counts(turn.own) if not self.params.backpack_swap else np.zeros((len(turn), 4), dtype=np.int64)
        left = turn.counts(left) - own
        keep = own.copy()
        for _ in range(turn.capacity):
            total = left.sum(axis=1)
            rows = np.flatnonzero((total > 0) & (keep.sum(axis=1) < turn.capacity))
            if not len(rows):
                break
            r = turn.source.draw(turn.games[rows], total[rows])[:, 0]
            kind = (np.cumsum(left[rows], axis=1) > r[:, None]).argmax(axis=1)
            keep[rows, kind] += 1
            left[rows, kind] -= 1
        return pack(keep)


class Greedy:
    """Open the cave with the most expected chips; build the most expensive affordable top first."""

    def __init__(self, params: Params) -> None:
        """Nothing to prepare."""
        self.params = params

    def cave(self, turn: Turn) -> np.ndarray:
        """The cave with most expected chips (remembered plus forgotten ones placed); ties to the lowest cave."""
        expected = turn.expected()  # the four types added in order, as a sum over the last axis would
        return (expected[:, :, 0] + expected[:, :, 1] + expected[:, :, 2] + expected[:, :, 3]).argmax(axis=1)

    def builds(self, turn: Turn) -> np.ndarray:
        """Repeatedly build the affordable top costing most chips (ties to the lowest stack)."""
        size = turn.tables.size
        return iterative_builds(turn, lambda rows, ok, tops, supply, left: np.where(ok, size[tops], -1).argmax(axis=1))

    def pay(self, turn: Turn, k: np.ndarray) -> np.ndarray:
        """The better of the two payment orders."""
        return best_payment(turn, k, top_demand(turn, turn.taken + k))

    def store(self, turn: Turn, left: np.ndarray) -> np.ndarray:
        """The keep rule, against the tops left after building."""
        return keep_chips(turn, left, top_demand(turn))


@lru_cache(maxsize=8)
def visible_sets(stacks: int) -> tuple[np.ndarray, np.ndarray]:
    """Every set of visible tops, at most one per stack, ``(M, S)`` 0/1, and the cards in each ``(M,)``."""
    subsets = np.array(list(itertools.product((0, 1), repeat=stacks)), dtype=np.int64)
    return subsets, subsets.sum(axis=1)


class Planner:
    """Plan over the visible tops, replanning after each reveal; cave by sure builds, then expected chips.

    Builds: every set of visible tops (at most one per stack) that the pool and the offers can pay for is scored
    by, in order: cards built; chips spent (dear cards while they can be paid); other visible tops the chips left
    could still pay for; crystals left; chips left that the remaining tops ask for; chips left. The lowest stack
    of the best set is built, its next card is revealed, and the planner plans again. Cave: the most sure builds
    on remembered chips, then the most expected chips weighted by use (crystal 2, a resource the tops ask for 1,
    another 1/2), then the lowest cave. Keeps aware of the other backpacks: the keep rule weighs each resource by
    the tops' demand less what the other backpacks hold. Payment: the better of the two orders. On the last turn
    (empty hand axe) only builds count.
    """

    def __init__(self, params: Params) -> None:
        """Nothing to prepare: the sets of visible tops depend on the table's stacks (:func:`visible_sets`)."""
        self.params = params

    def score(self, t: Tables, tops: np.ndarray, supply: np.ndarray, limit: np.ndarray, last: np.ndarray) -> np.ndarray:
        """Score of every set of visible tops ``(R, M)`` (-1: not affordable) for ``supply`` counts ``(R, 4)``.

        ``t`` is the table's cards; on a ``last`` turn only the cards built count.
        """
        subsets, n_cards = visible_sets(t.stacks)
        cost = t.cost[tops]  # (R, S, 3)
        real = tops != t.dummy
        valid = ((subsets[None] <= real[:, None, :]).all(axis=2)) & (n_cards[None] <= limit[:, None])
        need = (subsets[None, :, :, None] * cost[:, None]).sum(axis=2)  # (R, M, 3)
        matching = np.minimum(need, supply[:, None, :3])
        short = (need - matching).sum(axis=2)
        valid &= short <= supply[:, None, CRYSTAL]
        left = supply[:, None, :] - np.concatenate([matching, short[..., None]], axis=2)  # (R, M, 4)
        rest = (1 - subsets)[None] * real[:, None, :]  # visible tops not in the set
        gap = np.maximum(cost[:, None] - left[:, :, None, :3], 0).sum(axis=3)  # (R, M, S)
        reach = ((gap <= left[:, :, None, CRYSTAL]) & (rest > 0)).sum(axis=2)
        demand = (rest[..., None] * cost[:, None]).sum(axis=2)
        useful = np.minimum(left[..., :3], demand).sum(axis=2)
        spent = need.sum(axis=2)
        extras = spent * 10**8 + reach * 10**6 + left[..., CRYSTAL] * 10**4 + useful * 100 + left.sum(axis=2)
        value = n_cards[None] * 10**10 + np.where(last[:, None], 0, extras)
        return np.where(valid, value, -1)

    def builds(self, turn: Turn) -> np.ndarray:
        """Build the lowest stack of the best set of visible tops, then plan again with the next card shown."""
        counts = bag_tables()[0]

        def pick(
            rows: np.ndarray, ok: np.ndarray, tops: np.ndarray, supply: np.ndarray, left: np.ndarray
        ) -> np.ndarray:
            score = self.score(turn.tables, tops, counts[supply].astype(np.int64), left, turn.axe_chips[rows] == 0)
            best = visible_sets(turn.tables.stacks)[0][score.argmax(axis=1)]
            return np.where(best.any(axis=1), best.argmax(axis=1), -1)

        return iterative_builds(turn, pick)

    def cave(self, turn: Turn) -> np.ndarray:
        """Most sure builds on remembered chips, then most use-weighted expected chips, then the lowest cave."""
        n, v = len(turn), self.params.caves
        believed = turn.counts(turn.belief)  # (B, V, 4)
        supply = believed + turn.counts(turn.own + offers(turn).sum(axis=1))[:, None, :]
        tops = turn.tops()
        score = self.score(
            turn.tables,
            np.repeat(tops, v, axis=0),
            supply.reshape(n * v, 4),
            np.repeat(turn.limit, v),
            np.repeat(turn.axe_chips == 0, v),
        )
        cards = visible_sets(turn.tables.stacks)[1]
        sure = cards[score.argmax(axis=1)].reshape(n, v) * (score.max(axis=1) >= 0).reshape(n, v)
        demand = top_demand(turn)
        weight = np.concatenate([np.where(demand > 0, 1.0, 0.5), np.full((n, 1), 2.0)], axis=1)
        worth = (turn.expected() * weight[:, None, :]).sum(axis=2)
        key = sure * 1000.0 + np.round(worth, 9)
        return key.argmax(axis=1)

    def pay(self, turn: Turn, k: np.ndarray) -> np.ndarray:
        """The better of the two payment orders."""
        return best_payment(turn, k, top_demand(turn, turn.taken + k))

    def store(self, turn: Turn, left: np.ndarray) -> np.ndarray:
        """The keep rule against the tops' demand less the chips on the other backpacks."""
        others = turn.counts(turn.backpacks).sum(axis=1) - turn.counts(turn.own)
        return keep_chips(turn, left, np.maximum(top_demand(turn) - others[:, :3], 0))


POLICIES: dict[str, Policy] = {
    "random": Policy("random", "random cave, random affordable builds while any fits, random chips kept", Random),
    "greedy": Policy("greedy", "cave with most expected chips; most expensive affordable top first", Greedy),
    "planner": Policy(
        "planner",
        "cave by sure builds then expected chips; builds the best set of visible tops, replanning after each reveal",
        Planner,
    ),
}
"""Policies by name."""
POLICIES["expert"] = dataclasses.replace(  # the default budget depends on memory (decisions.default_playouts)
    expert_policy(partial(expert, policies=POLICIES), ROLLOUT, PLAYOUTS, EXPERT_CHUNK, ROLLOUTS),
    argument=BUDGET,
    parse_arg=parse_budget,
    restrict=RESTRICT,
)


class LearnedPlayer(learned.Learned):
    """``learned``: round 0 of its training plays the planner; decision points resolve names in ``POLICIES``.

    The planner, not greedy: it is the strongest heuristic and builds for the learned player too, so round 0's
    positions are those a good table meets.
    """

    baseline = ROLLOUT
    policies = POLICIES


POLICIES["learned"] = Policy(
    "learned",
    "Value network of the position after each cave (its unremembered chips redrawn from public information) and "
    "each keep; the best valued is played; builds and payment as the planner. The 2-player models for memory 0 "
    "and 1 and the 3-player one for memory 1 ship; other knobs are trained by self-play on first use and cached "
    "(BOARDLAB_TRAIN=0 refuses; training settings ours).",
    LearnedPlayer,
    restrict=RESTRICT,
)
