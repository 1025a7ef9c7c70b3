"""Paleolino policies: which cave to open, what to build, which chips to keep on the backpack.

Every policy decides for a whole batch at once through three methods that read a :class:`Turn`:
``cave(turn)`` returns the cave to open per game; ``builds(turn)`` returns ``(B, S)`` counts of cards to build
from each stack (the engine pays for them; any order gives the same payment); ``store(turn, left)`` returns the
bag of chips kept on the mover's backpack out of bag ``left`` (middle plus the mover's backpack after building).
Policies see the caves only through the table's memory (``turn.belief``), never the true contents.

Shared keep rule (``greedy`` and ``planner``): keep crystals first, then the resource the stack tops ask for
most, then the other resources (ties to wood, then stone, then berry), up to the backpack's capacity.
"""

from __future__ import annotations

import numpy as np

from engines.core import Policy
from engines.paleolino.rules import BAGS, CRYSTAL, Params, Turn, keep_order, pack

CRYSTAL_VALUE = 100  # keep-rule value of a crystal; a resource is worth 10 + the chips of it the tops ask for


def keep_best(left: np.ndarray, demand: np.ndarray, capacity: int) -> np.ndarray:
    """The shared keep rule on counts, over any leading axes: chips kept out of ``left`` given tops' ``demand``."""
    value = np.concatenate([10 + demand, np.full((*demand.shape[:-1], 1), CRYSTAL_VALUE)], axis=-1)
    key = value * 4 + (3 - np.arange(4))  # ties to the lower chip type
    order = np.argsort(-key, axis=-1, kind="stable")
    counts = np.take_along_axis(left, order, axis=-1)
    before = np.cumsum(counts, axis=-1) - counts
    kept_sorted = np.clip(capacity - before, 0, counts)
    keep = np.zeros_like(left)
    np.put_along_axis(keep, order, kept_sorted, axis=-1)
    return keep


def keep_best_bags(turn: Turn, left: np.ndarray) -> np.ndarray:
    """The shared keep rule on bags, against the stack tops as they stand (one table lookup)."""
    return turn.tables.keep(turn.capacity)[keep_order(turn.demand()) * BAGS + left].astype(np.int64)


def iterative_builds(turn: Turn, pick) -> np.ndarray:
    """Build one affordable top at a time, chosen by ``pick(rows, ok, tops)``, until nothing fits or the limit.

    ``pick`` gets the rows (into the turn) that have at least one affordable top, a mask of the affordable
    stacks and the top ids, and returns a stack for each. The supply is the pool and the helpers together.
    """
    t = turn.tables
    n, stacks = len(turn), t.stacks
    supply = turn.pool + turn.helpers
    k = np.zeros((n, stacks), dtype=np.int64)
    pos = turn.taken.copy()
    left = turn.limit.copy()
    deck = turn.deck
    afford, pay = t.afford.ravel(), t.pay.ravel()
    active = np.arange(n)
    stack_ids = np.arange(stacks)
    while len(active):
        tops = deck[active[:, None], stack_ids, pos[active]].astype(np.int64)
        index = tops * BAGS + supply[active, None]
        ok = afford[index]
        any_ok = ok.any(axis=1) & (left[active] > 0)
        if not any_ok.all():
            active, tops, ok, index = active[any_ok], tops[any_ok], ok[any_ok], index[any_ok]
        if not len(active):
            break
        stack = pick(active, ok, tops)
        rows = np.arange(len(active))
        supply[active] -= pay[index[rows, stack]]
        k[active, stack] += 1
        pos[active, stack] += 1
        left[active] -= 1
    return k


