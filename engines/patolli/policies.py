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

import numpy as np

from engines.core import Policy
from engines.patolli.rules import ONE, U64, Moves, Params, highest, lowest, rotate

# balanced: integer weights (powers of two) of the features of a move; score = sum of weight × feature
W_CAPTURE, W_FINISH, W_ENTER, W_GREY, W_SAFE, W_BAD = 32, 32, 32, 16, 8, -16
W_RISK_TO, W_RISK_FROM = -4, 2  # per threat face on the landing square / on the square left
TIE = 64  # the reference ranks options by score × TIE + (source + 1): ties go to the most advanced button


def runner_choice(moves: Moves) -> np.ndarray:
    """The most advanced button that can move; enter (the empty set) when no button can."""
    return highest(moves.legal)


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


class Random:
    """A legal move chosen uniformly (one draw when there are two or more)."""

    def __init__(self, params: Params) -> None:
        """No tables needed."""

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


class Runner:
    """Advance the leading button; enter only when no button can move."""

    def __init__(self, params: Params) -> None:
        """No tables needed."""

    def choose(self, moves: Moves) -> np.ndarray:
        """The most advanced movable button."""
        return runner_choice(moves)


class Aggressive:
    """Capture when possible (with the most advanced capturing button, else by entering); otherwise run."""

    def __init__(self, params: Params) -> None:
        """No tables needed."""

    def choose(self, moves: Moves) -> np.ndarray:
        """A capture if any, else the runner's move."""
        capture = moves.capture
        return np.where(capture != 0, highest(capture), np.where(moves.enter_captures, U64(0), runner_choice(moves)))


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


class Cautious:
    """Minimise the number of die faces with which the opponent could capture one of my buttons next roll.

    The position after each option is scored exactly (captured opponent buttons no longer threaten, but add a
    waiting button that can enter); ties go to the most advanced button, entering last.
    """

    def __init__(self, params: Params) -> None:
        """No tables needed."""

    def choose(self, moves: Moves) -> np.ndarray:
        """Evaluate every option, keep the least exposed."""
        length = moves.params.track_length
        best_danger = np.full(len(moves.games), 1 << 14, dtype=np.int16)
        best = np.zeros(len(moves.games), dtype=U64)
        for valid, single in options(moves):
            target = moves.target(single) | (single == 0).astype(U64)  # entering lands on progress 0
            captured = target & moves.theirs & ~moves.safe
            mine = (moves.mine ^ single) | target
            theirs_own = moves.theirs_own & ~rotate(captured, moves.to_them, length)
            danger = danger_after(moves, mine, theirs_own, moves.off_them + (captured != 0))
            better = valid & (danger <= best_danger)
            best_danger = np.where(better, danger, best_danger)
            best = np.where(better, single, best)
        return best


