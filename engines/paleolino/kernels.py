"""Compiled per-row loops of Paleolino's batched engine (numba); imports nothing from its package.

A bag is a 16-bit chip set, one 4-bit count per type (wood, stone, berry, crystal; see :mod:`.rules`). These
loops do in one pass per row what would otherwise be dozens of small array operations per turn; they compute
the very integers and floats of the array code they replace (the same operations in the same order).
"""

from __future__ import annotations

import numpy as np
from numba import njit

CRYSTAL = 3
CRYSTAL_VALUE = 100  # keep-rule value of a crystal; a resource is worth 10 + the chips of it the tops ask for


@njit(cache=True)
def _count(bag: int, kind: int) -> int:
    return (bag >> (4 * kind)) & 15


@njit(cache=True)
def _pay_row(holders: np.ndarray, need: np.ndarray, own_first: bool, takes: np.ndarray, short: np.ndarray) -> None:
    """Pay ``need`` (per resource) out of ``holders`` (counts ``(H, 4)``: middle, own, then offers) into ``takes``.

    Matching chips first, holder by holder, then crystals holder by holder, each crystal standing in first for
    what later holders cannot match; with ``own_first`` the middle and the mover's backpack do both before the
    offers are touched. ``short`` is scratch space for the resources still unpaid.
    """
    n_holders = holders.shape[0]
    takes[:] = 0
    short[:] = need
    bounds = (0, 2, n_holders) if own_first else (0, n_holders, n_holders)
    for g in range(2):
        lo, hi = bounds[g], bounds[g + 1]
        for h in range(lo, hi):
            for r in range(3):
                got = min(short[r], holders[h, r])
                takes[h, r] += got
                short[r] -= got
        for h in range(lo, hi):
            got = min(short[0] + short[1] + short[2], holders[h, CRYSTAL])
            takes[h, CRYSTAL] += got
            for r in range(3):  # first what later holders cannot match
                later = 0
                for later_h in range(hi, n_holders):
                    later += holders[later_h, r]
                covered = min(max(short[r] - later, 0), got)
                short[r] -= covered
                got -= covered
            for r in range(3):
                covered = min(short[r], got)
                short[r] -= covered
                got -= covered


@njit(cache=True)
def _holders(middle: int, own: int, offered: np.ndarray, helpers: np.ndarray, holders: np.ndarray) -> None:
    """Counts ``(H, 4)`` of the middle, the mover's backpack and each helper's offer, in that order."""
    for t in range(4):
        holders[0, t] = _count(middle, t)
        holders[1, t] = _count(own, t)
        for j in range(len(helpers)):
            holders[2 + j, t] = _count(offered[helpers[j]], t)


@njit(cache=True)
def _pack(counts: np.ndarray) -> int:
    return counts[0] + 16 * counts[1] + 256 * counts[2] + 4096 * counts[3]


@njit(cache=True)
def _write(takes: np.ndarray, mover: int, helpers: np.ndarray, out: np.ndarray) -> None:
    """Takes per holder as bags: out[0] the middle, out[1 + seat] each seat's backpack."""
    out[:] = 0
    out[0] = _pack(takes[0])
    out[1 + mover] = _pack(takes[1])
    for j in range(len(helpers)):
        out[1 + helpers[j]] = _pack(takes[2 + j])


@njit(cache=True)
def pay_in_order(
    middle: np.ndarray,
    backpacks: np.ndarray,
    offered: np.ndarray,
    need: np.ndarray,
    mover: int,
    helpers: np.ndarray,
    own_first: bool,
) -> np.ndarray:
    """Per row, bags taken from each holder (middle, then each seat) to pay ``need`` in one order (see _pay_row)."""
    n, players = backpacks.shape
    out = np.zeros((n, 1 + players), dtype=np.int64)
    takes, holders = np.zeros((2 + len(helpers), 4), np.int64), np.zeros((2 + len(helpers), 4), np.int64)
    short = np.zeros(3, np.int64)
    for i in range(n):
        _holders(middle[i], backpacks[i, mover], offered[i], helpers, holders)
        _pay_row(holders, need[i], own_first, takes, short)
        _write(takes, mover, helpers, out[i])
    return out


