"""Panots geometry and encodings: panot types, cards, the sidewalk board, objective faces and pattern shapes.

Constants only (and the one helper that lists a shape's instances): :mod:`engines.panots.rules` and the compiled
:mod:`engines.panots.kernels` both read them, and this module imports neither, so the kernels need nothing of
the rules module (pgx's split of a game's kernels from its public module). The encodings are described in
:mod:`engines.panots.rules`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

COLOURS = ("blue", "red", "yellow", "green")
SHAPES = ("flower", "pills", "ensaimada", "four-eyes")
TOKENS = COLOURS + SHAPES
EMPTY = 16
GRID = 44  # 10 cards reach at most 18 cells from the first card; windows need 5 more cells of margin
START = (21, 21)
DIRS = ((0, 1), (1, 0), (0, -1), (-1, 0))  # right, down, left, up
FACES = ("line", "l", "surrounded", "free", "adjacent", "diagonal", "space", "majority")
FACE_VP = (2, 2, 2, 1, 1, 1, 1, 3)  # VP per occurrence; majority: per majority won
SPACE_DIAGONAL = 8  # internal face: 'one space between' read diagonally (scored as space; see Params.space_diagonal)
CARD_FACES = (("line", "l"), ("surrounded", "free"), ("adjacent", "diagonal"), ("space", "majority"))
TITLES = ("none", "beginner", "apprentice", "professional", "master", "legend")
UNPLACEABLE = -64  # gain of a card that has no legal placement (below any real gain)
UNPLACEABLE_VALUE = -(1 << 40)  # policy value of a card that has no legal placement (below any real value)
CHUNK = 2048  # games played together; bounds memory (about 6 kB per seat and game)


def _cards() -> np.ndarray:
    pairs = [(a, b) for a in range(16) for b in range(a + 1, 16) if a // 4 != b // 4 and a % 4 != b % 4]
    return np.array(pairs, dtype=np.int64)


CARDS = _cards()  # (72, 2) types of each card's two panots
N_CARDS = len(CARDS)
CARD_TYPES = np.zeros((N_CARDS, 16), dtype=np.int64)  # panots of each type on each card
CARD_TYPES[np.arange(N_CARDS)[:, None], CARDS] = 1
TYPE_TOKENS = np.array([(1 << (t // 4)) | (1 << (4 + t % 4)) for t in range(16)], dtype=np.int64)
MATCH16 = np.array(
    [sum(1 << u for u in range(16) if u // 4 == t // 4 or u % 4 == t % 4) for t in range(16)] + [0xFFFF], dtype=np.int64
)  # types compatible with each type; anything next to an empty cell


# --- pattern instances ---------------------------------------------------------------------------------------

PAIR_SHAPES = {
    "adjacent": (((0, 0), (0, 1)), ((0, 0), (1, 0))),
    "diagonal": (((0, 0), (1, 1)), ((0, 0), (1, -1))),
    "space": (((0, 0), (0, 2)), ((0, 0), (2, 0))),
}
TRIPLE_SHAPES = {
    "line": (((0, -1), (0, 0), (0, 1)), ((-1, 0), (0, 0), (1, 0))),
    "l": tuple(
        ((u[0], u[1]), (0, 0), (v[0], v[1]))
        for u, v in (((-1, 0), (0, 1)), ((0, 1), (1, 0)), ((1, 0), (0, -1)), ((0, -1), (-1, 0)))
    ),
}


def instances_touching(
    shapes: Sequence[tuple[tuple[int, int], ...]], cells: Sequence[tuple[int, int]]
) -> list[tuple[tuple[int, int], ...]]:
    """Every placed copy of the ``shapes`` (offsets) that covers one of ``cells``, each set of cells once."""
    seen, out = set(), []
    for shape in shapes:
        for anchor in shape:
            for cell in cells:
                inst = tuple((cell[0] + r - anchor[0], cell[1] + c - anchor[1]) for r, c in shape)
                key = frozenset(inst)
                if key not in seen:
                    seen.add(key)
                    out.append(inst)
    return out
