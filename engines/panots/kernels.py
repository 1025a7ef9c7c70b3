"""Compiled (numba) kernels of the batched Panots engine: legal placements, their values, placing, final scoring.

Numpy alone stays below the engine's speed bar (see ``README.md``), so the per-step work loops over the rows of the
batch here; :mod:`engines.panots.rules` keeps the draft, the policies and every chance event in numpy.

Per game ``b`` and seat ``s`` the sidewalk is a flat ``GRID * GRID`` board (row-major) in three arrays:

* ``cell`` uint8: panot type 0..15, ``EMPTY`` (16) for an empty cell;
* ``bits`` uint8: slot bits of the cell's panot (0 empty; a placed panot always carries two tokens, so two bits);
* ``nbc`` uint8: occupied orthogonal neighbours, 0..4.

A placement is ``at = d * GRID * GRID + p``: first panot on flat cell ``p``, second on ``p + STEP[d]``; ordering
placements by ``at`` is the ``(d, row, col)`` order of the reference engine, which breaks ties.

Legality works on *bit rows*: int64 masks of one grid row, bit ``c`` = column ``c`` (``GRID`` <= 62).

The gain of placing slot bits ``a`` on ``p`` and ``b`` on ``q`` splits into ``single(p, a) + single(q, b) +
joint(p, q, a, b)``: ``single`` counts the instances through one new cell (one through the other new cell sees it
empty on the current board and cannot match) plus the surrounded / free changes, ``joint`` the instances through
both. ``single`` reads a per-cell *summary* (:func:`_summarise`, computed once per cell and seat) of the VP each
combination of slots on the cell would score; ``joint`` reads per-card *terms* (:func:`_joint_terms`): the VP the
card's two panots score together and, per line / L through both, the slots its third cell needs.

Numba freezes the module constants below into its cached machine code and keys the cache on this file only:
after changing ``geometry.py``, touch this file (or clear ``__pycache__``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardlab.engines.panots.geometry import (
    CARDS,
    DIRS,
    EMPTY,
    FACES,
    GRID,
    MATCH16,
    PAIR_SHAPES,
    SPACE_DIAGONAL,
    START,
    TRIPLE_SHAPES,
    UNPLACEABLE,
    UNPLACEABLE_VALUE,
    instances_touching,
)

CELLS = GRID * GRID
FULL = (1 << GRID) - 1  # every column of a bit row
STEP = np.array([dr * GRID + dc for dr, dc in DIRS], dtype=np.int64)  # flat offset of each direction
FIRST = START[0] * GRID + START[1]  # the canonical first placement: d = 0 at START
LINE, L, SURROUNDED, FREE, ADJACENT, DIAGONAL, SPACE, MAJORITY = range(8)  # face indices (FACES order)
SPACE_DIAG = SPACE_DIAGONAL  # the internal ninth face: 'one space between' read diagonally (slots 6, 7)
LOCAL = (LINE, L, ADJACENT, DIAGONAL, SPACE, SPACE_DIAG)  # faces scored by local patterns
PATTERNS = {
    **{FACES.index(name): shapes for name, shapes in {**TRIPLE_SHAPES, **PAIR_SHAPES}.items()},
    SPACE_DIAG: (((0, 0), (2, 2)), ((0, 0), (2, -2))),
}
SLOT = np.array([0, 0, 3, 3, 4, 4, 6, 0, 6], dtype=np.int64)  # first slot of each face (lines/Ls use 0, 1, 2)
NEIGHBOURS = np.array([dr * GRID + dc for dr, dc in (*DIRS, (1, 1), (1, -1), (-1, 1), (-1, -1))], dtype=np.int64)
GAIN, MAJORITY_AWARE, PLANNER = 0, 1, 2  # what a seat's policy values (see :func:`_value`)


def _rows(faces: list[int], cells: list[tuple[int, int]], both: bool) -> np.ndarray:
    """Instances of ``faces`` touching ``cells`` (all of them if ``both``) as rows ``(face, o0, o1, o2)``.

    ``o*`` are flat offsets from the cell ``(0, 0)`` in path order (end, middle, end); pairs leave ``o2 = 0``.
    """
    out = []
    for f in faces:
        for inst in instances_touching(PATTERNS[f], cells):
            if not both or all(c in inst for c in cells):
                offs = [r * GRID + c for r, c in inst]
                out.append([f, *offs, *[0] * (3 - len(offs))])
    return np.array(out, dtype=np.int64).reshape(-1, 4)


def _per_direction(faces: list[int], both: bool) -> tuple[np.ndarray, np.ndarray]:
    """``(4, n, 4)`` instance rows per direction ``d`` for the new cells ``(0, 0)`` and ``DIRS[d]``, and counts."""
    rows = [_rows(faces, [(0, 0), DIRS[d]], both) for d in range(4)]
    table = np.zeros((4, max(len(r) for r in rows), 4), dtype=np.int64)
    for d, r in enumerate(rows):
        table[d, : len(r)] = r
    return table, np.array([len(r) for r in rows], dtype=np.int64)


ONE = _rows(list(LOCAL), [(0, 0)], False)  # instances through one cell, grouped by face
TWO, TWO_N = _per_direction(list(LOCAL), True)  # instances through both new cells, per direction
POT, POT_N = _per_direction(list(LOCAL), False)  # instances touching either new cell (the planner's potential)


def _around_one() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``ONE`` regrouped for :func:`_summarise`.

    Lines and Ls (``f`` = LINE, L) with the cell at an end: ``END[f, e, :END_N[f, e]]`` the other end's offsets
    when the middle is the neighbour in direction ``e``; with the cell in the middle: ``MID[f, :MID_N[f]]`` the two
    ends' offsets. ``PARTNER[f - ADJACENT]``: the 4 partners' offsets of the pair faces.
    """
    end, end_n = np.zeros((2, 4, 2), np.int64), np.zeros((2, 4), np.int64)
    mid, mid_n = np.zeros((2, 4, 2), np.int64), np.zeros(2, np.int64)
    partner, partner_n = np.zeros((5, 4), np.int64), np.zeros(5, np.int64)
    for f, o0, o1, o2 in ONE.tolist():
        if f >= ADJACENT:
            partner[f - ADJACENT, partner_n[f - ADJACENT]] = o1 if o0 == 0 else o0
            partner_n[f - ADJACENT] += 1
        elif o1 == 0:
            mid[f, mid_n[f]] = o0, o2
            mid_n[f] += 1
        else:
            e = STEP.tolist().index(o1)
            end[f, e, end_n[f, e]] = o2 if o0 == 0 else o0
            end_n[f, e] += 1
    return end, end_n, mid, mid_n, partner


