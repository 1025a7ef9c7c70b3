"""Compiled (numba) kernels: the ``balanced`` score of every option of each game, whole playouts, and features.

All numba code of the game lives here, so that numba's on-disk cache (which only watches the file of the function
it compiled) is renewed whenever any of it changes.

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
W_STUCK = -4  # home-stretch: per face with which the mover's next roll would be lost (doubled when it pays)
WEIGHTS = (W_CAPTURE, W_FINISH, W_ENTER, W_GREY, W_SAFE, W_BAD, W_RISK_TO, W_RISK_FROM, TIE, 0)  # balanced
STRETCH_WEIGHTS = (*WEIGHTS[:-1], W_STUCK)  # home-stretch: balanced, and keep a move for every face
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
def lost_faces(mine: np.uint64, off_me: int, length: int, faces: int, rules: tuple[int, ...]) -> int:
    """Faces with which a roll of the position (``mine`` on the track, ``off_me`` waiting) has no legal move.

    A lost face counts 2 when the lost roll costs a token, 1 when it is free (the tempo alone). ``rules`` =
    (enter roll, exit_overshoot, pay_when_empty, overshoot_pays).
    """
    enter_roll, overshoot_exits, pay_when_empty, overshoot_pays = rules
    total = 0
    for f in range(1, faces + 1):
        fu = np.uint64(f)
        lands = (ONE << (np.uint64(length) - fu)) - ONE
        movable = (mine & lands & ~(mine >> fu)) | (mine & (~lands if overshoot_exits else lands + ONE))
        if movable != ZERO or (f == enter_roll and off_me > 0 and (mine & ONE) == ZERO):
            continue
        pays = (mine != ZERO or pay_when_empty) and (overshoot_pays or (mine & ~lands & ~(lands + ONE)) == ZERO)
        total += 2 if pays else 1
    return total


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
    mine: np.uint64,
    off_me: int,
    rules: tuple[int, ...],
) -> np.uint64:
    """One game's best option (source bit, 0 = enter or nothing legal) under the ``balanced`` score.

    With a non-zero home-stretch weight (the last of ``weights``) each option but a finishing one also pays per
    lost face of the position it leaves (:func:`lost_faces`; ``mine``, ``off_me`` and ``rules`` are only read for
    it). Charging finishing moves too made ``home-stretch`` put off finishing, and it lost to ``balanced``.
    """
    w_capture, w_finish, w_enter, w_grey, w_safe, w_bad, w_risk_to, w_risk_from, tie, w_stuck = weights
    hittable = theirs & ~sf
    best_key, best = -(1 << 30), ZERO
    if enter:
        score = w_enter + w_capture * _bit(hittable, 0) + w_safe * _bit(sf, 0) + w_bad * _bit(bad, 0)
        score += w_risk_to * _threat(0, own, off, sf, shift, length, faces)
        if w_stuck != 0:
            score += w_stuck * lost_faces(mine | ONE, off_me - 1, length, faces, rules)
        best_key = score * tie
    rest = legal
    while rest != ZERO:
        single = rest & (~rest + ONE)
        rest ^= single
        p = BIT_INDEX[(single * DE_BRUIJN) >> np.uint64(58)]
        score = w_risk_from * _threat(p, own, off, sf, shift, length, faces)
        after = mine ^ single
        if _bit(finish, p):
            score += w_finish
        else:
            t = p + d
            after |= ONE << np.uint64(t)
            score += w_capture * _bit(hittable, t) + w_grey * _bit(grey, t) + w_safe * _bit(sf, t)
            score += w_bad * _bit(bad, t) + w_risk_to * _threat(t, own, off, sf, shift, length, faces)
        if w_stuck != 0 and not _bit(finish, p):
            score += w_stuck * lost_faces(after, off_me, length, faces, rules)
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
    mine: np.ndarray,
    off_me: np.ndarray,
    rules: tuple[int, ...],
) -> np.ndarray:
    """Per game the best option's source bit (0 = enter, or no legal move) under the ``balanced`` score.

    ``weights`` = (capture, finish, enter, grey, safe, bad luck, risk on landing, risk left, tie factor,
    home-stretch). Options rank by ``score × tie + source + 1`` with entering as source −1, as in the reference.
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
            mine[b],
            int(off_me[b]),
            rules,
        )
    return out


# --- playouts: whole games, as engines.patolli.playouts describes ------------------------------------------

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1, MIX2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
TO_UNIT = 1.0 / (1 << 53)


@njit(cache=True, inline="always")
def _mix(x: np.uint64) -> np.uint64:
    """SplitMix64's finaliser, as :func:`engines.core.mix64`."""
    z = x + GOLDEN
    z = (z ^ (z >> np.uint64(30))) * MIX1
    z = (z ^ (z >> np.uint64(27))) * MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def _draw(key: np.uint64, counter: np.uint64, high: int) -> int:
    """The integer in ``[0, high)`` that a :class:`~engines.core.StreamSource` reads at ``counter``."""
    u = np.float64(_mix(key ^ _mix(counter)) >> np.uint64(11)) * TO_UNIT
    return int(u * high)


