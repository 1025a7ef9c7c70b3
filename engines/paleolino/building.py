"""Paleolino's building blocks shared by the policies and the seats: the keep rule, offers and builds one at a time.

The seat adapter (:mod:`engines.paleolino.decisions`) lets a person build through :func:`iterative_builds` as the
policies do, so these live apart from the policies.
"""

from __future__ import annotations

import numpy as np

from boardlab.engines.paleolino import kernels
from boardlab.engines.paleolino.rules import BAGS, Turn, pack


def keep_order(demand: np.ndarray) -> np.ndarray:
    """Chip types in the keep rule's order of preference given tops' ``demand``, over any leading axes."""
    flat = np.ascontiguousarray(demand, dtype=np.int64).reshape(-1, 3)
    return kernels.keep_order(flat).reshape(*demand.shape[:-1], 4)


def keep_best(
    left: np.ndarray, demand: np.ndarray, capacity: int | np.ndarray, order: np.ndarray | None = None
) -> np.ndarray:
    """The keep rule on counts, over any leading axes: chips kept out of ``left`` given tops' ``demand``.

    ``order`` is :func:`keep_order` of ``demand`` when the caller has it already.
    """
    order = keep_order(demand) if order is None else order
    counts = np.take_along_axis(left, order, axis=-1)
    before = np.cumsum(counts, axis=-1) - counts
    room = np.asarray(capacity)[..., None] if np.ndim(capacity) else capacity
    kept_sorted = np.clip(room - before, 0, counts)
    keep = np.zeros_like(left)
    np.put_along_axis(keep, order, kept_sorted, axis=-1)
    return keep


def top_demand(turn: Turn, taken: np.ndarray | None = None) -> np.ndarray:
    """Chips per resource the stack tops ask for in all (counts), after ``taken`` cards (default now)."""
    spread = turn.tables.cost_spread[turn.tops(taken)].sum(axis=1)  # one byte per resource, no carries
    return (spread[:, None] >> (8 * np.arange(3))) & 0xFF


def offers(turn: Turn) -> np.ndarray:
    """Chips each seat offers to the mover's builds, ``(B, P)`` bags; the mover's own column is 0."""
    p = turn.params
    out = np.zeros_like(turn.backpacks)
    if not p.help or turn.players == 1:
        return out
    helpers = turn.helper_seats
    if p.backpack <= p.help_chips:
        out[:, helpers] = turn.backpacks[:, helpers]
        return out
    demand = top_demand(turn)[:, None, :]
    out[:, helpers] = pack(keep_best(turn.counts(turn.backpacks[:, helpers]), demand, p.help_chips))
    return out


def keep_chips(turn: Turn, left: np.ndarray, demand: np.ndarray) -> np.ndarray:
    """The keep rule against ``demand`` (counts), as a bag; without ``backpack_swap`` the backpack's chips stay."""
    left = turn.counts(left)
    if turn.params.backpack_swap:
        return pack(keep_best(left, demand, turn.capacity))
    own = turn.counts(turn.own)
    room = turn.capacity - own.sum(axis=1)
    return pack(own + keep_best(left - own, demand, room))


def iterative_builds(turn: Turn, pick) -> np.ndarray:
    """Build one affordable top at a time, chosen by ``pick(rows, ok, tops, supply, left)``, until nothing fits.

    ``pick`` gets the rows (into the turn) that have at least one affordable top, a mask of the affordable
    stacks, the top ids, the supply left (bags) and the builds the turn still allows, and returns a stack for
    each, or -1 to stop. The supply is
    the pool and the offers together; the card under a built top is read only after it is built (a reveal).
    """
    t = turn.tables
    n, stacks = len(turn), t.stacks
    supply = turn.pool + offers(turn).sum(axis=1)
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
        active, tops, ok, index = active[any_ok], tops[any_ok], ok[any_ok], index[any_ok]
        if not len(active):
            break
        stack = pick(active, ok, tops, supply[active], left[active])
        going = stack >= 0
        active, stack, index = active[going], stack[going], index[going]
        rows = np.arange(len(active))
        supply[active] -= pay[index[rows, stack]]
        k[active, stack] += 1
        pos[active, stack] += 1
        left[active] -= 1
    return k