class Random:
    """Open a random cave; build random affordable tops while any fits; keep random chips."""

    def __init__(self, params: Params, players: int) -> None:
        """Nothing to prepare."""
        self.params = params

    def cave(self, turn: Turn) -> np.ndarray:
        """A uniformly random cave (one draw)."""
        return turn.source.draw(turn.games, self.params.caves)[:, 0]

    def builds(self, turn: Turn) -> np.ndarray:
        """Each step, one draw picks uniformly among the affordable tops (in stack order)."""

        def pick(rows: np.ndarray, ok: np.ndarray, tops: np.ndarray) -> np.ndarray:
            r = turn.source.draw(turn.games[rows], ok.sum(axis=1))[:, 0]
            return (np.cumsum(ok, axis=1) > r[:, None]).argmax(axis=1)

        return iterative_builds(turn, pick)

    def store(self, turn: Turn, left: np.ndarray) -> np.ndarray:
        """Up to capacity times: one draw picks a uniformly random chip of those left (in type order)."""
        left = turn.counts(left)
        keep = np.zeros_like(left)
        for _ in range(turn.capacity):
            total = left.sum(axis=1)
            rows = np.flatnonzero(total > 0)
            if not len(rows):
                break
            r = turn.source.draw(turn.games[rows], total[rows])[:, 0]
            kind = (np.cumsum(left[rows], axis=1) > r[:, None]).argmax(axis=1)
            keep[rows, kind] += 1
            left[rows, kind] -= 1
        return pack(keep)


class Greedy:
    """Open the remembered cave with the most chips; build the most expensive affordable top first."""

    def __init__(self, params: Params, players: int) -> None:
        """Nothing to prepare."""
        self.params = params

    def cave(self, turn: Turn) -> np.ndarray:
        """The cave with most remembered chips; ties to the lowest cave."""
        return turn.tables.chips_in[turn.belief].argmax(axis=1)

    def builds(self, turn: Turn) -> np.ndarray:
        """Repeatedly build the affordable top costing most chips (ties to the lowest stack)."""
        size = turn.tables.size
        return iterative_builds(turn, lambda rows, ok, tops: np.where(ok, size[tops], -1).argmax(axis=1))

    def store(self, turn: Turn, left: np.ndarray) -> np.ndarray:
        """The shared keep rule, against the tops left after building."""
        return keep_best_bags(turn, left)