@njit(cache=True, inline="always")
def _rotate(bits: np.uint64, shift: np.uint64, length: int, full: np.uint64) -> np.uint64:
    return ((bits << shift) | (bits >> (np.uint64(length) - shift))) & full


@njit(cache=True)
def play_to_end(
    game: np.ndarray,
    track: np.ndarray,
    off: np.ndarray,
    home: np.ndarray,
    tokens: np.ndarray,
    bank: np.ndarray,
    safe: np.ndarray,
    bad: np.ndarray,
    mover: np.ndarray,
    turn: np.ndarray,
    captures: np.ndarray,
    paid: np.ndarray,
    finished_at: np.ndarray,
    winner: np.ndarray,
    reason: np.ndarray,
    keys: np.ndarray,
    cursor: np.ndarray,
    to_me: np.ndarray,
    to_them: np.ndarray,
    grey_bonus: np.ndarray,
    shelter: np.ndarray,
    rules: tuple[int, ...],
    policy: int,
    weights: tuple[int, ...],
) -> None:
    """Play every unfinished row to its end, in place (see the module docstring)."""
    length, faces, enter_roll, buttons, again_bits, overshoot_exits, pay_when_empty, overshoot_pays, cap = rules[:9]
    optional_extra = rules[9]
    full = (ONE << np.uint64(length)) - ONE
    stuck = (enter_roll, overshoot_exits, pay_when_empty, overshoot_pays)
    for b in range(len(game)):
        if reason[b] >= 0:
            continue
        g = game[b]
        key, counter = keys[g], cursor[g]
        while True:
            me = int(mover[b])
            them = 1 - me
            d = _draw(key, counter, faces) + 1
            counter += ONE
            du = np.uint64(d)
            mine, theirs_own = track[me, b], track[them, b]
            shift_in, shift_out = to_me[me], to_them[me]
            theirs = _rotate(theirs_own, shift_in, length, full)
            sf = safe[me, b] | shelter[me]
            lands = (ONE << (np.uint64(length) - du)) - ONE  # sources p with p + d < L
            step = mine & lands & ~(mine >> du)
            finish = mine & (~lands if overshoot_exits else lands + ONE)
            legal = step | finish
            enter = d == enter_roll and off[me, b] > 0 and (mine & ONE) == ZERO
            if policy == 1:
                src = balanced_one(
                    d,
                    legal,
                    finish,
                    enter,
                    theirs,
                    theirs_own,
                    int(off[them, b]),
                    sf,
                    bad[me, b],
                    grey_bonus[me],
                    int(shift_out),
                    length,
                    faces,
                    weights,
                    mine,
                    int(off[me, b]),
                    stuck,
                )
            else:
                n_buttons = popcount(legal)
                n_options = n_buttons + (1 if enter else 0)
                pick = _draw(key, counter, max(n_options, 1))
                counter += ONE
                src = ZERO
                if pick < n_buttons:
                    rest = legal
                    for _ in range(pick):
                        rest &= rest - ONE
                    src = rest & (~rest + ONE)
            entering = enter and src == ZERO
            moved = src != ZERO or entering
            target = (src << du) & full
            if entering:
                target = ONE
            captured = target & theirs & ~sf
            took = 1 if captured != ZERO else 0
            track[me, b] = (mine ^ src) | target
            track[them, b] = theirs_own & ~_rotate(captured, shift_out, length, full)
            finishing = 1 if (src & finish) != ZERO else 0
            tokens_them = int(tokens[them, b]) - took
            bad_luck = 1 if (target & bad[me, b]) != ZERO and tokens_them > 0 else 0
            skip = 0
            if not moved and (pay_when_empty or mine != ZERO):
                skip = 1
                if not overshoot_pays and (mine & ~lands & ~(lands + ONE)) != ZERO:
                    skip = 0  # a button was held back only by a roll too high to finish: the skip is free
            pays = bad_luck + skip
            tokens_me = int(tokens[me, b]) - pays
            tokens[me, b] = tokens_me
            tokens[them, b] = tokens_them
            if finishing:
                finished_at[me, home[me, b], b] = turn[b]
            home_me = int(home[me, b]) + finishing
            home[me, b] = home_me
            off[me, b] -= 1 if entering else 0
            off[them, b] += took
            bank[b] += took + pays
            captures[me, b] += took
            paid[1, them, b] += took
            paid[2, me, b] += bad_luck
            paid[0, me, b] += skip
            won = tokens_them <= 0 or home_me >= buttons
            ended = won or tokens_me <= 0
            if ended:
                winner[b] = me if won else them
                reason[b] = 1 if (tokens_them <= 0 or tokens_me <= 0) else 0
            again = ((again_bits >> d) & 1) != 0
            if (target & grey_bonus[me]) != ZERO:
                if optional_extra and not again and moved and not ended and policy == 1 and weights[9] != 0:
                    again = lost_faces(track[me, b], int(off[me, b]), length, faces, stuck) <= faces  # home-stretch
                else:
                    again = True
            if not (again and moved and not ended):
                turn[b] += 1
                mover[b] = them
            if ended:
                break
            if turn[b] >= cap:
                reason[b] = 2
                break
        cursor[g] = counter