END, END_N, MID, MID_N, PARTNER = _around_one()


# --- patterns ----------------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _match(face: int, x: int, y: int, z: int) -> int:
    """1 when slot bits ``x, y, z`` make an occurrence of ``face``.

    Lines and Ls: a path matching slots 0, 1, 2 in order, read either way; adjacent / diagonal: slots 4 and 5 in
    either order, space: slots 6 and 7 (``z`` unused).
    """
    if face <= L:
        return (((x & (z >> 2)) | (z & (x >> 2))) & (y >> 1)) & 1
    s = SLOT[face]
    return (((x >> s) & (y >> (s + 1))) | ((x >> (s + 1)) & (y >> s))) & 1


@njit(cache=True)
def _summarise(bits: np.ndarray, nbc: np.ndarray, x: int, vp: np.ndarray, out: np.ndarray) -> None:
    """Summary ``out (16,)`` of the VP at stake around the empty cell ``x``, for :func:`_single`.

    ``out[0:4]``: lines / Ls with ``x`` at an end (the middle carrying slot 1), indexed by which of slots 0 and 2
    ``x`` carries (bit 0: slot 0, the other end then needing slot 2; bit 1: slot 2, the other end needing 0);
    ``out[4]``: lines / Ls with ``x`` in the middle and ends matching slots 0 and 2 (either way);
    ``out[5]``: surrounded / free VP of a slot-3 panot on ``x`` (its twin adds a neighbour);
    ``out[6]``: change of the neighbours' surrounded / free VP;
    ``out[8:12]``, ``out[12:16]``: pairs of slots 4, 5 and 6, 7 indexed by which of the two slots ``x`` carries.
    Every entry is in VP (faces that are down weigh 0).
    """
    out[:] = 0
    for f in (LINE, L):
        if vp[f] == 0:
            continue
        for e in range(4):
            if (bits[x + STEP[e]] >> 1) & 1:  # x at an end, the middle carrying slot 1
                for j in range(END_N[f, e]):
                    w = bits[x + END[f, e, j]]  # the other end: slot 2 if x carries 0, 0 if x carries 2
                    out[1] += vp[f] * ((w >> 2) & 1)
                    out[2] += vp[f] * (w & 1)
                    out[3] += vp[f] * ((w | (w >> 2)) & 1)
        for j in range(MID_N[f]):  # x in the middle
            u, w = bits[x + MID[f, j, 0]], bits[x + MID[f, j, 1]]
            out[4] += vp[f] * (((u & (w >> 2)) | (w & (u >> 2))) & 1)
    for f in (ADJACENT, DIAGONAL, SPACE, SPACE_DIAG):
        if vp[f] == 0:
            continue
        base = 8 if f < SPACE else 12
        for j in range(4):  # the partner carrying slot s + 1 (x carries s), s (x carries s + 1), either
            y = bits[x + PARTNER[f - ADJACENT, j]] >> SLOT[f]
            out[base + 1] += vp[f] * ((y >> 1) & 1)
            out[base + 2] += vp[f] * (y & 1)
            out[base + 3] += vp[f] * ((y | (y >> 1)) & 1)
    n = nbc[x]
    out[5] = vp[SURROUNDED] * (n == 3) + vp[FREE] * (n == 0)
    for e in range(4):
        y = x + STEP[e]
        if (bits[y] >> 3) & 1:  # a slot-3 neighbour gains a neighbour
            out[6] += vp[SURROUNDED] * (nbc[y] == 3) - vp[FREE] * (nbc[y] == 1)


@njit(cache=True, inline="always")
def _single(summary: np.ndarray, xb: int) -> int:
    """VP gained on an empty cell (summarised by :func:`_summarise`) by a panot with slot bits ``xb``.

    Counts the instances through the cell, its own surrounded / free VP and its neighbours' change.
    """
    return (
        summary[(xb & 1) | ((xb >> 1) & 2)]
        + ((xb >> 1) & 1) * summary[4]
        + ((xb >> 3) & 1) * summary[5]
        + summary[6]
        + summary[8 + ((xb >> 4) & 3)]
        + summary[12 + ((xb >> 6) & 3)]
    )


