"""Panots in words: the table as the grabbing seat sees it, and each card it may grab.

Everything on the table is public: the sidewalks, the warehouse, the objectives and their tokens. The decks'
order is not, and nothing here reads it. A sidewalk is drawn as a grid of two-letter panots (colour initial,
then shape initial: ``bF`` is a blue flower; ``..`` an empty cell). Plain strings only.
"""

from __future__ import annotations

import numpy as np

from boardlab.engines.panots.decisions import Placement, Point
from boardlab.engines.panots.geometry import (
    CARD_FACES,
    CARDS,
    COLOURS,
    DIRS,
    EMPTY,
    FACE_VP,
    FACES,
    GRID,
    SHAPES,
    TOKENS,
)

SHAPE_LETTERS = ("F", "P", "E", "X")  #: flower, pills, ensaimada, four-eyes
MARGIN = 2  #: empty rows and columns drawn round a sidewalk when laying a card (a card reaches 2 cells out)
SIDES = ("to its right", "below it", "to its left", "above it")  #: the second panot's side, by direction
SLOTS = ((0, 3), (3, 4), (4, 6), (6, 8))  #: each objective card's token slots

RULES = """\
Panots, in our words.
Each round everyone turns up a card into the warehouse; then, in priority order, each grabs one card and lays
it in their sidewalk: both panots on empty cells, touching what is already laid, each matching in colour or
shape every laid panot beside it. A card that cannot be laid is exchanged for the warehouse's leftover (or
discarded). After the last round the objectives score: each time its pattern of tokens appears, in any
rotation or reflection. A token stands for every panot of its colour or its shape.
Here you choose the grab and where to lay it (cells named by column letter and row number on the drawn frame);
hints and reviews value the grab only."""


def panot(kind: int) -> str:
    """``"blue flower"``."""
    return f"{COLOURS[kind // 4]} {SHAPES[kind % 4]}"


def card(card_id: int) -> str:
    """``"blue flower + red pills"``."""
    first, second = CARDS[card_id]
    return f"{panot(int(first))} + {panot(int(second))}"


def sidewalk(cells: np.ndarray) -> list[str]:
    """The laid part of one sidewalk (flat ``GRID * GRID`` panot kinds) as rows of two-letter panots."""
    grid = cells.reshape(GRID, GRID)
    used_rows, used_cols = np.nonzero(grid != EMPTY)
    if not len(used_rows):
        return ["  (empty)"]
    out = []
    for r in range(used_rows.min(), used_rows.max() + 1):
        cols = range(used_cols.min(), used_cols.max() + 1)
        out.append("  " + " ".join(".." if grid[r, c] == EMPTY else _short(int(grid[r, c])) for c in cols))
    return out


