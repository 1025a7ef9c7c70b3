"""Compiled (numba) kernel of the ``balanced`` policy: score every option of each game, keep the best.

Numpy alone stays below the engine's speed bar (see ``README.md``): the bit-sliced numpy scoring spends most of a
roll in per-plane passes over the batch. Here one loop over the games scores each legal option directly, in the
reference's terms; :mod:`engines.patolli.rules` keeps the rest of the roll and every chance event in numpy.
"""

from __future__ import annotations

import numpy as np
from numba import njit

ONE = np.uint64(1)
ZERO = np.uint64(0)
# popcount masks: alternate bits, bit pairs, nibbles; and the byte-summing multiplier
M1, M2, M4 = np.uint64(0x5555555555555555), np.uint64(0x3333333333333333), np.uint64(0x0F0F0F0F0F0F0F0F)
H01 = np.uint64(0x0101010101010101)
DE_BRUIJN = np.uint64(0x03F79D71B4CB0A89)  # single bit b: (b × DE_BRUIJN) >> 58 is distinct for each position
# balanced: integer weights (powers of two) of the features of a move; score = sum of weight × feature
W_CAPTURE, W_FINISH, W_ENTER, W_GREY, W_SAFE, W_BAD = 32, 32, 32, 16, 8, -16
W_RISK_TO, W_RISK_FROM = -4, 2  # per threat face on the landing square / on the square left
TIE = 64  # the reference ranks options by score × TIE + (source + 1): ties go to the most advanced button
WEIGHTS = (W_CAPTURE, W_FINISH, W_ENTER, W_GREY, W_SAFE, W_BAD, W_RISK_TO, W_RISK_FROM, TIE)
BIT_INDEX = np.argsort([((1 << p) * int(DE_BRUIJN) % (1 << 64)) >> 58 for p in range(64)])  # slot -> position


@njit(cache=True, inline="always")
def _bit(bits: np.uint64, p: int) -> bool:
    return (bits >> np.uint64(p)) & ONE != ZERO


@njit(cache=True, inline="always")
def popcount(x: np.uint64) -> int:
    """Set bits of ``x``."""
    x = x - ((x >> np.uint64(1)) & M1)
    x = (x & M2) + ((x >> np.uint64(2)) & M2)
    x = (x + (x >> np.uint64(4))) & M4
    return int((x * H01) >> np.uint64(56))


@njit(cache=True, inline="always")
def _threat(x: int, theirs_own: np.uint64, off_them: int, safe: np.uint64, shift: int, length: int, faces: int) -> int:
    """Threat faces on progress ``x`` of the mover's frame (``shift`` takes it to the opponent's frame)."""
    if _bit(safe, x):
        return 0
    y = x + shift  # the square in the opponent's frame (x and shift are below length); its start square is 0
    if y >= length:
        y -= length
    if y == 0:
        return 1 if off_them > 0 else 0  # nothing reaches the start square but entering
    reach = (ONE << np.uint64(y)) - (ONE << np.uint64(max(y - faces, 0)))  # buttons y - faces .. y - 1
    return popcount(theirs_own & reach)


@njit(cache=True, inline="always")
def balanced_one(
    d: int,
    legal: np.uint64,
    finish: np.uint64,
    enter: bool,
    theirs: np.uint64,
    own: np.uint64,
    off: int,
    sf: np.uint64,
    bad: np.uint64,
    grey: np.uint64,
    shift: int,
    length: int,
    faces: int,
    weights: tuple[int, ...],
) -> np.uint64:
    """One game's best option (source bit, 0 = enter or nothing legal) under the ``balanced`` score."""
    w_capture, w_finish, w_enter, w_grey, w_safe, w_bad, w_risk_to, w_risk_from, tie = weights
    hittable = theirs & ~sf
    best_key, best = -(1 << 30), ZERO
    if enter:
        best_key = (w_enter + w_capture * _bit(hittable, 0)) * tie
        best_key += w_risk_to * _threat(0, own, off, sf, shift, length, faces) * tie
    rest = legal
    while rest != ZERO:
        single = rest & (~rest + ONE)
        rest ^= single
        p = BIT_INDEX[(single * DE_BRUIJN) >> np.uint64(58)]
        score = w_risk_from * _threat(p, own, off, sf, shift, length, faces)
        if _bit(finish, p):
            score += w_finish
        else:
            t = p + d
            score += w_capture * _bit(hittable, t) + w_grey * _bit(grey, t) + w_safe * _bit(sf, t)
            score += w_bad * _bit(bad, t) + w_risk_to * _threat(t, own, off, sf, shift, length, faces)
        key = score * tie + p + 1
        if key > best_key:
            best_key, best = key, single
    return best


@njit(cache=True)
def balanced_choice(
    die: np.ndarray,
    legal: np.ndarray,
    finish: np.ndarray,
    enter: np.ndarray,
    theirs: np.ndarray,
    theirs_own: np.ndarray,
    off_them: np.ndarray,
    safe: np.ndarray,
    bad: np.ndarray,
    grey: np.ndarray,
    to_them: np.ndarray,
    length: int,
    faces: int,
    weights: tuple[int, ...],
) -> np.ndarray:
    """Per game the best option's source bit (0 = enter, or no legal move) under the ``balanced`` score.

    ``weights`` = (capture, finish, enter, grey, safe, bad luck, risk on landing, risk left, tie factor). Options
    rank by ``score × tie + source + 1`` with entering as source −1, as in the reference.
    """
    out = np.zeros(len(die), dtype=np.uint64)
    for b in range(len(die)):
        out[b] = balanced_one(
            int(die[b]),
            legal[b],
            finish[b],
            enter[b],
            theirs[b],
            theirs_own[b],
            int(off_them[b]),
            safe[b],
            bad[b],
            grey[b],
            int(to_them[b]),
            length,
            faces,
            weights,
        )
    return out