def full_adder(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bit-sliced sum of three bits per position: (sum, carry)."""
    t = a ^ b
    return t ^ c, (a & b) | (t & c)


def bit_sliced_sum(columns: list[list[np.ndarray]]) -> list[np.ndarray]:
    """Add bit sets position by position: ``columns[w]`` holds sets worth ``2**w`` each; returns the sum's planes."""
    columns = [list(c) for c in columns]
    planes = []
    level = 0
    while level < len(columns):
        column = columns[level]
        carries = []
        while len(column) >= 3:
            total, carry = full_adder(column.pop(), column.pop(), column.pop())
            column.append(total)
            carries.append(carry)
        if len(column) == 2:
            a, b = column.pop(), column.pop()
            column.append(a ^ b)
            carries.append(a & b)
        planes.append(column[0] if column else None)
        if carries:
            if level + 1 == len(columns):
                columns.append([])
            columns[level + 1].extend(carries)
        level += 1
    return planes


def threat_counts(moves: Moves) -> list[np.ndarray]:
    """Bit-sliced count of threat faces on every square of the mover's frame: plane ``i`` holds bit ``i``."""
    params = moves.params
    length = params.track_length
    full = U64((1 << length) - 1)
    hits = []
    for face in range(1, params.die_faces + 1):
        landing = (moves.theirs_own << U64(face)) & full  # in the opponent's frame, short of its finish
        if face == params.enter_roll:  # its start square is bit 0 of its frame
            landing |= (moves.off_them > 0).view(np.uint8).astype(U64)
        hits.append(landing)
    zero = np.zeros_like(moves.mine)
    return [
        rotate((zero if plane is None else plane) & ~moves.safe_theirs, moves.to_me, length)
        for plane in bit_sliced_sum([hits])
    ]


class Balanced:
    """A weighted score of each move; ties go to the most advanced button.

    Features: capture, finish, enter, grey corner, safe square, bad luck, and the threat faces (of the opponent's
    position before the move) on the landing square (a cost) and on the square left (a gain).

    The score of every button move is computed at once, bit-sliced over source squares (weights are powers of
    two; a negative weight is a positive weight on the complement, which shifts every score alike), and the
    best source is found by filtering the legal set plane by plane from the top.
    """

    def __init__(self, params: Params) -> None:
        """No tables needed."""

    def choose(self, moves: Moves) -> np.ndarray:
        """Score every option and keep the best."""
        counts = threat_counts(moves)
        die = moves.die
        hittable = moves.theirs & ~moves.safe
        at_target = [c >> die for c in counts]
        # columns by weight 2**w; every score here is the rulebook score plus OFFSET
        columns: list[list[np.ndarray]] = [[] for _ in range(6)]
        for level, plane in enumerate(counts):  # W_RISK_FROM = 2 per face on the square left
            columns[level + 1].append(plane)
        for level, plane in enumerate(at_target):  # W_RISK_TO = -4 per face on the landing square
            columns[level + 2].append(~plane)
        columns[3].append(moves.safe >> die)  # W_SAFE = 8
        columns[4].append(moves.grey >> die)  # W_GREY = 16
        columns[4].append(~(moves.bad >> die))  # W_BAD = -16
        columns[5].append((hittable >> die) | moves.finish)  # W_CAPTURE = W_FINISH = 32 (never both)
        planes = bit_sliced_sum(columns)

        best = moves.legal
        for plane in reversed(planes):
            if plane is None:
                continue
            kept = best & plane
            best ^= (best ^ kept) & (U64(0) - (kept != 0).astype(U64))
        best = highest(best)
        rows = np.flatnonzero(moves.enter)  # entering competes with the best button move (few games)
        if len(rows) == 0:
            return best
        candidate = best[rows]
        best_score = np.zeros(len(rows), dtype=np.int16)
        for level, plane in enumerate(planes):
            if plane is not None:
                best_score += ((plane[rows] & candidate) != 0).astype(np.int16) << level
        # entering lands on progress 0: my start square (never a marker or a grey corner)
        offset_risk = -W_RISK_TO * ((1 << len(counts)) - 1)
        enter_score = np.full(len(rows), W_ENTER - W_BAD + offset_risk, dtype=np.int16)
        enter_score += ((hittable[rows] & ONE) != 0).astype(np.int16) * W_CAPTURE
        for level, plane in enumerate(counts):
            enter_score += ((plane[rows] & ONE) != 0).astype(np.int16) * (W_RISK_TO << level)
        best[rows[(candidate == 0) | (enter_score > best_score)]] = 0
        return best


POLICIES: dict[str, Policy] = {
    p.name: p
    for p in (
        Policy("random", "A legal move chosen uniformly at random.", Random),
        Policy("runner", "Advance the leading button; enter only when no button can move.", Runner),
        Policy("aggressive", "Capture when possible, otherwise advance the leading button.", Aggressive),
        Policy("cautious", "Minimise the die faces with which the opponent could capture next roll.", Cautious),
        Policy("balanced", "Weighted score of capture, safety, progress, bonus squares and penalties.", Balanced),
    )
}