@njit(cache=True, inline="always")
def _at(bits: np.ndarray, p: int, o: int, q_off: int, ab: int, bb: int) -> int:
    """Slot bits at offset ``o`` from ``p`` once ``ab`` lies on ``p`` and ``bb`` on ``p + q_off``."""
    if o == 0:
        return ab
    if o == q_off:
        return bb
    return bits[p + o]


@njit(cache=True)
def _joint_terms(ab: int, bb: int, vp: np.ndarray, out: np.ndarray) -> None:
    """The instances through both new cells of a card with slot bits ``ab`` (first) and ``bb`` (second).

    Per direction ``d``: ``out[d, 0] = (VP of the pairs, n, 0)``; then ``n`` rows ``(offset, mask, VP)`` for the
    lines / Ls whose third cell, at flat ``offset`` from the first panot, completes them when its slot bits meet
    ``mask``.
    """
    for d in range(4):
        q_off, n, certain = STEP[d], 0, 0
        for i in range(TWO_N[d]):
            f = TWO[d, i, 0]
            if vp[f] == 0:
                continue
            o0, o1, o2 = TWO[d, i, 1], TWO[d, i, 2], TWO[d, i, 3]
            if f >= ADJACENT:  # the pair (p, q) itself
                certain += vp[f] * _match(f, ab if o0 == 0 else bb, ab if o1 == 0 else bb, 0)
                continue
            # lines / Ls: the cell that is neither p nor q gets 0 here
            x = ab if o0 == 0 else bb if o0 == q_off else 0
            y = ab if o1 == 0 else bb if o1 == q_off else 0
            z = ab if o2 == 0 else bb if o2 == q_off else 0
            if o1 != 0 and o1 != q_off:  # the middle must carry slot 1 when the ends match
                third, mask = o1, 2 * (((x & (z >> 2)) | (z & (x >> 2))) & 1)
            else:  # an end: slot 2 when the other end has 0, slot 0 when it has 2 (given the middle has 1)
                third, e = (o0, z) if o0 != 0 and o0 != q_off else (o2, x)
                mask = ((y >> 1) & 1) * (((e >> 2) & 1) | ((e & 1) << 2))
            if mask:
                n += 1
                out[d, n, 0], out[d, n, 1], out[d, n, 2] = third, mask, vp[f]
        out[d, 0, 0], out[d, 0, 1] = certain, n


@njit(cache=True, inline="always")
def _joint(terms: np.ndarray, bits: np.ndarray, p: int) -> int:
    """VP of the instances through both new cells of a placement with its first panot on ``p``.

    ``terms`` are those of the placement's direction, from :func:`_joint_terms`.
    """
    total = terms[0, 0]
    for i in range(1, terms[0, 1] + 1):
        total += terms[i, 2] * ((bits[p + terms[i, 0]] & terms[i, 1]) != 0)
    return total