class Planner:
    """Open the cave and choose the builds that give the most builds now, then the best table for next turns.

    A plan is a count of cards per stack; it is scored by, in order: builds this turn; new stack tops that the
    backpacks alone could then pay for; crystals, then chips the new tops ask for, then any chips left on the
    backpacks (after the shared keep rule). Caves are scored by their best plan on remembered chips (ties: more
    remembered chips, then the lowest cave). Ties between plans go to the first in ``itertools.product`` order.
    """

    def __init__(self, params: Params, players: int) -> None:
        """Enumerate the plans for these stacks."""
        self.params = params
        self.tables = params.tables(players)
        self.combos = self.tables.combos  # (C, S)
        self.n_builds = self.combos.sum(axis=1)

    def evaluate(
        self,
        turn: Turn,
        pool: np.ndarray,
        helpers: np.ndarray,
        rows: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Best plan and its score for each pair (``pool[i]``, ``helpers[i]``) in game ``rows[i]`` of the turn.

        Every card costs at least one chip, so a plan with more cards than chips in hand cannot be paid: rows
        are grouped by that bound and only the plans within it are scored (same answer, far less work).
        """
        bound = np.minimum(pool.sum(axis=1) + helpers.sum(axis=1), turn.limit[rows])
        cost = self.tables.cost[turn.deck]  # (B, S, depth + 1, 3)
        cumcost = np.zeros_like(cost)  # cost of each stack's first k cards
        cumcost[:, :, 1:] = np.cumsum(cost[:, :, :-1], axis=2)
        best = np.zeros(len(rows), dtype=np.int64)
        score = np.zeros(len(rows), dtype=np.int64)
        for b in np.unique(bound):
            group = np.flatnonzero(bound == b)
            plans = np.flatnonzero(self.n_builds <= b)
            best_g, score[group] = self._evaluate(turn, cumcost, pool[group], helpers[group], rows[group], plans)
            best[group] = plans[best_g]
        return best, score

    def _evaluate(
        self,
        turn: Turn,
        cumcost: np.ndarray,
        pool: np.ndarray,
        helpers: np.ndarray,
        rows: np.ndarray,
        plans: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        t, combos, n_builds = self.tables, self.combos[plans], self.n_builds[plans]
        stacks = t.stacks
        taken = turn.taken[rows].astype(np.int64)  # (R, S)
        room = t.stack_len[None, :] - taken
        valid = (combos[None] <= room[:, None, :]).all(axis=2) & (n_builds[None] <= turn.limit[rows][:, None])
        pos = np.minimum(taken[:, None, :] + combos[None], t.depth)  # (R, C, S)
        cum = cumcost[rows]  # (R, S, depth + 1, 3)
        r_idx = np.arange(len(rows))[:, None, None]
        s_idx = np.arange(stacks)[None, None, :]
        need = (cum[r_idx, s_idx, pos] - cum[r_idx, s_idx, taken[:, None, :]]).sum(axis=2, dtype=np.int64)
        p, h = pool[:, None, :], helpers[:, None, :]
        from_pool = np.minimum(need, p[..., :3])
        from_helpers = np.minimum(need - from_pool, h[..., :3])
        short = (need - from_pool - from_helpers).sum(axis=2)
        feasible = short <= p[..., CRYSTAL] + h[..., CRYSTAL]
        crystal_pool = np.minimum(short, p[..., CRYSTAL])
        left_pool = p - np.concatenate([from_pool, crystal_pool[..., None]], axis=2)
        left_helpers = h - np.concatenate([from_helpers, (short - crystal_pool)[..., None]], axis=2)
        tops = turn.deck[rows][r_idx, s_idx, pos].astype(np.int64)  # (R, C, S)
        top_cost = t.cost[tops]  # (R, C, S, 3); zero for an empty stack
        demand = top_cost.sum(axis=2)
        backpacks = left_helpers + keep_best(left_pool, demand, turn.capacity)
        top_short = np.maximum(top_cost - backpacks[:, :, None, :3], 0).sum(axis=3)
        reach = ((tops != t.dummy) & (top_short <= backpacks[:, :, None, CRYSTAL])).sum(axis=2)
        useful = (backpacks[..., :3] * (demand > 0)).sum(axis=2)
        score = (
            n_builds[None] * 10**8
            + reach * 10**6
            + backpacks[..., CRYSTAL] * 10**4
            + useful * 100
            + backpacks.sum(axis=2)
        )
        score = np.where(valid & feasible, score, -1)
        best = score.argmax(axis=1)
        return best, score[np.arange(len(rows)), best]

    def cave(self, turn: Turn) -> np.ndarray:
        """The cave whose remembered chips allow the best plan."""
        n, v = len(turn), self.params.caves
        believed = turn.counts(turn.belief)  # (B, V, 4)
        pools = (believed + turn.counts(turn.own)[:, None, :]).reshape(n * v, 4)
        helpers = np.repeat(turn.counts(turn.helpers), v, axis=0)
        rows = np.repeat(np.arange(n), v)
        _, score = self.evaluate(turn, pools, helpers, rows)
        key = score.reshape(n, v) * 128 + believed.sum(axis=2)
        return key.argmax(axis=1)

    def builds(self, turn: Turn) -> np.ndarray:
        """The best plan on the chips actually in hand."""
        best, _ = self.evaluate(turn, turn.counts(turn.pool), turn.counts(turn.helpers), np.arange(len(turn)))
        return self.combos[best]

    def store(self, turn: Turn, left: np.ndarray) -> np.ndarray:
        """The shared keep rule, against the tops left after building."""
        return keep_best_bags(turn, left)


POLICIES: dict[str, Policy] = {
    "random": Policy("random", "random cave, random affordable builds while any fits, random chips kept", Random),
    "greedy": Policy("greedy", "cave with most remembered chips; most expensive affordable top first", Greedy),
    "planner": Policy("planner", "cave and builds maximising builds now, then tops the backpacks can reach", Planner),
}
"""Policies by name."""