@njit(cache=True)
def cards_cost(deck: np.ndarray, taken: np.ndarray, k: np.ndarray, cost_spread: np.ndarray) -> np.ndarray:
    """Chips per resource ``(B, 3)`` of the ``k[i, s]`` cards under the first ``taken[i, s]`` of each stack.

    ``cost_spread`` is each card's cost as a spread bag (one byte per resource); past a stack's bottom its last
    entry (the dummy) is read.
    """
    n, stacks, depth = deck.shape
    out = np.zeros((n, 3), dtype=np.int64)
    for i in range(n):
        spread = 0
        for s in range(stacks):
            for j in range(k[i, s]):
                spread += cost_spread[deck[i, s, min(taken[i, s] + j, depth - 1)]]
        for r in range(3):
            out[i, r] = (spread >> (8 * r)) & 0xFF
    return out


@njit(cache=True)
def keep_order(demand: np.ndarray) -> np.ndarray:
    """Per row, the chip types by the keep rule's preference given the tops' ``demand`` ``(B, 3)``: ``(B, 4)``.

    A resource is worth 10 plus its demand, a crystal :data:`CRYSTAL_VALUE`; ties go to the lower type.
    """
    n = demand.shape[0]
    out = np.zeros((n, 4), dtype=np.int64)
    key = np.zeros(4, dtype=np.int64)
    for i in range(n):
        for t in range(3):
            key[t] = (10 + demand[i, t]) * 4 + (3 - t)
        key[CRYSTAL] = CRYSTAL_VALUE * 4
        for t in range(4):  # insertion sort, best first (the keys differ)
            j = t
            while j > 0 and key[out[i, j - 1]] < key[t]:
                out[i, j] = out[i, j - 1]
                j -= 1
            out[i, j] = t
    return out


@njit(cache=True)
def _kept(left: np.ndarray, order: np.ndarray, room: int, kept: np.ndarray) -> None:
    """The keep rule: up to ``room`` chips of ``left`` (counts), best type of ``order`` first, into ``kept``."""
    kept[:] = 0
    before = 0
    for j in range(4):
        t = order[j]
        kept[t] = min(max(room - before, 0), left[t])
        before += left[t]


@njit(cache=True)
def _value(chips: np.ndarray, demand: np.ndarray) -> int:
    return (
        chips[0] * (10 + demand[0])
        + chips[1] * (10 + demand[1])
        + chips[2] * (10 + demand[2])
        + (chips[CRYSTAL] * CRYSTAL_VALUE)
    )


@njit(cache=True)
def best_payment(
    middle: np.ndarray,
    backpacks: np.ndarray,
    offered: np.ndarray,
    need: np.ndarray,
    demand_after: np.ndarray,
    order: np.ndarray,
    mover: int,
    helpers: np.ndarray,
    capacity: int,
    swap: bool,
) -> np.ndarray:
    """Per row, of the two payment orders the one leaving the backpacks the more valuable chips (ties: matching).

    The value: the other seats' backpack chips plus what the mover keeps after the keep rule (``order``, its
    preference by type), each worth :func:`_value` against ``demand_after``; without ``swap`` the mover's own
    chips stay and the rule fills the room left from the middle.
    """
    n, players = backpacks.shape
    out = np.zeros((n, 1 + players), dtype=np.int64)
    option = np.zeros(1 + players, dtype=np.int64)
    takes, holders = np.zeros((2 + len(helpers), 4), np.int64), np.zeros((2 + len(helpers), 4), np.int64)
    left, kept, chips, short = (
        np.zeros(4, np.int64),
        np.zeros(4, np.int64),
        np.zeros(4, np.int64),
        np.zeros(3, np.int64),
    )
    for i in range(n):
        _holders(middle[i], backpacks[i, mover], offered[i], helpers, holders)
        best = -1
        for o in range(2):
            _pay_row(holders, need[i], o == 1, takes, short)
            _write(takes, mover, helpers, option)
            rest_middle = middle[i] - option[0]
            own = backpacks[i, mover] - option[1 + mover]
            for t in range(4):
                chips[t] = 0
                for s in range(players):
                    if s != mover:
                        chips[t] += _count(backpacks[i, s] - option[1 + s], t)
            if swap:
                for t in range(4):
                    left[t] = _count(rest_middle, t) + _count(own, t)
                _kept(left, order[i], capacity, kept)
            else:
                room = capacity
                for t in range(4):
                    left[t] = _count(rest_middle, t)
                    room -= _count(own, t)
                _kept(left, order[i], room, kept)
                for t in range(4):
                    kept[t] += _count(own, t)
            for t in range(4):
                chips[t] += kept[t]
            value = _value(chips, demand_after[i])
            if value > best:  # the second order only when strictly better
                best = value
                out[i] = option
    return out


