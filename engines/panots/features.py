"""Features of a Panots grab as one seat sees it, for the learned player's value model.

A row is a round stopped at a grab (:class:`~engines.panots.decisions.Point`), usually just after the deciding seat
took a card. Everything used is public: the sidewalks, the faces and tokens, the warehouse, the grabbing order and
the grabs so far, and the pool of unseen cards (the 72 minus every card revealed). The decks' order is hidden and
never read. Opponents enter through their elementwise maximum and their mean over the other seats, so one layout
serves every table size (solo: both zero), and relabelling the seats changes nothing. Cards are valued for every
seat as the planner values them (the point's ``counts``, ``gains`` and ``plans``), whatever policy a seat plays.

Per seat (a *block*, :data:`BLOCK` values): its VP now (majorities as they would stand if the game ended now) and
its majority VP; its largest groups of the two majority tokens (0 unless the majority face is up); this round's
card (the grabbed one; for a seat yet to grab, the best free one): its best gain, its planner value over ``8 T``
(gain, majority growth and the chance the unseen cards complete the patterns it starts), its legal placements
(log), whether it can be placed; whether the seat has grabbed; its discards. In order:

- the round over the rounds, the rounds left after it (2);
- the faces up, and their VP per occurrence over 3 (16);
- the unseen panots carrying each slot's token over 36, and all unseen panots over 144 (9);
- the opponents still to grab over the opponents, and the free cards left over the warehouse (2);
- the viewer's block, the opponents' maximum block and their mean block (``3 * BLOCK``);
- the viewer's VP, groups and card's planner value less the opponents' maximum (4); the viewer's best and second
  best planner value among the free cards left (they may come back as leftovers) (2).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardlab.engines.panots import kernels
from boardlab.engines.panots.geometry import FACES
from boardlab.engines.panots.rules import unseen_pool

BLOCK = 10  #: values per seat
N_FEATURES = 29 + 3 * BLOCK + 6
MAJORITY = FACES.index("majority")
VP_SCALE, GROUP_SCALE, GAIN_SCALE = 30.0, 20.0, 8.0  # ours: typical ranges, so the inputs are of order 1


def n_features(params: object = None, players: int = 2) -> int:
    """Length of a position's feature vector (the same for every knob setting and table size)."""
    return N_FEATURES


def round_value(values: np.ndarray, ok: np.ndarray, point: Any, has: np.ndarray) -> np.ndarray:
    """``(B, P)`` per seat: ``values`` of its grabbed card if it has grabbed, else the best over the free cards."""
    mine = np.take_along_axis(values, point.grabbed[:, :, None], axis=2)[:, :, 0]
    mine = np.where(np.take_along_axis(ok, point.grabbed[:, :, None], axis=2)[:, :, 0], mine, 0)
    free_ok = ok & point.free[:, None, :]
    best = np.where(free_ok, values, -np.inf).max(axis=2)
    return np.where(has, mine, np.where(free_ok.any(axis=2), best, 0))


def features_of(point: Any, viewer: np.ndarray) -> np.ndarray:
    """``(B, N_FEATURES)`` float32: each row of the grab ``point`` as seat ``viewer[row]`` sees it (see above)."""
    st = point.state
    n, players = st.cell.shape[:2]
    rows = np.arange(n)
    viewer = np.asarray(viewer, dtype=np.int64)
    cards = point.params.cards_per_player
    majority_up = st.vp[:, MAJORITY] > 0
    score = st.local + kernels.majorities(
        st.bits,
        st.cells.astype(np.int64),
        st.n_cells,
        st.vp,
        point.params.majority_ties == "all",
        point.params.group_diagonal,
    )
    groups = kernels.group_sizes(st.bits, st.cells.astype(np.int64), st.n_cells, point.params.group_diagonal)
    groups = groups * majority_up[:, None, None]
    pool = unseen_pool(st.seen)
    unseen = pool.sum(axis=1)
    ok = point.counts > 0  # (B, P, C)
    gains = point.gains.astype(np.float64)
    plans = point.plans / (8.0 * np.maximum(unseen, 1))[:, None, None]  # VP-like: gain + growth + completion chance
    position = np.argsort(point.order, axis=1)  # each seat's place in the grabbing order
    has = position < point.k + point.done  # (B, P)
    round_ok = round_value(ok.astype(np.float64), ok, point, has) > 0
    blocks = np.stack(
        [
            score / VP_SCALE,
            (score - st.local) / 6.0,
            groups[..., 0] / GROUP_SCALE,
            groups[..., 1] / GROUP_SCALE,
            round_value(gains, ok, point, has) / GAIN_SCALE,
            round_value(plans, ok, point, has) / GAIN_SCALE,
            np.log1p(round_value(point.counts.astype(np.float64), ok, point, has)) / 5.0,
            round_ok,
            has,
            st.discarded / 5.0,
        ],
        axis=2,
    ).astype(np.float32)  # (B, P, BLOCK)
    own = blocks[rows, viewer]
    others = np.ones((n, players), dtype=bool)
    others[rows, viewer] = False
    if players > 1:
        theirs = np.sort(blocks[others].reshape(n, players - 1, BLOCK), axis=1)  # sorted: the mean is order-blind
        top, mean = theirs.max(axis=1), theirs.mean(axis=1)
    else:
        top = mean = np.zeros((n, BLOCK), dtype=np.float32)
    slot_bits = st.slot_bits[:, :16]  # (B, 16) slot bits of each type
    per_slot = np.stack([(pool * ((slot_bits >> s) & 1)).sum(axis=1) for s in range(8)], axis=1)
    v_free = ok[rows, viewer] & point.free
    left = np.sort(np.where(v_free, plans[rows, viewer], -np.inf), axis=1)  # the viewer's plans of the free cards
    first, second = left[:, -1], left[:, -2] if left.shape[1] > 1 else np.full(n, -np.inf)
    later = ~has & others
    scalars = np.stack(
        [
            np.full(n, st.round / cards),
            np.full(n, (cards - st.round - 1) / cards),
            *(st.up[:, f] for f in range(8)),
            *(st.vp[:, f] / 3.0 for f in range(8)),
            *(per_slot[:, s] / 36.0 for s in range(8)),
            unseen / 144.0,
            later.sum(axis=1) / max(players - 1, 1),
            point.free.sum(axis=1) / point.free.shape[1],
        ],
        axis=1,
    ).astype(np.float32)
    extra = np.stack(
        [
            own[:, 0] - top[:, 0],
            own[:, 2] - top[:, 2],
            own[:, 3] - top[:, 3],
            own[:, 5] - top[:, 5],
            np.where(np.isfinite(first), first, 0) / GAIN_SCALE,
            np.where(np.isfinite(second), second, 0) / GAIN_SCALE,
        ],
        axis=1,
    ).astype(np.float32)
    return np.concatenate([scalars, own, top, mean, extra], axis=1)