# --- features: the learned player's value-model inputs, as engines.patolli.features describes ---------------


@njit(cache=True, inline="always")
def _bits_into(out: np.ndarray, b: int, at: int, bits: np.uint64, length: int) -> None:
    """Columns ``at .. at + length - 1`` of row ``b``: the bits of ``bits``, lowest first, as 0.0 / 1.0."""
    for p in range(length):
        out[b, at + p] = np.float32((bits >> np.uint64(p)) & ONE)


@njit(cache=True, inline="always")
def _exposure_into(
    out: np.ndarray,
    b: int,
    at: int,
    mine: np.uint64,
    theirs_own: np.uint64,
    theirs: np.uint64,
    open_: np.uint64,
    shift: np.uint64,
    sizes: tuple[int, ...],
) -> None:
    """Row ``b`` from column ``at``: per face the viewer's buttons exposed, then its attacks, over the buttons.

    ``theirs``: ``theirs_own`` in the viewer's frame, which ``shift`` takes it to; ``open_``: the squares where a
    capture may happen (viewer's frame); ``sizes`` as :func:`features_into`'s.
    """
    length, faces, buttons = sizes[0], sizes[1], np.float32(sizes[2])
    full = (ONE << np.uint64(length)) - ONE
    for f in range(1, faces + 1):
        fu = np.uint64(f)
        on_track = (ONE << (np.uint64(length) - fu)) - ONE  # own progress p with p + f < L
        moving = _rotate(theirs_own & on_track, shift, length, full)
        exposed = popcount(_rotate(moving, fu, length, full) & mine & open_)
        out[b, at + f - 1] = np.float32(exposed) / buttons
        out[b, at + faces + f - 1] = np.float32(popcount(((mine & on_track) << fu) & theirs & open_)) / buttons


@njit(cache=True)
def features_into(
    out: np.ndarray,
    viewer: np.ndarray,
    track: np.ndarray,
    off: np.ndarray,
    home: np.ndarray,
    tokens: np.ndarray,
    bank: np.ndarray,
    safe: np.ndarray,
    bad: np.ndarray,
    mover: np.ndarray,
    turn: np.ndarray,
    winner: np.ndarray,
    reason: np.ndarray,
    to_me: np.ndarray,
    shelter: np.ndarray,
    sizes: tuple[int, ...],
    rules: tuple[int, ...],
) -> None:
    """Fill ``out`` (N, n_features) float32: row ``b`` is game ``b`` as seat ``viewer[b]`` sees it.

    The state arrays are :class:`~engines.patolli.rules.State`'s; ``to_me`` and ``shelter`` the layout's by viewer;
    ``sizes`` = (track length, die faces, buttons, tokens, turn cap); ``rules`` as :func:`lost_faces`'. Exposure
    counts are divided in float32, the other ratios in float64 and then rounded, as numpy's divisions did before.
    """
    length, faces, buttons, n_tokens, cap = sizes
    full = (ONE << np.uint64(length)) - ONE
    at = 4 * length + 2 * faces  # the first scalar column
    for b in range(len(viewer)):
        me = int(viewer[b])
        them = 1 - me
        mine, theirs_own = track[me, b], track[them, b]
        shift = to_me[me]
        theirs = _rotate(theirs_own, shift, length, full)
        open_ = ~(safe[me, b] | shelter[me])
        off_me, off_them = int(off[me, b]), int(off[them, b])
        _bits_into(out, b, 0, mine, length)
        _bits_into(out, b, length, theirs_own, length)
        _bits_into(out, b, 2 * length, safe[me, b], length)
        _bits_into(out, b, 3 * length, bad[me, b], length)
        _exposure_into(out, b, 4 * length, mine, theirs_own, theirs, open_, shift, sizes)
        their_start = _rotate(ONE, shift, length, full)  # the opponent's progress 0, in the viewer's frame
        out[b, at] = off_them > 0 and (theirs_own & ONE) == ZERO and (mine & their_start & open_) != ZERO
        out[b, at + 1] = off_me > 0 and (mine & ONE) == ZERO and (theirs & ONE) != ZERO
        out[b, at + 2] = off_me / float(buttons)
        out[b, at + 3] = off_them / float(buttons)
        out[b, at + 4] = int(home[me, b]) / float(buttons)
        out[b, at + 5] = int(home[them, b]) / float(buttons)
        out[b, at + 6] = int(tokens[me, b]) / float(n_tokens)
        out[b, at + 7] = int(tokens[them, b]) / float(n_tokens)
        out[b, at + 8] = int(bank[b]) / (2.0 * n_tokens)
        out[b, at + 9] = int(mover[b]) == me
        out[b, at + 10] = int(turn[b]) / float(cap)
        out[b, at + 11] = lost_faces(mine, off_me, length, faces, rules) / (2.0 * faces)
        out[b, at + 12] = lost_faces(theirs_own, off_them, length, faces, rules) / (2.0 * faces)
        out[b, at + 13] = reason[b] >= 0 and int(winner[b]) == me
        out[b, at + 14] = reason[b] >= 0 and winner[b] >= 0 and int(winner[b]) != me