def _short(kind: int) -> str:
    return COLOURS[kind // 4][0] + SHAPE_LETTERS[kind % 4]


def frame(cells: np.ndarray) -> tuple[int, int, int, int]:
    """Rows and columns (first and last) of a sidewalk drawn with :data:`MARGIN` round it."""
    used_rows, used_cols = np.nonzero(cells.reshape(GRID, GRID) != EMPTY)
    if not len(used_rows):
        return GRID // 2, GRID // 2, GRID // 2, GRID // 2
    return (
        int(used_rows.min()) - MARGIN,
        int(used_rows.max()) + MARGIN,
        int(used_cols.min()) - MARGIN,
        int(used_cols.max()) + MARGIN,
    )


def cell_name(cell: int, box: tuple[int, int, int, int]) -> str:
    """A flat cell's name on the drawn frame: column letter, row number (``"c2"``)."""
    r, c = divmod(cell, GRID)
    return f"{chr(ord('a') + c - box[2])}{r - box[0] + 1}"


def turn(point: Point | Placement, row: int = 0) -> int:
    """The number of the round of ``row``'s decision, counted from 1."""
    return int(point.state.round) + 1


def laying(point: Placement, row: int = 0) -> list[str]:
    """The sidewalk of the seat laying a card, framed and labelled, and the card."""
    cells = point.state.cell[row, int(point.seat[row])]
    box = frame(cells)
    grid = cells.reshape(GRID, GRID)
    columns = range(box[2], box[3] + 1)
    lines = [f"Round {turn(point, row)}: seat {int(point.seat[row])} lays the {card(int(point.card[row]))} card."]
    lines.append("     " + " ".join(f"{chr(ord('a') + c - box[2]):>2}" for c in columns))
    for r in range(box[0], box[1] + 1):
        said = " ".join(".." if grid[r, c] == EMPTY else _short(int(grid[r, c])) for c in columns)
        lines.append(f"  {r - box[0] + 1:>2} {said}")
    return lines


def view(point: Point | Placement, row: int = 0) -> list[str]:
    """What ``row``'s decider sees: objectives, warehouse, grabs so far and every sidewalk (or the card to lay)."""
    if isinstance(point, Placement):
        return laying(point, row)
    st, params = point.state, point.params
    me = int(point.seat[row])
    lines = [f"Round {turn(point, row)} of {params.cards_per_player}: seat {me} grabs (place {point.k + 1})."]
    for c, (a, b) in enumerate(CARD_FACES):
        face = a if st.up[row, FACES.index(a)] else b
        lo, hi = SLOTS[c]
        tokens = ", ".join(TOKENS[int(t)] for t in st.slot_token[row, lo:hi])
        lines.append(f"Objective {c + 1}: {face} ({FACE_VP[FACES.index(face)]} VP) with {tokens}")
    taken = {int(point.grabbed[row, s]): s for s in point.order[row, : point.k].tolist()}
    for slot, card_id in enumerate(point.wh[row].tolist()):
        by = f"  (grabbed by seat {taken[slot]})" if slot in taken else ""
        lines.append(f"Warehouse {slot + 1}: {card(card_id)}{by}")
    for seat in range(point.players):
        you = " (you)" if seat == me else ""
        lines.append(f"Seat {seat}{you}: {int(st.n_cells[row, seat]) // 2} cards laid")
        lines += sidewalk(st.cell[row, seat])
    return lines


def moves(point: Point | Placement, row: int = 0) -> list[tuple[int, str]]:
    """Every legal grab (or placement) of ``row`` and its words, in candidate order."""
    if isinstance(point, Placement):
        box = frame(point.state.cell[row, int(point.seat[row])])
        first, second = (panot(int(t)) for t in CARDS[int(point.card[row])])
        out = []
        for j in np.flatnonzero(point.legal()[row]).tolist():
            d, cell = divmod(int(point.ats[row, j]), GRID * GRID)
            other = cell + DIRS[d][0] * GRID + DIRS[d][1]
            here, there = cell_name(cell, box), cell_name(other, box)
            out.append((j, f"{first} on {here}, {second} on {there} ({SIDES[d]})"))
        return out
    out = []
    for slot in np.flatnonzero(point.legal()[row]).tolist():
        stuck = "" if point.count[row, slot] > 0 else " (it cannot be laid)"
        out.append((slot, f"take the {card(int(point.wh[row, slot]))} card{stuck}"))
    return out


AIMS = {
    "greedy": "grabs for this turn's objective VP alone (majorities aside)",
    "majority-aware": "grabs for this turn's VP and the majority groups it grows",
    "planner": "grabs for this turn's VP, the majorities and the patterns the unseen cards may complete",
    "denier": "grabs for this turn's VP and what the card would give the seats grabbing after it",
    "random": "grabs at random",
}
"""What each heuristic's grab aims at, completing "planner …"."""


def _objectives(point: Point, row: int) -> list[tuple[str, set[str]]]:
    """Each objective's face up and its tokens' words."""
    st = point.state
    out = []
    for c, (a, b) in enumerate(CARD_FACES):
        face = a if st.up[row, FACES.index(a)] else b
        lo, hi = SLOTS[c]
        out.append((face, {TOKENS[int(t)] for t in st.slot_token[row, lo:hi]}))
    return out


def _serves(point: Point, slot: int, row: int) -> str:
    """``"blue flower + red pills card (serving l: blue; majority: pills)"``: the objectives its panots match."""
    card_id = int(point.wh[row, slot])
    kinds = [(COLOURS[int(k) // 4], SHAPES[int(k) % 4]) for k in CARDS[card_id]]
    served = []
    for face, tokens in _objectives(point, row):
        matched = sorted(t for t in tokens if any(t in kind for kind in kinds))
        if matched:
            served.append(f"{face} ({FACE_VP[FACES.index(face)]} VP): {', '.join(matched)}")
    return f"the {card(card_id)} card ({'serving ' + '; '.join(served) if served else 'serving no objective'})"


def explain(point: Point | Placement, strong: int, heuristic: int, name: str, row: int = 0) -> str:
    """One sentence on what the strong move knows that heuristic ``name``'s does not, in Panots' terms."""
    said = dict(moves(point, row))
    me = int(point.seat[row])
    if isinstance(point, Placement):
        return f"Seat {me} lays its card {said[strong]} where {name} would lay it {said[heuristic]}."
    st, params = point.state, point.params
    left = params.cards_per_player - int(st.round)
    after = point.players - point.k - 1
    return (
        f"Round {turn(point, row)} of {params.cards_per_player}, seat {me} grabs ({left} card(s) left, {after} "
        f"seat(s) grab after it): the strong move takes {_serves(point, strong, row)}, where {name} takes "
        f"{_serves(point, heuristic, row)}; {name} {AIMS.get(name, 'follows its own fixed rule')}, where the strong "
        "move weighs the whole game's objectives and majorities."
    )
