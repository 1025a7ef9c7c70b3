"""Panots in words: the table as the grabbing seat sees it, and each card it may grab.

Everything on the table is public: the sidewalks, the warehouse, the objectives and their tokens. The decks'
order is not, and nothing here reads it. A sidewalk is drawn as a grid of two-letter panots (colour initial,
then shape initial: ``bF`` is a blue flower; ``..`` an empty cell). Plain strings only.
"""

from __future__ import annotations

import numpy as np

from engines.panots.decisions import Point
from engines.panots.rules import CARD_FACES, CARDS, COLOURS, EMPTY, FACE_VP, FACES, GRID, SHAPES, TOKENS

SHAPE_LETTERS = ("F", "P", "E", "X")  #: flower, pills, ensaimada, four-eyes
SLOTS = ((0, 3), (3, 4), (4, 6), (6, 8))  #: each objective card's token slots

RULES = """\
Panots, in our words.
Each round everyone turns up a card into the warehouse; then, in priority order, each grabs one card and lays
it in their sidewalk: both panots on empty cells, touching what is already laid, each matching in colour or
shape every laid panot beside it. A card that cannot be laid is exchanged for the warehouse's leftover (or
discarded). After the last round the objectives score: each time its pattern of tokens appears, in any
rotation or reflection. A token stands for every panot of its colour or its shape.
Here you choose the grab; the card is then laid where the planner would lay it (placement has no decision
point yet)."""


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


def turn(point: Point, row: int = 0) -> int:
    """The number of the round of ``row``'s grab, counted from 1."""
    return int(point.state.round) + 1


def view(point: Point, row: int = 0) -> list[str]:
    """What ``row``'s grabber sees: objectives, warehouse, grabs so far and every sidewalk."""
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


def moves(point: Point, row: int = 0) -> list[tuple[int, str]]:
    """Every legal grab of ``row`` and its words, in slot order."""
    out = []
    for slot in np.flatnonzero(point.legal()[row]).tolist():
        stuck = "" if point.count[row, slot] > 0 else " (it cannot be laid)"
        out.append((slot, f"take the {card(int(point.wh[row, slot]))} card{stuck}"))
    return out
