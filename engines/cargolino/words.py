"""Cargolino in words: the race as the deciding seat sees it, and each legal (snail, die) move.

The seat sees every snail, the dice and the shells banked, and which snails are its own; who holds the other
snails stays hidden (unless ownership is open). Nothing here reads the other seats' tokens of a hidden deal.
Plain strings only.
"""

from __future__ import annotations

import numpy as np

from boardlab.engines.cargolino.decisions import Point
from boardlab.engines.cargolino.rules import CODE_BITS, COLOURS, N_SNAILS

RULES = """\
Cargolino Valentino, in our words.
Each race you secretly hold one or two snails. On your turn roll the dice and use them one by one: a die moves
one snail one space forward, either the snail of the die's colour, or a snail standing on a space of that
colour, or any snail still at the start. You must use a die while some die can move some snail. The race ends
after a turn in which a snail reached the finish; each held snail then scores its owner the shells of its
space, more the further back it is. So push the others' snails ahead and keep your own behind. After the last
race, most shells wins."""


def _where(pos: int, length: int, space_colour: np.ndarray) -> str:
    if pos == 0:
        return "the start"
    if pos == length + 1:
        return "the finish"
    return f"space {pos} ({COLOURS[int(space_colour[pos])]})"


def turn(point: Point, row: int = 0) -> int:
    """The number of the turn of ``row``'s decision in the game, counted from 1."""
    return int(point.state.turn[row]) + 1


def dice(code: int) -> list[str]:
    """The colours of the dice still to use."""
    mask = (1 << CODE_BITS) - 1
    return [COLOURS[c] for c in range(N_SNAILS) for _ in range((code >> (CODE_BITS * c)) & mask)]


def view(point: Point, row: int = 0) -> list[str]:
    """What ``row``'s mover sees: the snails, its own snails, the dice left and the shells banked."""
    params, state = point.params, point.state
    tables = params.tables
    me = int(point.seat[row])
    own = int(state.held[row, me])
    lines = [f"Race {int(state.race[row]) + 1} of {params.races}, turn {turn(point, row)}: seat {me} to use a die."]
    for snail in range(N_SNAILS):
        where = _where(int(state.pos[row, snail]), tables.length, tables.space_colour)
        if own >> snail & 1:
            whose = "  ← yours"
        elif not point.hidden and state.owner[row, snail] >= 0:
            whose = f"  (seat {int(state.owner[row, snail])})"
        else:
            whose = ""
        lines.append(f"  {COLOURS[snail]} snail: {where}{whose}")
    lines.append("Dice to use: " + ", ".join(dice(int(point.code[row]))))
    lines.append("Shells banked: " + ", ".join(f"seat {p} {int(v)}" for p, v in enumerate(state.banked[row])))
    return lines


def moves(point: Point, row: int = 0) -> list[tuple[int, str]]:
    """Every legal candidate of ``row`` and its words, in candidate order."""
    return [
        (c, f"move the {COLOURS[c // N_SNAILS]} snail with a {COLOURS[c % N_SNAILS]} die")
        for c in np.flatnonzero(point.legal()[row]).tolist()
    ]


ASSUMES = {
    "detective": "pushes the snail its belief (read from the others' play) gives a rival with the most shells to lose",
    "hindmost": "assumes nothing of who holds what and pushes the snail not its own with the most shells to lose",
    "random": "moves at random",
}
"""What each heuristic assumes of the deal, completing "detective …" (only policies that see what the seat sees)."""


def _push(point: Point, move: int, row: int) -> str:
    """``"pushes the red snail (not its own) from space 16 to 17, from 2 shells to 1"``, from public facts only."""
    tables, state = point.params.tables, point.state
    snail = move // N_SNAILS
    shells = point.params.shell_values
    here = int(state.pos[row, snail])
    there = min(here + 1, tables.length + 1)
    own = int(state.held[row, int(point.seat[row])]) >> snail & 1
    whose = "its own" if own else "not its own"
    ends = " and ends the race" if there == tables.length + 1 else ""
    worth = f"{shells[here]} shells to {shells[there]}" if shells[here] != shells[there] else f"{shells[here]} shells"
    steps = (_where(p, tables.length, tables.space_colour) for p in (here, there))
    return f"pushes the {COLOURS[snail]} snail ({whose}) from {' to '.join(steps)} ({worth}){ends}"


def explain(point: Point, strong: int, heuristic: int, name: str, row: int = 0) -> str:
    """One sentence on what the strong move knows that heuristic ``name``'s does not, in Cargolino's terms.

    Only what the seat sees: its own snails, every snail's space and the dice (never who holds the others).
    """
    tables, state = point.params.tables, point.state
    me = int(point.seat[row])
    own = int(state.held[row, me])
    mine = [COLOURS[s] for s in range(N_SNAILS) if own >> s & 1]
    left = tables.length + 1 - int(state.pos[row].max())
    return (
        f"Seat {me} holds the {' and '.join(mine) or 'no'} snail(s) and the leading snail is {left} space(s) from the "
        f"finish: the strong move {_push(point, strong, row)}, where {name} {_push(point, heuristic, row)}; "
        f"{name} {ASSUMES.get(name, 'follows its own fixed rule')}, where the strong move weighs its own snails' "
        "shells against how soon the race ends."
    )
