"""Patolli in words: the board as the deciding seat sees it (everything is public), and each legal move.

Squares are numbered as in the README (clockwise from the north arm, 0 to L-1). Plain strings only.
"""

from __future__ import annotations

import numpy as np

from boardlab.engines.patolli.decisions import ExtraPoint, MarkerPoint, Point
from boardlab.engines.patolli.rules import SAFE, layout, marker_sets, placements

RULES = """\
Patolli, in our words.
Two players race six buttons each once round the cross-shaped track. Roll the die and move one button that
many squares clockwise (a 5 moves and rolls again; a 6 just moves); on a 1 you may instead bring a waiting
button onto your start square. A button may not stop on one of your own. Landing on an opponent's button
outside a safe square sends it back to wait, and its owner pays a token to the bank; stopping on a bad-luck
square costs you a token; landing on a grey corner (an arm's end) gives another move. A button leaves the
board when it comes exactly back to its start square. A roll with no legal move is lost and costs a token
if you have a button out. Out of tokens, you lose; all buttons home, you win and take the bank."""


def _squares(bits: int, start: int, length: int) -> list[int]:
    """The squares of a seat's progress bit set."""
    return sorted((start + p) % length for p in range(length) if bits >> p & 1)


def _bit_squares(bits: int, length: int) -> list[int]:
    return [s for s in range(length) if bits >> s & 1]


def turn(point: Point | ExtraPoint | MarkerPoint, row: int = 0) -> int:
    """The number of the turn of ``row``'s decision, counted from 1 (0 while the markers are placed)."""
    return 0 if isinstance(point, MarkerPoint) else int(point.state.turn[row]) + 1


def view(point: Point | ExtraPoint | MarkerPoint, row: int = 0) -> list[str]:
    """The board, purses and markers as seen by ``row``'s decider, and what the decision is about."""
    params, state = point.params, point.state
    lay = layout(params)
    me = int(point.seat[row])
    if isinstance(point, MarkerPoint):
        kind = "safe" if placements(params)[point.step][0] == SAFE else "bad-luck"
        lines = [f"Setting up: seat {me} places a {kind} marker."]
    elif isinstance(point, ExtraPoint):
        lines = [f"Turn {turn(point, row)}: seat {me} landed on a grey corner and may move again."]
    else:
        lines = [f"Turn {turn(point, row)}: seat {me} rolled a {int(point.die[row])}."]
    for seat in range(2):
        you = " (you)" if seat == me else ""
        on = _squares(int(state.track[seat, row]), lay.starts[seat], lay.length)
        lines.append(
            f"Seat {seat}{you}: buttons on squares {', '.join(map(str, on)) or 'none'}; "
            f"{int(state.off[seat, row])} waiting, {int(state.home[seat, row])} home; "
            f"{int(state.tokens[seat, row])} tokens; starts on square {lay.starts[seat]}"
        )
    safe, bad = marker_sets(params, state)
    lines.append(
        f"Safe squares: {', '.join(map(str, _bit_squares(int(safe[row]), lay.length))) or 'none'}; "
        f"bad-luck squares: {', '.join(map(str, _bit_squares(int(bad[row]), lay.length))) or 'none'}; "
        f"grey corners: {', '.join(map(str, lay.grey))}; bank: {int(state.bank[row])} tokens"
    )
    return lines


def moves(point: Point | ExtraPoint | MarkerPoint, row: int = 0) -> list[tuple[int, str]]:
    """Every legal candidate of ``row`` and its words, in candidate order."""
    legal = np.flatnonzero(point.legal()[row]).tolist()
    if isinstance(point, MarkerPoint):
        kind = "safe" if placements(point.params)[point.step][0] == SAFE else "bad-luck"
        return [(s, f"put a {kind} marker on square {s}") for s in legal]
    if isinstance(point, ExtraPoint):
        return [(c, "take the extra move" if c == 0 else "pass the turn") for c in legal]
    lay = layout(point.params)
    me, state = int(point.seat[row]), point.state
    start, die = lay.starts[me], int(point.die[row])
    theirs = set(_squares(int(state.track[1 - me, row]), lay.starts[1 - me], lay.length))
    safe = set(_bit_squares(int(marker_sets(point.params, state)[0][row]), lay.length))
    out = []
    for c in legal:
        if c == 0:
            can_enter = state.off[me, row] > 0 and point.moves().enter[row]
            out.append((0, f"enter a button on square {start}" if can_enter else "lose the roll (no legal move)"))
            continue
        progress = c - 1
        here = (start + progress) % lay.length
        if progress + die >= lay.length:
            out.append((c, f"bring the button on square {here} home"))
            continue
        there = (start + progress + die) % lay.length
        hit = " and capture" if there in theirs and there not in safe else ""
        out.append((c, f"move the button on square {here} to square {there}{hit}"))
    return out