@njit(cache=True)
def _gain(bits: np.ndarray, nbc: np.ndarray, at: int, ab: int, bb: int, vp: np.ndarray) -> int:
    """Objective VP gained (majorities excluded) by slot bits ``ab`` and ``bb`` at placement ``at``."""
    p, q = at % CELLS, at % CELLS + STEP[at // CELLS]
    summary, terms = np.empty(16, dtype=np.int64), np.empty((4, TWO.shape[1] + 1, 3), dtype=np.int64)
    _summarise(bits, nbc, p, vp, summary)
    total = _single(summary, ab)
    _summarise(bits, nbc, q, vp, summary)
    _joint_terms(ab, bb, vp, terms)
    return total + _single(summary, bb) + _joint(terms[at // CELLS], bits, p)


@njit(cache=True)
def _open_edges(cell: np.ndarray, at: int, a: int, b: int) -> int:
    """Empty neighbours of the new panots (types ``a``, ``b`` at placement ``at``) that some type could still fill."""
    p = at % CELLS
    q = p + STEP[at // CELLS]
    total = 0
    for x, t in ((p, a), (q, b)):
        for e in range(4):
            y = x + STEP[e]
            if y in (p, q) or cell[y] != EMPTY:
                continue
            allowed = MATCH16[t]  # the other new cell is never next to y (no triangles on a grid)
            for e2 in range(4):
                allowed &= MATCH16[cell[y + STEP[e2]]]
            total += allowed != 0
    return total


@njit(cache=True, inline="always")
def _type_at(cell: np.ndarray, y: int, p: int, q: int, a: int, b: int) -> int:
    """Panot type on ``y`` once ``a`` lies on ``p`` and ``b`` on ``q``."""
    if y == p:
        return a
    if y == q:
        return b
    return cell[y]


@njit(cache=True, inline="always")
def _completions(
    f: int, hole: int, s0: int, s1: int, s2: int, allowed: int, slot_bits: np.ndarray, vp: np.ndarray, pool: np.ndarray
) -> int:
    """VP x unseen panots (types in ``allowed``) that complete an instance of ``f`` whose cell ``hole`` is empty.

    ``s0, s1, s2`` are the slot bits of the instance's cells in path order (the hole's ignored).
    """
    total = 0
    for t in range(16):
        if pool[t] == 0 or not (allowed >> t) & 1:
            continue
        u = slot_bits[t]
        total += vp[f] * pool[t] * _match(f, u if hole == 0 else s0, u if hole == 1 else s1, u if hole == 2 else s2)
    return total


@njit(cache=True)
def _potential(
    cell: np.ndarray, slot_bits: np.ndarray, at: int, a: int, b: int, vp: np.ndarray, pool: np.ndarray
) -> int:
    """Sum over the instances touching the new cells with exactly one empty cell of VP x unseen panots completing it.

    A panot completes an instance when it makes the occurrence and matches every placed neighbour of the empty cell;
    ``pool[t]`` counts the unseen panots of type ``t``. Read on the sidewalk after the placement.
    """
    d, p = at // CELLS, at % CELLS
    q = p + STEP[d]
    total = 0
    for i in range(POT_N[d]):
        f = POT[d, i, 0]
        if vp[f] == 0:
            continue
        n = 3 if f <= L else 2
        empty, hole = 0, 0
        for j in range(n):
            if _type_at(cell, p + POT[d, i, 1 + j], p, q, a, b) == EMPTY:
                empty += 1
                hole = j
        if empty != 1:
            continue
        x = p + POT[d, i, 1 + hole]
        allowed = 0xFFFF
        for e in range(4):
            allowed &= MATCH16[_type_at(cell, x + STEP[e], p, q, a, b)]
        s0 = slot_bits[_type_at(cell, p + POT[d, i, 1], p, q, a, b)]
        s1 = slot_bits[_type_at(cell, p + POT[d, i, 2], p, q, a, b)]
        s2 = slot_bits[_type_at(cell, p + POT[d, i, 3], p, q, a, b)] if n == 3 else 0
        total += _completions(f, hole, s0, s1, s2, allowed, slot_bits, vp, pool)
    return total


@njit(cache=True)
def _hole_potential(cell: np.ndarray, slot_bits: np.ndarray, x: int, vp: np.ndarray, pool: np.ndarray) -> int:
    """Sum over the instances whose only empty cell is ``x`` of VP x unseen panots completing them (see above)."""
    allowed = 0xFFFF
    for e in range(4):
        allowed &= MATCH16[cell[x + STEP[e]]]
    total = 0
    for i in range(ONE.shape[0]):
        f = ONE[i, 0]
        if vp[f] == 0:
            continue
        n = 3 if f <= L else 2
        full, hole = True, 0
        for j in range(n):
            o = ONE[i, 1 + j]
            if o == 0:
                hole = j
            elif cell[x + o] == EMPTY:
                full = False
        if not full:
            continue
        s0 = slot_bits[cell[x + ONE[i, 1]]]
        s1 = slot_bits[cell[x + ONE[i, 2]]]
        s2 = slot_bits[cell[x + ONE[i, 3]]] if n == 3 else 0
        total += _completions(f, hole, s0, s1, s2, allowed, slot_bits, vp, pool)
    return total


@njit(cache=True)
def _label_groups(
    bits: np.ndarray, placed: np.ndarray, label: np.ndarray, size: np.ndarray, stack: np.ndarray, n_dirs: int
) -> tuple[int, int]:
    """Label the groups of panots carrying slot 6, then slot 7 (``label[k, x]``, -1 outside); their largest sizes.

    Groups connect through the first ``n_dirs`` of :data:`NEIGHBOURS` (4: sides, 8: corners too).
    """
    largest = np.zeros(2, dtype=np.int64)
    for k in range(2):
        for x in placed:
            label[k, x] = -1
        n = 0
        for x0 in placed:
            if label[k, x0] >= 0 or not (bits[x0] >> (6 + k)) & 1:
                continue
            label[k, x0], stack[0], top, count = n, x0, 1, 0
            while top:
                top -= 1
                x = stack[top]
                count += 1
                for e in range(n_dirs):
                    y = x + NEIGHBOURS[e]
                    if (bits[y] >> (6 + k)) & 1 and label[k, y] < 0:
                        label[k, y] = n
                        stack[top] = y
                        top += 1
            size[k, n] = count
            largest[k] = max(largest[k], count)
            n += 1
    return largest[0], largest[1]


@njit(cache=True)
def _growth(
    bits: np.ndarray,
    at: int,
    ab: int,
    bb: int,
    label: np.ndarray,
    size: np.ndarray,
    big0: int,
    big1: int,
    seen: np.ndarray,
    n_dirs: int,
) -> int:
    """Cells by which the largest slot-6 and slot-7 groups grow when slot bits ``ab``, ``bb`` go to placement ``at``.

    ``label``/``size`` from :func:`_label_groups` on the sidewalk before the placement, ``big*`` its largest sizes;
    ``seen`` is scratch for 16 group labels; groups connect through the first ``n_dirs`` of :data:`NEIGHBOURS`.
    """
    p = at % CELLS
    q = p + STEP[at // CELLS]
    total = 0
    for k in range(2):
        new = 0
        n_seen = 0
        for x, xb in ((p, ab), (q, bb)):
            if not (xb >> (6 + k)) & 1:
                continue
            new += 1
            for e in range(n_dirs):
                y = x + NEIGHBOURS[e]
                if y in (p, q) or not (bits[y] >> (6 + k)) & 1:
                    continue
                c = label[k, y]
                dup = False
                for j in range(n_seen):
                    dup |= seen[j] == c
                if not dup:
                    seen[n_seen] = c
                    n_seen += 1
                    new += size[k, c]
        big = big0 if k == 0 else big1
        total += max(0, new - big)
    return total


# --- legality on bit rows -----------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _popcount(x: int) -> int:
    """Set bits of a non-negative int64."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


@njit(cache=True, inline="always")
def _around(rows: np.ndarray, r: int) -> int:
    """Bit row ``r`` of the cells with an orthogonal neighbour in ``rows``."""
    return ((rows[r] << 1) | (rows[r] >> 1) | rows[r - 1] | rows[r + 1]) & FULL


@njit(cache=True)
def _fill_rows(cell: np.ndarray, box: np.ndarray, occ: np.ndarray, colour: np.ndarray, shape: np.ndarray) -> None:
    """Set the bit rows ``occ``, ``colour[k]``, ``shape[k]`` of the sidewalk (all 0 before; rows ``box`` change)."""
    for r in range(box[0], box[1] + 1):
        for c in range(box[2], box[3] + 1):
            t = cell[r * GRID + c]
            if t != EMPTY:
                occ[r] |= 1 << c
                colour[t >> 2, r] |= 1 << c
                shape[t & 3, r] |= 1 << c


@njit(cache=True)
def _clear_rows(box: np.ndarray, occ: np.ndarray, colour: np.ndarray, shape: np.ndarray) -> None:
    """Undo :func:`_fill_rows`, so that every bit row is 0 again."""
    for r in range(box[0], box[1] + 1):
        occ[r] = 0
        colour[:, r] = 0
        shape[:, r] = 0


@njit(cache=True)
def _fits(t: int, box: np.ndarray, occ: np.ndarray, colour: np.ndarray, shape: np.ndarray, out: np.ndarray) -> None:
    """Bit rows ``out`` of the empty cells where type ``t`` matches every neighbour.

    Rows ``box`` ± 3 are set (every first or second panot of a legal placement lies there); rows ``box`` ± 4 serve
    as scratch for the clashing panots.
    """
    c, s = t >> 2, t & 3
    for r in range(box[0] - 4, box[1] + 5):  # clashing panots: neither the colour nor the shape of t
        out[r] = occ[r] & ~colour[c, r] & ~shape[s, r]
    bad_up, bad = out[box[0] - 4], out[box[0] - 3]
    for r in range(box[0] - 3, box[1] + 4):
        bad_down = out[r + 1]
        out[r] = ~occ[r] & ~((bad << 1) | (bad >> 1) | bad_up | bad_down) & FULL
        bad_up, bad = bad, bad_down


@njit(cache=True)
def _legal(fit_a: np.ndarray, fit_b: np.ndarray, occ: np.ndarray, box: np.ndarray, out: np.ndarray) -> int:
    """Bit rows ``out[d, r]`` (first panot's cell) of the legal placements of a card, and their number.

    The card's first panot fits on the cells of ``fit_a``, its second on those of ``fit_b``. Only rows ``box`` ± 2
    are written: no placement touches the sidewalk from further out.
    """
    n = 0
    for r in range(box[0] - 2, box[1] + 3):
        touch = _around(occ, r)
        out[0, r] = fit_a[r] & (fit_b[r] >> 1) & (touch | (touch >> 1))
        out[1, r] = fit_a[r] & fit_b[r + 1] & (touch | _around(occ, r + 1))
        out[2, r] = fit_a[r] & (fit_b[r] << 1) & (touch | (touch << 1)) & FULL
        out[3, r] = fit_a[r] & fit_b[r - 1] & (touch | _around(occ, r - 1))
        for d in range(4):
            n += _popcount(out[d, r])
    return n


@njit(cache=True)
def _value(
    mode: int,
    cell: np.ndarray,
    bits: np.ndarray,
    slot_bits: np.ndarray,
    at: int,
    ta: int,
    tb: int,
    g: int,
    vp: np.ndarray,
    pool: np.ndarray,
    look: bool,
    label: np.ndarray,
    size: np.ndarray,
    big0: int,
    big1: int,
    seen: np.ndarray,
    before: int,
    n_dirs: int,
) -> int:
    """A seat's value of placing types ``ta``, ``tb`` at ``at`` with gain ``g`` (see :mod:`engines.panots.policies`).

    ``MAJORITY_AWARE``: ``8 * (gain + growth) + open``; ``PLANNER``: ``8 * (T * (gain + growth) + potential
    change) + open``, with ``T`` the unseen panots and the potential change 0 when no card is to come (``look``);
    ``before`` is the potential of the new cells before the placement (:func:`_hole_potential` of each).
    """
    ab, bb = slot_bits[ta], slot_bits[tb]
    score = g
    if vp[MAJORITY]:
        score += _growth(bits, at, ab, bb, label, size, big0, big1, seen, n_dirs)
    if mode == PLANNER:
        score *= max(1, pool.sum())
        if look:
            score += _potential(cell, slot_bits, at, ta, tb, vp, pool) - before
    return 8 * score + _open_edges(cell, at, ta, tb)


@njit(cache=True)
def evaluate(
    cell: np.ndarray,
    bits: np.ndarray,
    nbc: np.ndarray,
    bbox: np.ndarray,
    cells: np.ndarray,
    n_cells: np.ndarray,
    wh: np.ndarray,
    slot_bits: np.ndarray,
    vp: np.ndarray,
    values: bool,
    mode: np.ndarray,
    pool: np.ndarray,
    look: bool,
    group_diagonal: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Legal placements of every warehouse card ``wh (B, C)`` for every seat, and the best ones.

    Returns, per row ``b * P + seat`` and slot ``(B * P, C)``: the number of legal placements, the best gain and
    its placement, the best value of the seat's ``mode[seat]`` (:func:`_value`; none for ``GAIN``) and its
    placement (first in ``at`` order on ties; ``UNPLACEABLE`` / ``UNPLACEABLE_VALUE`` when nothing is legal).
    Gains are computed only if ``values`` or some seat has a mode; ``pool (B, 16)`` counts each game's unseen
    panots per type.
    """
    n_b, n_p = cell.shape[0], cell.shape[1]
    n_c = wh.shape[1]
    count = np.zeros((n_b * n_p, n_c), dtype=np.int64)
    best_gain = np.full((n_b * n_p, n_c), UNPLACEABLE, dtype=np.int64)
    best_plan = np.full((n_b * n_p, n_c), UNPLACEABLE_VALUE, dtype=np.int64)
    gain_at = np.zeros((n_b * n_p, n_c), dtype=np.int64)
    plan_at = np.zeros((n_b * n_p, n_c), dtype=np.int64)
    gains_needed = values or (mode != GAIN).any()
    # scratch for the current row (key = row + 1): bit rows of the occupied cells and of each colour / shape,
    # of the cells each type fits (valid where fit_tag == key) and of one card's legal placements per direction;
    # each cell's pattern summary (valid where summary_tag == key); the majority groups of the row
    occ, colour, shape = np.zeros(GRID, np.int64), np.zeros((4, GRID), np.int64), np.zeros((4, GRID), np.int64)
    fit, fit_tag = np.zeros((16, GRID), np.int64), np.zeros(16, np.int64)
    legal = np.zeros((4, GRID), np.int64)
    summary, summary_tag = np.empty((CELLS, 16), dtype=np.int64), np.zeros(CELLS, dtype=np.int64)
    terms = np.empty((4, TWO.shape[1] + 1, 3), dtype=np.int64)  # one card's instances through both new cells
    label = np.full((2, CELLS), -1, dtype=np.int64)
    size = np.zeros((2, cells.shape[2] + 1), dtype=np.int64)
    stack = np.empty(cells.shape[2] + 1, dtype=np.int64)
    seen = np.empty(16, dtype=np.int64)
    n_dirs = 8 if group_diagonal else 4
    pot, pot_tag = np.zeros(CELLS, dtype=np.int64), np.zeros(CELLS, dtype=np.int64)
    for b in range(n_b):
        vpb = vp[b]
        for s in range(n_p):
            row = b * n_p + s
            key = row + 1
            g_cell, g_bits, g_nbc, box = cell[b, s], bits[b, s], nbc[b, s], bbox[b, s]
            m = mode[s]
            big0, big1 = 0, 0
            if m != GAIN and vpb[MAJORITY]:
                big0, big1 = _label_groups(g_bits, cells[b, s, : n_cells[b, s]], label, size, stack, n_dirs)
            if n_cells[b, s] == 0:  # first card: the canonical placement only
                for k in range(n_c):
                    ta, tb = CARDS[wh[b, k], 0], CARDS[wh[b, k], 1]
                    g = 0
                    if gains_needed:
                        g = _gain(g_bits, g_nbc, FIRST, slot_bits[b, ta], slot_bits[b, tb], vpb)
                    count[row, k] = 1
                    best_gain[row, k] = g
                    gain_at[row, k] = plan_at[row, k] = FIRST
                    if m != GAIN:
                        best_plan[row, k] = _value(
                            m,
                            g_cell,
                            g_bits,
                            slot_bits[b],
                            FIRST,
                            ta,
                            tb,
                            g,
                            vpb,
                            pool[b],
                            look,
                            label,
                            size,
                            0,
                            0,
                            seen,
                            0,
                            n_dirs,
                        )
                continue
            _fill_rows(g_cell, box, occ, colour, shape)
            for k in range(n_c):
                ta, tb = CARDS[wh[b, k], 0], CARDS[wh[b, k], 1]
                for t in (ta, tb):
                    if fit_tag[t] != key:
                        _fits(t, box, occ, colour, shape, fit[t])
                        fit_tag[t] = key
                count[row, k] = _legal(fit[ta], fit[tb], occ, box, legal)
                if not gains_needed:
                    continue
                ab, bb = slot_bits[b, ta], slot_bits[b, tb]
                _joint_terms(ab, bb, vpb, terms)
                for d in range(4):
                    for r in range(box[0] - 2, box[1] + 3):
                        mask = legal[d, r]
                        while mask:
                            low = mask & -mask
                            mask ^= low
                            p = r * GRID + _popcount(low - 1)
                            q = p + STEP[d]
                            at = d * CELLS + p
                            for x in (p, q):
                                if summary_tag[x] != key:
                                    _summarise(g_bits, g_nbc, x, vpb, summary[x])
                                    summary_tag[x] = key
                            g = _single(summary[p], ab) + _single(summary[q], bb) + _joint(terms[d], g_bits, p)
                            if g > best_gain[row, k]:
                                best_gain[row, k], gain_at[row, k] = g, at
                            if m != GAIN:
                                before = 0
                                if m == PLANNER and look:
                                    for x in (p, q):
                                        if pot_tag[x] != key:
                                            pot[x] = _hole_potential(g_cell, slot_bits[b], x, vpb, pool[b])
                                            pot_tag[x] = key
                                        before += pot[x]
                                v = _value(
                                    m,
                                    g_cell,
                                    g_bits,
                                    slot_bits[b],
                                    at,
                                    ta,
                                    tb,
                                    g,
                                    vpb,
                                    pool[b],
                                    look,
                                    label,
                                    size,
                                    big0,
                                    big1,
                                    seen,
                                    before,
                                    n_dirs,
                                )
                                if v > best_plan[row, k]:
                                    best_plan[row, k], plan_at[row, k] = v, at
            _clear_rows(box, occ, colour, shape)
    return count, best_gain, gain_at, best_plan, plan_at


@njit(cache=True)
def nth_legal(
    cell: np.ndarray,
    bbox: np.ndarray,
    n_cells: np.ndarray,
    b: np.ndarray,
    seat: np.ndarray,
    card: np.ndarray,
    nth: np.ndarray,
) -> np.ndarray:
    """Placement ``at`` of the ``nth`` legal placement (``at`` order) of ``card`` for each ``(b, seat)``."""
    out = np.full(len(b), FIRST, dtype=np.int64)  # an empty sidewalk has only the first placement
    occ, colour, shape = np.zeros(GRID, np.int64), np.zeros((4, GRID), np.int64), np.zeros((4, GRID), np.int64)
    fit_a, fit_b, legal = np.zeros(GRID, np.int64), np.zeros(GRID, np.int64), np.zeros((4, GRID), np.int64)
    for i in range(len(b)):
        g, s = b[i], seat[i]
        if n_cells[g, s] == 0:
            continue
        box = bbox[g, s]
        _fill_rows(cell[g, s], box, occ, colour, shape)
        _fits(CARDS[card[i], 0], box, occ, colour, shape, fit_a)
        _fits(CARDS[card[i], 1], box, occ, colour, shape, fit_b)
        _legal(fit_a, fit_b, occ, box, legal)
        _clear_rows(box, occ, colour, shape)
        left = nth[i]
        for d in range(4):
            for r in range(box[0] - 2, box[1] + 3):
                n = _popcount(legal[d, r])
                if left >= n:
                    left -= n
                    continue
                m = legal[d, r]
                for _ in range(left):
                    m &= m - 1
                out[i] = d * CELLS + r * GRID + _popcount((m & -m) - 1)
                left = -1
                break
            if left < 0:
                break
    return out


@njit(cache=True)
def place(
    cell: np.ndarray,
    bits: np.ndarray,
    nbc: np.ndarray,
    cells: np.ndarray,
    n_cells: np.ndarray,
    bbox: np.ndarray,
    slot_bits: np.ndarray,
    vp: np.ndarray,
    local: np.ndarray,
    b: np.ndarray,
    seat: np.ndarray,
    card: np.ndarray,
    at: np.ndarray,
) -> None:
    """Put ``card`` at placement ``at`` for each ``(b, seat)``, updating every per-cell array (in place).

    ``local`` (the running objective VP, majorities excluded) grows by each placement's gain.
    """
    for i in range(len(b)):
        g, s = b[i], seat[i]
        p = at[i] % CELLS
        ab, bb = slot_bits[g, CARDS[card[i], 0]], slot_bits[g, CARDS[card[i], 1]]
        local[g, s] += _gain(bits[g, s], nbc[g, s], at[i], ab, bb, vp[g])
        for x, t in ((p, CARDS[card[i], 0]), (p + STEP[at[i] // CELLS], CARDS[card[i], 1])):
            cell[g, s, x] = t
            bits[g, s, x] = slot_bits[g, t]
            for e in range(4):
                nbc[g, s, x + STEP[e]] += 1
            cells[g, s, n_cells[g, s]] = x
            n_cells[g, s] += 1
            r, c = x // GRID, x % GRID
            bbox[g, s, 0] = min(bbox[g, s, 0], r)
            bbox[g, s, 1] = max(bbox[g, s, 1], r)
            bbox[g, s, 2] = min(bbox[g, s, 2], c)
            bbox[g, s, 3] = max(bbox[g, s, 3], c)


@njit(cache=True)
def majorities(
    bits: np.ndarray, cells: np.ndarray, n_cells: np.ndarray, vp: np.ndarray, ties_all: bool, diagonal: bool
) -> np.ndarray:
    """``(B, P)`` majority VP if the games ended now (see :func:`final_scores`), from flood fills on the grid."""
    n_b, n_p = bits.shape[0], bits.shape[1]
    out = np.zeros((n_b, n_p), dtype=np.int64)
    label = np.full((2, CELLS), -1, dtype=np.int64)
    size = np.zeros((2, cells.shape[2] + 1), dtype=np.int64)
    stack = np.empty(cells.shape[2] + 1, dtype=np.int64)
    groups = np.zeros((n_p, 2), dtype=np.int64)
    n_dirs = 8 if diagonal else 4
    for b in range(n_b):
        if vp[b, MAJORITY] == 0 or n_p == 1:
            continue
        for s in range(n_p):
            groups[s, 0], groups[s, 1] = _label_groups(
                bits[b, s], cells[b, s, : n_cells[b, s]], label, size, stack, n_dirs
            )
        for k in range(2):
            top = groups[:, k].max()
            tied = (groups[:, k] == top).sum()
            for s in range(n_p):
                if top > 0 and groups[s, k] == top and (ties_all or tied == 1):
                    out[b, s] += vp[b, MAJORITY]
    return out


@njit(cache=True)
def group_sizes(bits: np.ndarray, cells: np.ndarray, n_cells: np.ndarray, diagonal: bool) -> np.ndarray:
    """``(B, P, 2)`` the largest group of panots carrying slot 6, then slot 7, on every sidewalk (any face up)."""
    n_b, n_p = bits.shape[0], bits.shape[1]
    out = np.zeros((n_b, n_p, 2), dtype=np.int64)
    label = np.full((2, CELLS), -1, dtype=np.int64)
    size = np.zeros((2, cells.shape[2] + 1), dtype=np.int64)
    stack = np.empty(cells.shape[2] + 1, dtype=np.int64)
    n_dirs = 8 if diagonal else 4
    for b in range(n_b):
        for s in range(n_p):
            out[b, s, 0], out[b, s, 1] = _label_groups(
                bits[b, s], cells[b, s, : n_cells[b, s]], label, size, stack, n_dirs
            )
    return out


# --- final scoring ------------------------------------------------------------------------------------------------


@njit(cache=True)
def _largest_group(cells: np.ndarray, member: np.ndarray, diagonal: bool) -> int:
    """Largest connected group among ``cells`` (flat indices) where ``member`` is true.

    Cells connect through their sides, and through their corners too if ``diagonal``.
    """
    k = len(cells)
    seen = np.zeros(k, dtype=np.bool_)
    stack = np.empty(k, dtype=np.int64)
    best = 0
    for start in range(k):
        if seen[start] or not member[start]:
            continue
        seen[start] = True
        stack[0], top, size = start, 1, 0
        while top:
            top -= 1
            i = stack[top]
            size += 1
            for j in range(k):
                dr, dc = abs(cells[i] // GRID - cells[j] // GRID), abs(cells[i] % GRID - cells[j] % GRID)
                if member[j] and not seen[j] and (dr + dc == 1 or (diagonal and dr == 1 and dc == 1)):
                    seen[j] = True
                    stack[top] = j
                    top += 1
        best = max(best, size)
    return best


@njit(cache=True)
def final_scores(
    cell: np.ndarray,
    slot_bits: np.ndarray,
    vp: np.ndarray,
    cells: np.ndarray,
    n_cells: np.ndarray,
    ties_all: bool,
    diagonal: bool,
) -> np.ndarray:
    """VP per seat and face ``(B, P, 9)`` of the sidewalks ``cell (B, P, CELLS)`` listed in ``cells (B, P, K)``.

    Each pair is counted from its first cell, each line from its middle and each L from its corner. A tie for a
    majority scores for every tied seat if ``ties_all``, else for none; groups connect through corners too if
    ``diagonal``.
    """
    n_b, n_p = cell.shape[0], cell.shape[1]
    out = np.zeros((n_b, n_p, 9), dtype=np.int64)
    groups = np.zeros((n_p, 2), dtype=np.int64)
    for b in range(n_b):
        sb = slot_bits[b]
        for s in range(n_p):
            g = cell[b, s]
            placed = cells[b, s, : n_cells[b, s]]
            for x in placed:
                for i in range(ONE.shape[0]):
                    f, o0, o1, o2 = ONE[i, 0], ONE[i, 1], ONE[i, 2], ONE[i, 3]
                    if (o0 == 0 if f >= ADJACENT else o1 == 0) and vp[b, f]:  # anchored on x
                        out[b, s, f] += vp[b, f] * _match(f, sb[g[x + o0]], sb[g[x + o1]], sb[g[x + o2]])
                if (sb[g[x]] >> 3) & 1:
                    taken = 0
                    for e in range(4):
                        taken += g[x + STEP[e]] != EMPTY
                    out[b, s, SURROUNDED] += vp[b, SURROUNDED] * (taken == 4)
                    out[b, s, FREE] += vp[b, FREE] * (taken == 1)
            for slot in range(2):
                member = np.empty(len(placed), dtype=np.bool_)
                for i in range(len(placed)):
                    member[i] = (sb[g[placed[i]]] >> (6 + slot)) & 1 == 1
                groups[s, slot] = _largest_group(placed, member, diagonal)
        if n_p > 1:
            for slot in range(2):
                top = groups[:, slot].max()
                tied = (groups[:, slot] == top).sum()
                for s in range(n_p):
                    if top > 0 and groups[s, slot] == top and (ties_all or tied == 1):
                        out[b, s, MAJORITY] += vp[b, MAJORITY]
    return out