@njit(cache=True)
def expected_caves(
    axe: np.ndarray,
    pit: np.ndarray,
    middle: np.ndarray,
    backpacks: np.ndarray,
    belief: np.ndarray,
    forgotten: np.ndarray,
    chips: np.ndarray,
    shares: np.ndarray,
) -> np.ndarray:
    """Expected chips by type in each cave, ``(B, V, 4)``: remembered ones plus the unplaced ones spread out.

    The chips not seen anywhere else (hand axe, pit, middle, backpacks, remembered in a cave) lie unplaced in
    the caves; each cave gets a part of each type's in proportion to its share times that type's chips pulled
    unplaced since it was last opened (none when no cave has any).
    """
    n, caves = belief.shape
    out = np.zeros((n, caves, 4))
    weight = np.zeros((caves, 4))
    for i in range(n):
        seen = axe[i] + pit[i] + middle[i]  # disjoint parts of the game's chips: bags add without carries
        for s in range(backpacks.shape[1]):
            seen += backpacks[i, s]
        for v in range(caves):
            seen += belief[i, v]
        for t in range(4):
            unplaced = float(chips[t] - _count(seen, t))
            total = 0.0
            for v in range(caves):
                weight[v, t] = _count(forgotten[i, v], t) * shares[v]
                total += weight[v, t]
            for v in range(caves):
                spread = weight[v, t] / total * unplaced if total > 0 else 0.0
                out[i, v, t] = _count(belief[i, v], t) + spread
    return out


@njit(cache=True)
def _shortfall(need: np.ndarray, supply: np.ndarray, extra: np.ndarray) -> float:
    """Chips short of paying ``need`` (3 resources) from ``supply`` plus ``extra`` (4 counts, crystals wild)."""
    gap = 0.0
    for r in range(3):
        gap += max(need[r] - supply[r] - extra[r], 0.0)
    return max(gap - supply[CRYSTAL] - extra[CRYSTAL], 0.0)


