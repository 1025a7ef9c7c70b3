"""Compiled playouts: positions played to the end with ``balanced`` or ``random`` in both seats.

The expert's budget is spent almost entirely in playouts, and a Patolli game has a long tail (over 140 turns), so
the numpy engine's per-roll overhead on ever smaller batches dominated a search (about 15,000 playouts/s/core).
:func:`play_out` plays each row to its end in one compiled loop. It is the engine's roll, written per game: the
same chance (row ``g``'s ``k``-th uniform of a :class:`~engines.core.StreamSource`, one per die roll and, for
``random``, one per pick, whatever is used), the same moves, payments and turn order, so its games are identical
to :func:`~engines.patolli.rules.play_on`'s (``tests/engines/test_patolli.py`` checks them row by row).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines import core
from engines.patolli.kernels import ONE, ZERO, balanced_one, popcount
from engines.patolli.rules import INFO, Params, State, layout

ROLLOUTS = {"random": 0, "balanced": 1}  # the policies compiled here, by the code the kernel reads
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
def _play(
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
    length, faces, enter_roll, buttons, again_bits, overshoot_exits, pay_when_empty, overshoot_pays, cap = rules
    full = (ONE << np.uint64(length)) - ONE
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
            again = ((again_bits >> d) & 1) != 0 or (target & grey_bonus[me]) != ZERO
            if not (again and moved and not ended):
                turn[b] += 1
                mover[b] = them
            if ended:
                break
            if turn[b] >= cap:
                reason[b] = 2
                break
        cursor[g] = counter


def supports(params: Params, seat_policies: list[str] | tuple[str, ...], source: object) -> bool:
    """Whether :func:`play_out` can play these games: one compiled rollout in every seat, counter-based chance."""
    return isinstance(source, core.StreamSource) and len(set(seat_policies)) == 1 and seat_policies[0] in ROLLOUTS


def play_out(params: Params, policy: str, state: State, source: core.StreamSource, weights: tuple[int, ...]) -> State:
    """Play every game of ``state`` to its end with ``policy`` in both seats (in place); returns ``state``.

    Row ``b`` reads the stream ``source.keys[state.game[b]]`` from its cursor on, as the numpy engine does.
    """
    lay = layout(params)
    rules = (
        lay.length,
        params.die_faces,
        params.enter_roll,
        params.buttons,
        lay.again_bits,
        int(params.exit_overshoot),
        int(params.pay_when_empty),
        int(params.overshoot_pays),
        INFO.turn_cap,
    )
    _play(
        state.game,
        state.track,
        state.off,
        state.home,
        state.tokens,
        state.bank,
        state.safe,
        state.bad,
        state.mover,
        state.turn,
        state.captures,
        state.paid,
        state.winner,
        state.reason,
        source.keys,
        source.cursor,
        lay.to_me,
        lay.to_them,
        lay.grey_frame,
        lay.shelter_frame,
        rules,
        ROLLOUTS[policy],
        weights,
    )
    return state