def _landing(point: Point, move: int, row: int) -> int | None:
    """The square candidate ``move`` of a roll stops on (``None``: it enters, goes home or loses the roll)."""
    lay = layout(point.params)
    me, die = int(point.seat[row]), int(point.die[row])
    progress = move - 1
    if move == 0 or progress + die >= lay.length:
        return None
    return (lay.starts[me] + progress + die) % lay.length


def _risk(point: Point, square: int | None, row: int) -> str:
    """What stopping on ``square`` means: a capture, a bad-luck token, a shelter or an opponent within one roll."""
    if square is None:
        return "puts no button at risk"
    params, state = point.params, point.state
    lay = layout(params)
    me = int(point.seat[row])
    safe, bad = (set(_bit_squares(int(bits[row]), lay.length)) for bits in marker_sets(params, state))
    theirs = _squares(int(state.track[1 - me, row]), lay.starts[1 - me], lay.length)
    said = []
    if square in theirs and square not in safe:
        said.append("captures")
    if square in bad:
        said.append("pays a bad-luck token")
    behind = [s for s in theirs if 0 < (square - s) % lay.length <= params.die_faces]
    if square in safe:
        said.append("stops on a safe square")
    elif behind:
        said.append(f"stops within one roll of {len(behind)} opponent button(s)")
    return " and ".join(said) or "stops out of the opponent's reach"


def explain(point: Point | ExtraPoint | MarkerPoint, strong: int, heuristic: int, name: str, row: int = 0) -> str:
    """One sentence on what the strong move knows that heuristic ``name``'s does not, in Patolli's terms."""
    said = dict(moves(point, row))
    chosen = [said[m] for m in (strong, heuristic)]
    state, me = point.state, int(point.seat[row])
    standing = (
        f"Seat {me} has {int(state.home[me, row])} button(s) home and {int(state.tokens[me, row])} tokens against "
        f"the opponent's {int(state.home[1 - me, row])} and {int(state.tokens[1 - me, row])}"
    )
    if isinstance(point, MarkerPoint):
        lay = layout(point.params)
        where = [_from_starts(lay.starts, m, lay.length, me) for m in (strong, heuristic)]
        return (
            f"{standing}: the strong move will {chosen[0]} ({where[0]}) where {name} would {chosen[1]} "
            f"({where[1]}); the squares just past a start are the ones that seat's buttons cross first and most "
            "often: a safe marker there shelters them, a bad-luck marker there costs them."
        )
    if isinstance(point, ExtraPoint):
        return f"{standing}: the strong move chooses to {chosen[0]} where {name} would {chosen[1]}."
    risks = [_risk(point, _landing(point, m, row), row) for m in (strong, heuristic)]
    waiting = int(state.off[me, row])
    return (
        f"{standing}, {waiting} waiting to enter: the strong move will {chosen[0]}, which {risks[0]}, where {name} "
        f"would {chosen[1]}, which {risks[1]}."
    )


def _from_starts(starts: tuple[int, int], square: int, length: int, me: int) -> str:
    """``"2 squares past the opponent's start"``: where a square lies from the nearer start behind it."""
    seat = min(range(2), key=lambda s: (square - starts[s]) % length)
    whose = "its own" if seat == me else "the opponent's"
    past = (square - starts[seat]) % length
    return f"on {whose} start square" if past == 0 else f"{past} squares past {whose} start"