@njit(cache=True)
def position_features(
    axe: np.ndarray,
    pit: np.ndarray,
    middle: np.ndarray,
    backpacks: np.ndarray,
    belief: np.ndarray,
    expected: np.ndarray,
    deck: np.ndarray,
    taken: np.ndarray,
    built: np.ndarray,
    turn: np.ndarray,
    chips: np.ndarray,
    shares: np.ndarray,
    cost: np.ndarray,
    stack_len: np.ndarray,
    sets: np.ndarray,
    scalars: np.ndarray,
    out: np.ndarray,
) -> None:
    """Every row's features into ``out`` (``(B, F)`` float32), in the order :mod:`.features` documents.

    ``expected`` is :func:`expected_caves`; ``scalars``: phase, seat to act, goal, pulls, help (0/1), turn cap,
    cards in play.
    """
    n, caves = belief.shape
    players, stacks = backpacks.shape[1], deck.shape[1]
    phase, seat, goal, pulls = int(scalars[0]), int(scalars[1]), scalars[2], scalars[3]
    helps, cap, cards = scalars[4] > 0, scalars[5], int(scalars[6])
    dummy = cost.shape[0] - 1
    total_cost = np.zeros(3)
    for c in range(dummy):
        for r in range(3):
            total_cost[r] += cost[c, r]
    hand = np.zeros(4)
    lying = np.zeros(4)
    zero = np.zeros(4)
    cave_chips = np.zeros(4)
    need = np.zeros(3)
    unseen = np.zeros(3)
    rank = np.zeros(caves, dtype=np.int64)
    totals = np.zeros(caves)
    for i in range(n):
        k = 0
        for p in range(4):
            out[i, k + p] = 1.0 if p == phase else 0.0
        k += 4
        axe_chips = 0
        for t in range(4):
            a = _count(axe[i], t)
            axe_chips += a
            out[i, k + t] = a / 9.0
            lying[t] = chips[t] - a - _count(pit[i], t) - _count(middle[i], t)
            hand[t] = _count(middle[i], t)
        k += 4
        out[i, k] = axe_chips / 32.0
        out[i, k + 1] = np.ceil(axe_chips / pulls) / 16.0
        k += 2
        for t in range(4):
            out[i, k + t] = _count(middle[i], t) / 4.0
        k += 4
        for j in range(players):
            bag = backpacks[i, (seat + j) % players]
            for t in range(4):
                c = _count(bag, t)
                out[i, k + t] = c
                lying[t] -= c
                if j == 0 or helps:
                    hand[t] += c
            k += 4
        for t in range(4):
            out[i, k + t] = lying[t] / 9.0
        k += 4
        for v in range(caves):  # by expected chips (to 1e-6, so rounding decides no tie), most first, then by cave
            total = expected[i, v, 0] + expected[i, v, 1] + expected[i, v, 2] + expected[i, v, 3]
            totals[v] = np.floor(total * 1e6 + 0.5)
            j = v
            while j > 0 and totals[rank[j - 1]] < totals[v]:
                rank[j] = rank[j - 1]
                j -= 1
            rank[j] = v
        for r in range(caves):
            v = rank[r]
            for t in range(4):
                b = _count(belief[i, v], t)
                out[i, k + t] = b / 4.0
                out[i, k + 4 + t] = (expected[i, v, t] - b) / 4.0
            out[i, k + 8] = shares[v]
            k += 9
        for r in range(3):
            unseen[r] = total_cost[r]
        open_tops = 0
        for s in range(stacks):
            top = deck[i, s, taken[i, s]]
            for r in range(3):
                out[i, k + r] = cost[top, r] / 3.0
            out[i, k + 3] = (stack_len[s] - taken[i, s]) / 8.0
            k += 4
            for d in range(taken[i, s] + 1):
                for r in range(3):
                    unseen[r] -= cost[deck[i, s, d], r]
            if top != dummy:
                open_tops += 1
        for r in range(3):
            out[i, k + r] = unseen[r] / 15.0
        out[i, k + 3] = (cards - built[i] - open_tops) / 15.0
        out[i, k + 4] = built[i] / goal
        out[i, k + 5] = (goal - built[i]) / goal
        k += 6
        n_sets = sets.shape[0]
        for m in range(n_sets):
            for r in range(3):
                need[r] = 0.0
            for s in range(stacks):
                if sets[m, s]:
                    top = deck[i, s, taken[i, s]]
                    for r in range(3):
                        need[r] += cost[top, r]
            out[i, k + m] = _shortfall(need, hand, zero) / 4.0
            best = 1e9
            for v in range(caves):
                for t in range(4):
                    cave_chips[t] = _count(belief[i, v], t)
                best = min(best, _shortfall(need, hand, cave_chips))
            out[i, k + n_sets + m] = best / 4.0
        k += 2 * n_sets
        out[i, k] = turn[i] / cap
