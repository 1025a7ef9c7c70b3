"""Patolli policies: which legal move to make after a roll, for a whole batch at once.

A policy's ``choose(moves)`` gets a :class:`~engines.patolli.rules.Moves` (legal moves as bit sets over source
progress, plus the position) and returns per game the chosen source as a single-bit ``uint64`` set, or 0 to
enter a button. The engine masks the answer with the legal moves, so rows with no legal move may get anything.
Option order (``random`` picks by it): button moves by ascending source progress, then entering. Ties between
scores go to the most advanced button, and entering loses ties.

Danger. The opponent's *threat faces* on a square are the die faces with which some opponent button would land
there on the opponent's next roll (a button may not land past its own finish), plus the entry face when the
square is the opponent's start square and the opponent has a waiting button. Safe squares carry no threat.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import numpy as np

from boardlab.engines import core
from boardlab.engines.core import Policy
from boardlab.engines.expert import expert_policy, searching
from boardlab.engines.learned.exploit import exploit_policy
from boardlab.engines.patolli import learned
from boardlab.engines.patolli.decisions import ROLLOUT, Seat
from boardlab.engines.patolli.features import lost_faces
from boardlab.engines.patolli.kernels import STRETCH_WEIGHTS, WEIGHTS, balanced_choice
from boardlab.engines.patolli.restrictions import RESTRICTIONS, restricted
from boardlab.engines.patolli.rules import (
    ONE,
    SAFE,
    U64,
    Moves,
    Params,
    State,
    draw_square,
    free_squares,
    highest,
    layout,
    lowest,
    placements,
    rotate,
)
from boardlab.engines.restrict import restricting

EXPERT_CHUNK = 400  # games per chunk with an expert seat: large search batches, about a minute each
EXPERT_PLAYOUTS = 256  # the expert's default playouts per decision: beats balanced clearly (README)
RESTRICT = restricting(RESTRICTIONS, restricted)  # learned!never-capture, expert:64@learned!never-enter, ...


def runner_choice(moves: Moves) -> np.ndarray:
    """Enter (the empty set) whenever entering is legal, else the most advanced button that can move."""
    return np.where(moves.enter, U64(0), highest(moves.legal))


def danger_after(moves: Moves, mine: np.ndarray, theirs_own: np.ndarray, off_them: np.ndarray) -> np.ndarray:
    """Number of die faces with which the opponent could capture some button of ``mine`` next roll."""
    params = moves.params
    length = params.track_length
    full = U64((1 << length) - 1)
    exposed = rotate(mine, moves.to_them, length) & ~moves.safe_theirs  # my buttons, opponent's frame
    count = np.zeros(len(mine), dtype=np.int16)
    for face in range(1, params.die_faces + 1):
        hit = ((theirs_own << U64(face)) & full & exposed) != 0
        if face == params.enter_roll:
            hit |= (off_them > 0) & ((exposed & ONE) != 0)
        count += hit
    return count


def place_farthest(params: Params, state: State, step: int) -> np.ndarray:
    """The heuristics' marker rule: each marker on the free square nearest before a home.

    A safe marker goes on the free square the placing seat reaches last before its home, a bad-luck marker on the
    free square the opponent reaches last before its home. Buttons stop most often just before home, where they
    wait for the exact roll: there a safe square shelters them and a bad-luck square taxes them.
    """
    lay = layout(params)
    kind, seat = placements(params)[step]
    owner = seat if kind == SAFE else 1 - seat
    progress = (np.arange(lay.length) - lay.starts[owner]) % lay.length
    free = free_squares(params, state, kind)
    return np.where(free, progress[None, :], -1).argmax(axis=1)


class PlacesFarthest:
    """Places markers by :func:`place_farthest` (the heuristics' stated rule)."""

    def place(self, params: Params, state: State, step: int, source: object) -> np.ndarray:
        """The square of every game's marker ``step``."""
        return place_farthest(params, state, step)


class Random:
    """A legal move chosen uniformly (one draw when there are two or more); markers on a uniform free square."""

    def __init__(self, params: Params) -> None:
        """No tables needed."""

    def place(self, params: Params, state: State, step: int, source: core.Source) -> np.ndarray:
        """One uniform draw over the free squares, as ``marker_placement=random``."""
        return draw_square(free_squares(params, state, placements(params)[step][0]), state.game, source)

    def choose(self, moves: Moves) -> np.ndarray:
        """Pick the k-th option in option order."""
        legal = moves.legal
        n_buttons = np.bitwise_count(legal).astype(np.int64)
        n_options = n_buttons + moves.enter
        pick = moves.source.draw(moves.games, np.maximum(n_options, 1), 1, used=(n_options >= 2).astype(np.int64))
        pick = pick[:, 0]
        bits = legal
        for k in range(moves.params.buttons - 1):
            bits = np.where(pick > k, bits & (bits - ONE), bits)
        return np.where(pick < n_buttons, lowest(bits), U64(0))


class Runner(PlacesFarthest):
    """Enter a button whenever the roll allows it; otherwise advance the leading button.

    Entering is not the runner's idea but a player's habit: a waiting button can only come in on a 1, and a runner
    that entered only when no button could move (version 1) won 39% of its games against ``random``.
    """

    def __init__(self, params: Params) -> None:
        """No tables needed."""

    def choose(self, moves: Moves) -> np.ndarray:
        """The most advanced movable button."""
        return runner_choice(moves)


class Aggressive(PlacesFarthest):
    """Capture by moving when possible (the most advanced capturing button); else enter if legal; else run.

    A capture by moving goes before entering because it measured better than entering first (seat-averaged, 95%
    Wilson intervals): 50.5% [50.4, 50.7] of 400,000 games head to head, and 23.2% [23.1, 23.3] rather than
    22.7% [22.5, 22.8] of 400,000 against ``balanced``; entering first does a little better against ``random``
    (70.4% [70.1, 70.5] rather than 69.8% [69.6, 70.0], 200,000 games each). Entering may itself capture on the
    start square; with no capture by moving it is taken whether it captures or not.
    """

    def __init__(self, params: Params) -> None:
        """No tables needed."""

    def choose(self, moves: Moves) -> np.ndarray:
        """A capture by moving if any, else the runner's move (which enters when it can)."""
        capture = moves.capture
        return np.where(capture != 0, highest(capture), runner_choice(moves))


def options(moves: Moves) -> list[tuple[np.ndarray, np.ndarray]]:
    """Every option as ``(valid, source bit)``: entering first, then buttons by ascending progress.

    Callers let a later option win a tie, so ties go to the most advanced button and entering loses them.
    """
    out = [(moves.enter, np.zeros_like(moves.mine))]
    rest = moves.legal
    for _ in range(moves.params.buttons):
        if not rest.any():
            break
        single = lowest(rest)
        rest = rest ^ single
        out.append((single != 0, single))
    return out


class Cautious(PlacesFarthest):
    """Enter whenever legal; otherwise minimise the die faces with which the opponent could capture next roll.

    Among the button moves, the position after each is scored exactly (captured opponent buttons no longer
    threaten, but add a waiting button that can enter); ties go to the most advanced button. Entering is not
    weighed by danger: a new button can only add exposure, so a danger-minimiser that scores entering enters only
    when nothing else is legal (version 1), and it won 39% of its games against ``random``.
    """

    def __init__(self, params: Params) -> None:
        """No tables needed."""

    def choose(self, moves: Moves) -> np.ndarray:
        """Enter if legal, else evaluate every button move and keep the least exposed."""
        length = moves.params.track_length
        best_danger = np.full(len(moves.games), 1 << 14, dtype=np.int16)
        best = np.zeros(len(moves.games), dtype=U64)
        for valid, single in options(moves)[1:]:  # button moves only; entering is decided below
            target = moves.target(single) | (single == 0).astype(U64)  # entering lands on progress 0
            captured = target & moves.theirs & ~moves.safe
            mine = (moves.mine ^ single) | target
            theirs_own = moves.theirs_own & ~rotate(captured, moves.to_them, length)
            danger = danger_after(moves, mine, theirs_own, moves.off_them + (captured != 0))
            better = valid & (danger <= best_danger)
            best_danger = np.where(better, danger, best_danger)
            best = np.where(better, single, best)
        return np.where(moves.enter, U64(0), best)


class Balanced(PlacesFarthest):
    """A weighted score of each move; ties go to the most advanced button.

    Features: capture, finish, enter, grey corner, safe square, bad luck, and the threat faces (of the opponent's
    position before the move) on the landing square (a cost) and on the square left (a gain).

    The compiled kernel :func:`~engines.patolli.kernels.balanced_choice` scores each legal option of each game
    directly and keeps the one with the highest ``score × TIE + source + 1`` (entering counts as source −1).
    """

    weights = WEIGHTS

    def __init__(self, params: Params) -> None:
        """The rules the home-stretch feature reads."""
        self.rules = (params.enter_roll, int(params.exit_overshoot), int(params.pay_when_empty))
        self.rules += (int(params.overshoot_pays),)

    def choose(self, moves: Moves) -> np.ndarray:
        """Score every option and keep the best (compiled: one pass over the games)."""
        params = moves.params
        return balanced_choice(
            moves.die,
            moves.legal,
            moves.finish,
            moves.enter,
            moves.theirs,
            moves.theirs_own,
            moves.off_them,
            moves.safe,
            moves.bad,
            moves.grey,
            moves.to_them,
            params.track_length,
            params.die_faces,
            self.weights,
            moves.mine,
            moves.off_me,
            self.rules,
        )


def stretch_keeps_extra(params: Params, mine: np.ndarray, off: np.ndarray) -> np.ndarray:
    """``home-stretch``'s extra-move rule: take it unless lost faces (paid ones twice) outnumber the die faces."""
    return lost_faces(params, mine, off) <= params.die_faces


class HomeStretch(Balanced):
    """``balanced``, and keep a legal move for every face: each option also costs ``W_STUCK`` per lost face.

    A lost face is a die face with which the mover's next roll would have no legal move in the position the
    option leaves (counted twice when that lost roll costs a token). Near home this keeps a spare button moving
    while another waits for its exact roll, rather than parking every button where only one face helps. An
    optional grey-corner extra move is declined when the lost faces of the position (paid ones twice) outnumber
    the die faces: a roll that more likely than not costs a token is not worth taking. Every other policy but
    the expert always takes it: an extra roll is an extra move.
    """

    weights = STRETCH_WEIGHTS

    def keep_extra(self, params: Params, state: State, rows: np.ndarray, source: object) -> np.ndarray:
        """Take the extra move unless the roll is more likely lost and paid than not (see the class docstring)."""
        mover = state.mover[rows]
        return stretch_keeps_extra(params, state.track[mover, rows], state.off[mover, rows])


POLICIES: dict[str, Policy] = {
    p.name: p
    for p in (
        Policy("random", "A legal move chosen uniformly at random.", Random),
        Policy("runner", "Enter a button whenever legal; otherwise advance the leading button.", Runner),
        Policy(
            "aggressive",
            "Capture by moving when possible; else enter whenever legal; else advance the leading button.",
            Aggressive,
        ),
        Policy(
            "cautious",
            "Enter whenever legal; otherwise minimise the die faces with which the opponent could capture next roll.",
            Cautious,
        ),
        Policy("balanced", "Weighted score of capture, safety, progress, bonus squares and penalties.", Balanced),
        Policy(
            "home-stretch",
            "balanced, plus: avoid leaving positions where some die face has no legal move (a lost, paid roll).",
            HomeStretch,
        ),
    )
}
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
    """``learned``: round 0 of its training plays ``balanced``; decision points resolve names in ``POLICIES``."""

    baseline = "balanced"
    policies = POLICIES


POLICIES["learned"] = Policy(
    "learned",
    "Value network of the position after each legal move, grey extra move or marker square; the best valued is "
    "played. The 2-player model ships; other knobs are trained by self-play on first use and cached "
    "(BOARDLAB_TRAIN=0 refuses; training settings ours: 60,000 games, seed 0).",
    LearnedPlayer,
    restrict=RESTRICT,
    exploit=exploit_policy,
)
