"""Panots rules, batched: cards, parameters, sidewalk grids, placement legality, scoring, the draft and ``play``.

Encodings (shared with the reference engine):

* A panot type is ``colour * 4 + shape`` (0..15); 16 marks an empty grid cell.
* A card is a pair of types ``(a, b)`` with ``a < b`` differing in colour and in shape: 72 cards, ids 0..71.
* The 8 feature tokens are the 4 colours (0..3) then the 4 shapes (4..7).
* Objective slots: the 8 tokens lie on 8 slots; card 1 (line / L) holds slots 0, 1, 2 in reading order,
  card 2 (surrounded / three free sides) slot 3, card 3 (adjacent / diagonal) slots 4, 5 and card 4 (one space
  between / two majorities) slots 6, 7. A cell's *slot bits* say which slot tokens its panot matches.
* A sidewalk lives on a ``GRID`` × ``GRID`` board, flattened row-major; the first card is put with its first panot
  at ``START`` and its second to the right (every first placement is the same up to rotation and translation,
  and scoring is blind to both). A placement ``(d, r, c)`` puts the card's first panot at ``(r, c)`` and its
  second one step in direction ``d`` (right, down, left, up). Ties are broken by the first placement in
  ``(d, r, c)`` order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from engines import core
from engines.core import GameInfo, Metric, Outcome, knob

INFO = GameInfo(
    id="panots", name="Panots", version=1, min_players=1, max_players=7, chance=True, turn_cap=10, score_label="VP"
)

COLOURS = ("blue", "red", "yellow", "green")
SHAPES = ("flower", "pills", "ensaimada", "four-eyes")
TOKENS = COLOURS + SHAPES
EMPTY = 16
GRID = 44  # 10 cards reach at most 18 cells from the first card; windows need 5 more cells of margin
START = (21, 21)
DIRS = ((0, 1), (1, 0), (0, -1), (-1, 0))  # right, down, left, up
FACES = ("line", "l", "surrounded", "free", "adjacent", "diagonal", "space", "majority")
FACE_VP = (2, 2, 2, 1, 1, 1, 1, 3)  # VP per occurrence; majority: per majority won
CARD_FACES = (("line", "l"), ("surrounded", "free"), ("adjacent", "diagonal"), ("space", "majority"))
TITLES = ("none", "beginner", "apprentice", "professional", "master", "legend")
UNPLACEABLE = -64  # value of a card that has no legal placement (below any real gain)
CHUNK = 2048  # games played together; bounds memory (about 17 kB per seat and game)
KEY = 1 << 12  # value * KEY - placement index orders placements by value, then first in (d, r, c) order


def _cards() -> np.ndarray:
    pairs = [(a, b) for a in range(16) for b in range(a + 1, 16) if a // 4 != b // 4 and a % 4 != b % 4]
    return np.array(pairs, dtype=np.int64)


CARDS = _cards()  # (72, 2) types of each card's two panots
N_CARDS = len(CARDS)
TYPE_TOKENS = np.array([(1 << (t // 4)) | (1 << (4 + t % 4)) for t in range(16)], dtype=np.int64)
MATCH16 = np.array(
    [sum(1 << u for u in range(16) if u // 4 == t // 4 or u % 4 == t % 4) for t in range(16)] + [0xFFFF], dtype=np.int64
)  # types compatible with each type; anything next to an empty cell
MATCH16_U16 = MATCH16.astype(np.uint16)

METRICS: dict[str, Metric] = {
    "placed": Metric("seat", "cards placed"),
    "swapped": Metric("seat", "cards swapped for a leftover"),
    "discarded": Metric("seat", "cards discarded"),
    **{f"vp_{f}": Metric("seat", f"VP from the {f} objective") for f in FACES},
    "width": Metric("seat", "sidewalk bounding-box width (cells)"),
    "height": Metric("seat", "sidewalk bounding-box height (cells)"),
    "face_up": Metric("counts", "objective faces in play", FACES),
    "title": Metric("counts", "solo titles reached", TITLES),
}


@dataclass(frozen=True, slots=True)
class Params(core.Params):
    """Panots knobs; card set, objectives and VP from games.md (the objective layout there is our default)."""

    cards_per_player: int = knob(10, "Cards dealt to each player (rounds played).", "1..10")
    faces: tuple[str, ...] = knob(
        (),
        "Objective faces, one per card (line|l, surrounded|free, adjacent|diagonal, "
        "space|majority); empty = random per game.",
        "() or 4 face names in card order",
    )
    tokens: tuple[str, ...] = knob(
        (),
        "Feature tokens on slots 0..7 (line/L 3, surrounded/free 1, adjacent/"
        "diagonal 2, space/majorities 2); empty = random per game.",
        "() or the 8 token names, each once",
    )
    grab_order: Literal["random", "seat"] = knob(
        "random", "Who grabs first each round: a random priority order per round, or seat order.", "random | seat"
    )

    def __post_init__(self) -> None:
        """Reject out-of-range knobs with a message naming the knob, the value and the allowed range."""
        core.check_range("cards_per_player", self.cards_per_player, 1, 10)
        faces = self.faces
        if not isinstance(faces, tuple) or (
            faces and (len(faces) != 4 or any(f not in pair for f, pair in zip(faces, CARD_FACES, strict=False)))
        ):
            raise ValueError(
                f"faces={faces!r} is not allowed; give () for random or one face per card: "
                + ", ".join("|".join(p) for p in CARD_FACES)
            )
        tokens = self.tokens
        if not isinstance(tokens, tuple) or (tokens and sorted(tokens) != sorted(TOKENS)):
            raise ValueError(
                f"tokens={tokens!r} is not allowed; give () for random or each of {', '.join(TOKENS)} once"
            )
        core.check_choice("grab_order", self.grab_order, ("random", "seat"))


VARIANTS: dict[str, dict[str, str]] = {
    "seat-order": {"grab_order": "seat"},
    "first-faces": {"faces": "line,surrounded,adjacent,space"},
    "second-faces": {"faces": "l,free,diagonal,majority"},
    "short": {"cards_per_player": "6"},
}
"""Named variants: knob overrides a designer can ask for by name."""


def slot_bits_table(slot_token: np.ndarray) -> np.ndarray:
    """``(B, 17)`` slot bits of every type (and 0 for empty) given each game's ``(B, 8)`` slot tokens."""
    bits = (TYPE_TOKENS[None, :16, None] >> slot_token[:, None, :]) & 1  # (B, 16, 8)
    table = (bits << np.arange(8)).sum(axis=2)
    return np.concatenate([table, np.zeros((len(slot_token), 1), dtype=np.int64)], axis=1)


def face_vp(face: np.ndarray, players: int) -> np.ndarray:
    """``(B, 8)`` VP per occurrence of each face (0 when the face is down) from ``(B, 4)`` face choices."""
    up = np.zeros((len(face), 8), dtype=np.int64)
    up[np.arange(len(face))[:, None], 2 * np.arange(4) + face] = 1
    return up * np.array(FACE_VP)


# --- chance: setup ------------------------------------------------------------------------------------------


def setup(
    params: Params, players: int, source: core.Source, games: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Faces, slot tokens, leftovers and decks for each game.

    Draw order per game: 4 face bits (if random), 7 Fisher-Yates draws placing the tokens (if random), then a
    partial Fisher-Yates shuffle of the 72 cards for the ``leftovers + players * cards`` cards used.
    Returns ``face (B, 4)``, ``slot_token (B, 8)``, ``leftover (B, L)`` and ``deck (B, P, cards)``.
    """
    n = len(games)
    if params.faces:
        face = np.tile([pair.index(f) for f, pair in zip(params.faces, CARD_FACES, strict=True)], (n, 1))
    else:
        face = (source.uniform(games, 4) * 2).astype(np.int64)
    if players == 1:
        face[:, 3] = 0  # solo: the majority face is not a solo face
    if params.tokens:
        slot_token = np.tile([TOKENS.index(t) for t in params.tokens], (n, 1))
    else:
        slot_token = np.tile(np.arange(8), (n, 1))
        u = source.uniform(games, 7)
        _partial_shuffle(slot_token, u)
    leftovers = 2 if players == 1 else 1
    used = leftovers + players * params.cards_per_player
    cards = np.tile(np.arange(N_CARDS), (n, 1))
    _partial_shuffle(cards, source.uniform(games, used))
    leftover = cards[:, :leftovers]
    deck = cards[:, leftovers:used].reshape(n, players, params.cards_per_player)
    return face, slot_token, leftover, deck


def _partial_shuffle(values: np.ndarray, u: np.ndarray) -> None:
    """Fisher-Yates in place: position ``i`` swaps with ``i + floor(u_i * (size - i))``."""
    rows = np.arange(len(values))
    size = values.shape[1]
    for i in range(u.shape[1]):
        j = i + (u[:, i] * (size - i)).astype(np.int64)
        vi, vj = values[rows, i].copy(), values[rows, j].copy()
        values[rows, i], values[rows, j] = vj, vi


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
FACE_SLOTS = {"line": (0, 1, 2), "l": (0, 1, 2), "adjacent": (4, 5), "diagonal": (4, 5), "space": (6, 7)}


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


# instances covering the new cells (0, 0) and DIRS[d], per face and direction
INSTANCES = {
    f: [instances_touching(s, [(0, 0), DIRS[d]]) for d in range(4)] for f, s in {**PAIR_SHAPES, **TRIPLE_SHAPES}.items()
}


def pair_match(x: np.ndarray, y: np.ndarray, s: tuple[int, ...]) -> np.ndarray:
    """1 where two cells' slot bits match slots ``s`` in either order."""
    a, b = s
    return (((x >> a) & (y >> b)) | ((x >> b) & (y >> a))) & 1


def triple_match(x: np.ndarray, y: np.ndarray, z: np.ndarray, s: tuple[int, ...]) -> np.ndarray:
    """1 where three cells along a path match slots ``s`` in order, read either way."""
    a, b, c = s
    return ((((x >> a) & (z >> c)) | ((z >> a) & (x >> c))) & (y >> b)) & 1


# --- final scoring -------------------------------------------------------------------------------------------


def shift(a: np.ndarray, dr: int, dc: int, fill: int = 0) -> np.ndarray:
    """``out[..., r, c] = a[..., r + dr, c + dc]``, ``fill`` outside the grid."""
    out = np.full_like(a, fill)
    h, w = a.shape[-2:]
    out[..., max(0, -dr) : h - max(0, dr), max(0, -dc) : w - max(0, dc)] = a[
        ..., max(0, dr) : h - max(0, -dr), max(0, dc) : w - max(0, -dc)
    ]
    return out


def pattern_counts(bits: np.ndarray) -> np.ndarray:
    """Occurrences of the 7 local faces (all but majority) on grids of slot bits ``(..., H, W)``: ``(..., 7)``."""
    occ = (bits != 0).astype(np.int64)
    nbc = sum(shift(occ, dr, dc) for dr, dc in DIRS)
    out = []
    for face in FACES[:7]:
        if face in TRIPLE_SHAPES:
            total = 0
            for shape in TRIPLE_SHAPES[face]:
                x, y, z = (shift(bits, dr, dc) for dr, dc in shape)
                total = total + triple_match(x, y, z, FACE_SLOTS[face]).sum(axis=(-2, -1))
        elif face in PAIR_SHAPES:
            total = 0
            for shape in PAIR_SHAPES[face]:
                x, y = (shift(bits, dr, dc) for dr, dc in shape)
                total = total + pair_match(x, y, FACE_SLOTS[face]).sum(axis=(-2, -1))
        else:
            want = 4 if face == "surrounded" else 1
            total = (((bits >> 3) & 1) * (nbc == want) * occ).sum(axis=(-2, -1))
        out.append(total)
    return np.stack(out, axis=-1)


def largest_groups(cells: np.ndarray, bits_of_cells: np.ndarray, n_cells: np.ndarray) -> np.ndarray:
    """Largest orthogonally connected group matching slots 6 and 7: ``(..., 2)``.

    ``cells`` (..., K) flat grid indices, ``bits_of_cells`` their slot bits, ``n_cells`` how many are real.
    """
    k = cells.shape[-1]
    real = np.arange(k) < n_cells[..., None]
    r, c = cells // GRID, cells % GRID
    touching = (np.abs(r[..., :, None] - r[..., None, :]) + np.abs(c[..., :, None] - c[..., None, :])) <= 1
    out = []
    for slot in (6, 7):
        member = real & (((bits_of_cells >> slot) & 1) == 1)
        reach = (touching & member[..., :, None] & member[..., None, :]).astype(np.float32)
        for _ in range(5):  # path lengths up to 32 >= 20 cells
            reach = np.minimum(reach @ reach, 1.0)
        out.append(reach.sum(axis=-1).max(axis=-1).astype(np.int64))
    return np.stack(out, axis=-1)


def final_scores(
    cell: np.ndarray, slot_bits: np.ndarray, vp: np.ndarray, cells: np.ndarray, n_cells: np.ndarray
) -> np.ndarray:
    """VP per seat and face ``(B, P, 8)`` from the grids ``cell (B, P, GRID*GRID)``.

    Local faces are counted on a window covering every sidewalk's bounding box (cells outside are empty).
    """
    b, p = cell.shape[:2]
    rows = np.arange(b)[:, None, None]
    real = np.arange(cells.shape[2]) < n_cells[..., None]
    r = np.where(real, cells // GRID, GRID)
    c = np.where(real, cells % GRID, GRID)
    top, left = r.min(axis=2), c.min(axis=2)
    rmax, cmax = np.where(real, r, -1).max(axis=2), np.where(real, c, -1).max(axis=2)
    h = max(int((rmax - top).max()) + 1, 1)
    w = max(int((cmax - left).max()) + 1, 1)
    r0 = np.clip(np.minimum(top, GRID - 1), 0, GRID - h)
    c0 = np.clip(np.minimum(left, GRID - 1), 0, GRID - w)
    idx = (r0[..., None, None] + np.arange(h)[:, None]) * GRID + c0[..., None, None] + np.arange(w)
    win = np.take_along_axis(cell, idx.reshape(b, p, -1), axis=2).astype(np.int64)
    bits = slot_bits[rows, win].reshape(b, p, h, w)
    counts = pattern_counts(bits)  # (B, P, 7)
    out = np.zeros((b, p, 8), dtype=np.int64)
    out[..., :7] = counts * vp[:, None, :7]
    cell_bits = slot_bits[rows, np.take_along_axis(cell, np.maximum(cells, 0), axis=2).astype(np.int64)]
    groups = largest_groups(cells, cell_bits, n_cells)  # (B, P, 2)
    if p > 1:
        best = groups.max(axis=1, keepdims=True)
        won = (groups == best) & (best > 0)
        out[..., 7] = won.sum(axis=2) * vp[:, None, 7]
    return out


# --- state ---------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class State:
    """The games being played, one row each; updated in place by :func:`play_round`."""

    game: np.ndarray  # (B,) int64: index of the game in the output
    cell: np.ndarray  # (B, P, GRID*GRID) uint8: panot type 0..15 on each cell, 16 empty
    bits: np.ndarray  # (B, P, GRID*GRID) uint8: slot bits of each cell's panot, 0 empty
    nbc: np.ndarray  # (B, P, GRID*GRID) uint8: occupied orthogonal neighbours of each cell, 0..4
    planes: np.ndarray  # (B, P, 16, GRID) uint64: bit c of [type, r] set when cell (r, c) holds the type
    watch: np.ndarray  # (B, P, GRID*GRID) uint8: bit 0 = slot-3 panot with 3 neighbours, bit 1 = with 1
    sw: np.ndarray  # (B, P, GRID*GRID) int8: VP a slot-3 panot placed here scores itself (surrounded / free)
    ew: np.ndarray  # (B, P, GRID*GRID) int8: VP change of the neighbours' surrounded / free status if filled
    cells: np.ndarray  # (B, P, 2*cards) int16: flat grid index of each placed panot in order, -1 unused
    n_cells: np.ndarray  # (B, P) int8: panots placed (2 per card)
    bbox: np.ndarray  # (B, P, 4) int8: rows min, max, columns min, max of the sidewalk (START before)
    deck: np.ndarray  # (B, P, cards) int8: card ids, round r reveals column r
    leftover: np.ndarray  # (B, L) int8: the warehouse cards left over (L = 1, solo 2)
    face: np.ndarray  # (B, 4) int8: face 0 or 1 of each objective card (see CARD_FACES)
    slot_token: np.ndarray  # (B, 8) int8: token 0..7 on each slot
    slot_bits: np.ndarray  # (B, 17) int64: slot bits of each type, 0 for empty
    vp: np.ndarray  # (B, 8) int64: VP per occurrence of each face, 0 when down
    pscore: np.ndarray  # (B, P) int32: objective VP so far, majorities excluded (kept when a denier plays)
    swapped: np.ndarray  # (B, P) int8: cards swapped for a leftover
    discarded: np.ndarray  # (B, P) int8: cards discarded
    round: int  # rounds played, same for every game

    @classmethod
    def initial(cls, params: Params, players: int, source: core.Source, game: np.ndarray) -> State:
        """Set up the games ``game`` (original indices): faces, tokens, warehouse and decks from the source."""
        n_games = len(game)
        face, slot_token, leftover, deck = setup(params, players, source, game)
        k = 2 * params.cards_per_player
        vp = face_vp(face, players)
        return cls(
            game=game,
            cell=np.full((n_games, players, GRID * GRID), EMPTY, dtype=np.uint8),
            bits=np.zeros((n_games, players, GRID * GRID), dtype=np.uint8),
            nbc=np.zeros((n_games, players, GRID * GRID), dtype=np.uint8),
            planes=np.zeros((n_games, players, 16, GRID), dtype=np.uint64),
            watch=np.zeros((n_games, players, GRID * GRID), dtype=np.uint8),
            sw=np.repeat(vp[:, 3].astype(np.int8), players * GRID * GRID).reshape(n_games, players, GRID * GRID),
            ew=np.zeros((n_games, players, GRID * GRID), dtype=np.int8),
            cells=np.full((n_games, players, k), -1, dtype=np.int16),
            n_cells=np.zeros((n_games, players), dtype=np.int8),
            bbox=np.tile(np.array([START[0], START[0], START[1], START[1]], dtype=np.int8), (n_games, players, 1)),
            deck=deck.astype(np.int8),
            leftover=leftover.astype(np.int8),
            face=face.astype(np.int8),
            slot_token=slot_token.astype(np.int8),
            slot_bits=slot_bits_table(slot_token),
            vp=vp,
            pscore=np.zeros((n_games, players), dtype=np.int32),
            swapped=np.zeros((n_games, players), dtype=np.int8),
            discarded=np.zeros((n_games, players), dtype=np.int8),
            round=0,
        )


# --- evaluation of every warehouse card for every seat -----------------------------------------------------


class View:
    """Every seat's legal placements and their values for every warehouse card, for a batch of games.

    Rows are ``(game, seat)`` pairs (``row = b * P + seat``); ``C`` warehouse slots. Legality is computed on
    bit rows (bit ``j`` = column ``c0 + j``) of a window of ``H`` × ``W`` cells covering each sidewalk's
    bounding box and 2 cells around it; placements are indexed ``d * H * W + i * W + j``, grid cell
    ``(r0 + i, c0 + j)``. The legal placements are listed as entries, grouped by (row, slot) in placement
    order; values are computed only for them.
    """

    def __init__(self, st: State, wh: np.ndarray, values: bool, plan: bool) -> None:
        """Evaluate the warehouse cards ``wh (B, C)`` for every seat; ``values``/``plan`` add gain/planner values."""
        b, p = st.cell.shape[:2]
        c = wh.shape[1]
        self.first = st.round == 0
        self.rows_b = np.repeat(np.arange(b), p)
        card = np.repeat(wh.astype(np.int64), p, axis=0)  # (R, C)
        n_rows = len(card)
        self.ta, self.tb = CARDS[card, 0], CARDS[card, 1]
        sb = st.slot_bits[self.rows_b].astype(np.uint8)  # (R, 17)
        rr = np.arange(n_rows)[:, None]
        self.abits, self.bbits = sb[rr, self.ta], sb[rr, self.tb]
        vp = st.vp[self.rows_b]
        if self.first:  # the canonical first placement: a at START, b to its right
            gain = (
                vp[:, 4:5] * pair_match(self.abits, self.bbits, (4, 5))
                + vp[:, 3:4] * (((self.abits >> 3) & 1) + ((self.bbits >> 3) & 1))
            ).astype(np.int64)
            self.count = np.ones((n_rows, c), dtype=np.int64)
            self.best_gain = gain
            self.best_plan = 4 * gain
            self.best_gain_at = self.best_plan_at = np.zeros((n_rows, c), dtype=np.int64)
            return
        bb = st.bbox.reshape(n_rows, 4).astype(np.int64)
        h = int((bb[:, 1] - bb[:, 0]).max()) + 5
        w = int((bb[:, 3] - bb[:, 2]).max()) + 5
        self.h, self.w = h, w
        self.r0 = bb[:, 0] - 2
        self.c0 = bb[:, 2] - 2
        planes = st.planes.reshape(n_rows, 16, GRID)
        rows_idx = np.minimum(self.r0[:, None] + np.arange(h), GRID - 1)  # the last grid row is always empty
        t_rows = planes[np.arange(n_rows)[:, None, None], np.arange(16)[:, None], rows_idx[:, None, :]]
        t_rows = ((t_rows >> self.c0[:, None, None].astype(np.uint64)) & np.uint64((1 << w) - 1)).astype(np.uint32)
        colour = np.bitwise_or.reduce(t_rows.reshape(n_rows, 4, 4, h), axis=2)  # (R, 4, H) by colour
        shape = np.bitwise_or.reduce(t_rows.reshape(n_rows, 4, 4, h), axis=1)  # (R, 4, H) by shape
        occ = np.bitwise_or.reduce(colour, axis=1)  # (R, H)
        full = np.uint32((1 << w) - 1)

        def around(x: np.ndarray) -> np.ndarray:
            """Cells with an orthogonal neighbour in ``x`` (bit rows along the last axis)."""
            out = ((x << np.uint32(1)) | (x >> np.uint32(1))) & full
            out[..., 1:] |= x[..., :-1]
            out[..., :-1] |= x[..., 1:]
            return out

        def shifted(x: np.ndarray, dr: int, dc: int) -> np.ndarray:
            """``out`` cell (i, j) = ``x`` cell (i + dr, j + dc), empty outside."""
            out = np.zeros_like(x)
            src = x[..., max(dr, 0) : h + min(dr, 0)]
            src = (src >> np.uint32(dc)) if dc > 0 else ((src << np.uint32(-dc)) & full) if dc < 0 else src
            out[..., max(-dr, 0) : h - max(dr, 0)] = src
            return out

        free = ~occ & full
        touch = around(occ)
        ca, sa = self.ta // 4, self.ta % 4
        cb, s_b = self.tb // 4, self.tb % 4
        r3 = np.arange(n_rows)[:, None]
        ok_a = free[:, None] & ~around(occ[:, None] & ~colour[r3, ca] & ~shape[r3, sa])  # (R, C, H)
        ok_b = free[:, None] & ~around(occ[:, None] & ~colour[r3, cb] & ~shape[r3, s_b])
        legal = np.empty((4, n_rows, c, h), dtype=np.uint32)
        for d, (dr, dc) in enumerate(DIRS):
            legal[d] = ok_a & shifted(ok_b, dr, dc) & (touch | shifted(touch, dr, dc))[:, None]
        # entries: the legal placements, in blocks by d, then segments by (row, slot), then (i, j)
        flat_words = legal.reshape(-1)
        nz_words = np.flatnonzero(flat_words)
        bit = np.unpackbits(flat_words[nz_words].view(np.uint8), bitorder="little").view(bool)
        small = np.int32 if 4 * n_rows * c * h < 2**31 else np.int64
        f = np.flatnonzero(bit).astype(small)  # bits above w are never set
        wflat, j = nz_words.astype(small)[f >> 5], f & 31
        i, rest = wflat % h, wflat // h
        n_seg = n_rows * c
        rk, d_all = rest % n_seg, rest // n_seg
        r, k = rk // c, rk % c
        self.n_seg, self.hw = n_seg, h * w
        self.cnt_d = np.bincount(rest, minlength=4 * n_seg).reshape(4, n_seg)
        self.count = self.cnt_d.sum(axis=0).reshape(n_rows, c)
        flat_cnt = self.cnt_d.reshape(-1)
        self.seg_start = (np.cumsum(flat_cnt) - flat_cnt).reshape(4, n_seg)
        self.block = np.searchsorted(d_all, np.arange(5))
        self.place_idx = d_all * (h * w) + i * w + j
        self.rk = rk
        if not (values or plan):
            return
        n_entries = len(r)
        val = np.empty(n_entries, dtype=np.int16)
        planv = np.empty(n_entries, dtype=np.int16) if plan else None
        base_all = r.astype(np.int64) * (GRID * GRID) + (self.r0[r] + i) * GRID + self.c0[r] + j
        fb = st.bits.reshape(-1)
        fsw, few = st.sw.reshape(-1), st.ew.reshape(-1)
        fc = st.cell.reshape(-1)
        vp_t = vp.T.astype(np.int16)  # (8, R)
        face_on = vp_t.any(axis=1)
        for d, (dr, dc) in enumerate(DIRS):
            sl = slice(self.block[d], self.block[d + 1])
            rs, ks = r[sl], k[sl]
            base = base_all[sl]
            a, bq = self.abits[rs, ks], self.bbits[rs, ks]
            qoff = dr * GRID + dc
            v = (((a >> 3) & 1) * fsw[base] + ((bq >> 3) & 1) * fsw[base + qoff]).astype(np.int16)
            v += few[base]
            v += few[base + qoff]
            partial = np.zeros(len(rs), dtype=np.int16) if plan else None
            for fi, face in enumerate(FACES[:7]):
                if face in ("surrounded", "free") or not face_on[fi]:
                    continue
                weight = vp_t[fi][rs]
                on = weight > 0
                if not on.any():
                    continue
                sub = slice(None) if on.all() else np.flatnonzero(on)
                bsub = base[sub]
                vals_at = {(0, 0): a[sub], DIRS[d]: bq[sub]}  # slot bits on the cells around p, this face's rows
                s = FACE_SLOTS[face]
                mask = sum(1 << x for x in s)
                swapped: dict[tuple[int, int], np.ndarray] = {}  # end-slot bits swapped (first <-> last token)
                middle: dict[tuple[int, int], np.ndarray] = {}  # carries the middle token (lines and Ls)
                cnt = np.zeros(len(bsub), dtype=np.uint8)
                for inst in INSTANCES[face][d]:
                    for o in inst:
                        if o not in vals_at:
                            vals_at[o] = fb[bsub + (o[0] * GRID + o[1])]
                    last = inst[-1]
                    if last not in swapped:
                        u = vals_at[last]
                        lo, hi = s[0], s[-1]
                        swapped[last] = (((u >> (hi - lo)) & (1 << lo)) | ((u << (hi - lo)) & (1 << hi))).astype(
                            np.uint8
                        )
                    ends = (vals_at[inst[0]] & swapped[last] & mask) != 0  # first and last match, either way
                    if len(s) == 3:
                        mid = inst[1]
                        if mid not in middle:
                            middle[mid] = (vals_at[mid] & (1 << s[1])) != 0
                        ends &= middle[mid]
                    cnt += ends
                    if plan and len(s) == 3:
                        vals = [vals_at[o] for o in inst]
                        empty = [x == 0 for x in vals]
                        one_empty = (empty[0].astype(np.uint8) + empty[1] + empty[2]) == 1
                        wild = [np.where(e, np.uint8(0xFF), x) for e, x in zip(empty, vals, strict=True)]
                        partial[sub] += one_empty & (triple_match(*wild, s) == 1)
                v[sub] += weight[sub] * cnt
            val[sl] = v
            if plan:
                open_edges = np.zeros(len(rs), dtype=np.int16)
                for cell_o, tt in (((0, 0), self.ta[rs, ks]), (DIRS[d], self.tb[rs, ks])):
                    for er, ec in DIRS:
                        o = (cell_o[0] + er, cell_o[1] + ec)
                        if o in ((0, 0), DIRS[d]):
                            continue
                        f_cell = base + o[0] * GRID + o[1]
                        allowed = MATCH16_U16[tt]
                        for fr, fcol in DIRS:
                            allowed = allowed & MATCH16_U16[fc[f_cell + fr * GRID + fcol]]
                        open_edges += (fc[f_cell] == EMPTY) & (allowed != 0)
                planv[sl] = 4 * v + open_edges + 2 * partial
        self.entry_gain = val
        self.best_gain, self.best_gain_at = self._best(val, UNPLACEABLE)
        if plan:
            self.best_plan, self.best_plan_at = self._best(planv, 4 * UNPLACEABLE)

    def _best(self, value: np.ndarray, none: int) -> tuple[np.ndarray, np.ndarray]:
        """Highest value per (row, slot) and its first placement in (d, r, c) order; ``none`` if nothing is legal."""
        flat_cnt = self.cnt_d.reshape(-1)
        top = np.full(len(flat_cnt), np.iinfo(np.int64).min, dtype=np.int64)
        some = np.flatnonzero(flat_cnt > 0)
        if len(some):
            key = value.astype(np.int64) * KEY - self.place_idx
            top[some] = np.maximum.reduceat(key, self.seg_start.reshape(-1)[some])
        top = top.reshape(4, self.n_seg).max(axis=0)  # placement indices grow with d: ties go to the lower d
        placeable = self.count.reshape(-1) > 0
        best = np.where(placeable, -((-top) // KEY), none)
        best_at = np.where(placeable, best * KEY - top, 0)
        return best.reshape(self.count.shape), best_at.reshape(self.count.shape)

    def nth_legal(self, row: np.ndarray, slot: np.ndarray, nth: np.ndarray) -> np.ndarray:
        """Index of the ``nth`` legal placement (in ``(d, r, c)`` order) of card ``slot`` for each row."""
        if self.first:
            return np.zeros(len(row), dtype=np.int64)
        rk = row * self.count.shape[1] + slot
        cnt = self.cnt_d[:, rk]  # (4, n)
        cum = np.cumsum(cnt, axis=0)
        d = (cum > nth).argmax(axis=0)
        cols = np.arange(len(rk))
        before = cum[d, cols] - cnt[d, cols]
        return self.place_idx[self.seg_start[d, rk] + nth - before]

    def gain_of(self, row: np.ndarray, slot: np.ndarray, at: np.ndarray) -> np.ndarray:
        """Gain of placement ``at`` of card ``slot`` for each row (needs values)."""
        if self.first:
            return self.best_gain[row, slot]
        d, pos = at // self.hw, at % self.hw
        keys = (self.place_idx // self.hw * self.n_seg + self.rk).astype(np.int64) * self.hw + self.place_idx % self.hw
        want = (d * self.n_seg + row * self.count.shape[1] + slot) * self.hw + pos
        return self.entry_gain[np.searchsorted(keys, want)].astype(np.int64)


# --- one round --------------------------------------------------------------------------------------------------


def place(st: State, view: View, b: np.ndarray, seat: np.ndarray, card: np.ndarray, at: np.ndarray) -> None:
    """Put ``card`` for each ``(b, seat)`` at placement ``at`` of ``view`` (in place)."""
    if len(b) == 0:
        return
    if view.first:
        p = np.full(len(b), START[0] * GRID + START[1], dtype=np.int64)
        d = np.zeros(len(b), dtype=np.int64)
    else:
        row = b * st.cell.shape[1] + seat
        hw = view.h * view.w
        d, ij = at // hw, at % hw
        i, j = ij // view.w, ij % view.w
        p = (view.r0[row] + i) * GRID + view.c0[row] + j
    q = p + STEP[d]
    for x, ty in ((p, CARDS[card, 0]), (q, CARDS[card, 1])):
        st.cell[b, seat, x] = ty
        st.bits[b, seat, x] = st.slot_bits[b, ty]
        st.planes[b, seat, ty, x // GRID] |= np.uint64(1) << (x % GRID).astype(np.uint64)
        for dr, dc in DIRS:
            st.nbc[b, seat, x + dr * GRID + dc] += 1
    # the new cells and their other neighbours may change watch bits; their neighbours' es/ef follow
    z = p[:, None] + AFFECTED[d]  # (n, 8) distinct cells
    bb, ss = b[:, None], seat[:, None]
    bit3 = (st.bits[bb, ss, z] >> 3) & 1
    nz = st.nbc[bb, ss, z]
    new = (bit3 & (nz == 3)) | ((bit3 & (nz == 1)) << 1)
    old = st.watch[bb, ss, z]
    st.watch[bb, ss, z] = new
    ds = (new & 1).astype(np.int8) - (old & 1).astype(np.int8)
    df = (new >> 1).astype(np.int8) - (old >> 1).astype(np.int8)
    vs, vf = st.vp[b, 2:3].astype(np.int8), st.vp[b, 3:4].astype(np.int8)
    st.sw[bb, ss, z] = vs * (nz == 3) + vf * (nz == 0)
    y = (z[:, :, None] + STEP[None, None, :]).reshape(len(b), -1)  # (n, 32)
    b32, s32 = np.broadcast_to(bb, y.shape), np.broadcast_to(ss, y.shape)
    np.add.at(st.ew, (b32, s32, y), np.repeat(vs * ds - vf * df, 4, axis=1))
    n = st.n_cells[b, seat].astype(np.int64)
    st.cells[b, seat, n] = p
    st.cells[b, seat, n + 1] = q
    st.n_cells[b, seat] += 2
    box = st.bbox[b, seat].astype(np.int64)
    for x in (p, q):
        rr, cc = x // GRID, x % GRID
        box[:, 0] = np.minimum(box[:, 0], rr)
        box[:, 1] = np.maximum(box[:, 1], rr)
        box[:, 2] = np.minimum(box[:, 2], cc)
        box[:, 3] = np.maximum(box[:, 3], cc)
    st.bbox[b, seat] = box


STEP = np.array([dr * GRID + dc for dr, dc in DIRS], dtype=np.int64)  # flat offset of each direction
AFFECTED = np.array(
    [[0, STEP[d]] + [e for e in STEP if e != STEP[d]] + [STEP[d] + e for e in STEP if e != -STEP[d]] for d in range(4)],
    dtype=np.int64,
)  # (4, 8): the new cells and their other neighbours


def priority(params: Params, players: int, source: core.Source, games: np.ndarray) -> np.ndarray:
    """``(B, P)`` seats in grabbing order: a Fisher-Yates permutation (P - 1 draws) or seat order."""
    order = np.tile(np.arange(players), (len(games), 1))
    if params.grab_order == "random" and players > 1:
        _partial_shuffle(order, source.uniform(games, players - 1))
    return order


def play_round(params: Params, impls: Sequence[object], st: State, source: core.Source) -> None:
    """Reveal, grab in priority order, place, then swap or discard (in place)."""
    b_n, players = st.cell.shape[:2]
    wh = np.concatenate([st.leftover, st.deck[:, :, st.round]], axis=1).astype(np.int64)  # (B, C)
    n_left = st.leftover.shape[1]
    c = wh.shape[1]
    values = any(getattr(i, "values", False) for i in impls)
    plan = any(getattr(i, "plan", False) for i in impls)
    view = View(st, wh, values, plan)
    view.source, view.games = source, st.game
    order = priority(params, players, source, st.game)
    bs = np.arange(b_n)
    free = np.ones((b_n, c), dtype=bool)
    grabbed = np.zeros((b_n, players), dtype=np.int64)
    for k in range(players):
        seat = order[:, k]
        choice = np.zeros(b_n, dtype=np.int64)
        for impl, rows in _groups(impls, seat):
            choice[rows] = impl.grab(view, st, rows, seat[rows], free[rows], order[rows], k)
        grabbed[bs, seat] = choice
        free[bs, choice] = False
    stuck = np.zeros((b_n, players), dtype=bool)
    for k in range(players):
        seat = order[:, k]
        slot = grabbed[bs, seat]
        row = bs * players + seat
        can = view.count[row, slot] > 0
        stuck[bs, seat] = ~can
        _place_chosen(st, view, impls, np.flatnonzero(can), seat, slot, wh)
    for k in range(players):
        seat = order[:, k]
        rows = np.flatnonzero(stuck[bs, seat])
        if len(rows) == 0:
            continue
        s = seat[rows]
        r_idx = rows * players + s
        options = free[rows] & (view.count[r_idx] > 0)
        pick = np.full(len(rows), -1, dtype=np.int64)
        for impl, sub in _groups(impls, s):
            pick[sub] = impl.swap(view, st, rows[sub], s[sub], options[sub])
        none = pick < 0
        fallback = free[rows].argmax(axis=1)
        taken = np.where(none, fallback, pick)
        free[rows, taken] = False
        free[rows, grabbed[rows, s]] = True
        grabbed[rows, s] = taken
        st.swapped[rows, s] += 1
        st.discarded[rows[none], s[none]] += 1
        ok = np.flatnonzero(~none)
        placed_rows = rows[ok]
        seat_full = np.zeros(b_n, dtype=np.int64)
        seat_full[placed_rows] = s[ok]
        slot_full = np.zeros(b_n, dtype=np.int64)
        slot_full[placed_rows] = taken[ok]
        _place_chosen(st, view, impls, placed_rows, seat_full, slot_full, wh)
    # leftovers for the next round: the free slots in slot order
    st.leftover = wh[free].reshape(b_n, n_left).astype(np.int8)
    st.round += 1


def _place_chosen(
    st: State, view: View, impls: Sequence[object], rows: np.ndarray, seat: np.ndarray, slot: np.ndarray, wh: np.ndarray
) -> None:
    """Let each row's policy choose where its card ``slot`` goes, then place it."""
    if len(rows) == 0:
        return
    s, k = seat[rows], slot[rows]
    players = st.cell.shape[1]
    at = np.zeros(len(rows), dtype=np.int64)
    for impl, sub in _groups(impls, s):
        at[sub] = impl.place(view, st, rows[sub], s[sub], k[sub])
    if any(getattr(i, "watches_leader", False) for i in impls):
        st.pscore[rows, s] += view.gain_of(rows * players + s, k, at).astype(np.int32)
    place(st, view, rows, s, wh[rows, k], at)


def _groups(impls: Sequence[object], seat: np.ndarray) -> list[tuple[object, np.ndarray]]:
    """Rows of each distinct policy, given each row's seat."""
    distinct = list(dict.fromkeys(impls))
    if len(distinct) == 1:
        return [(distinct[0], np.arange(len(seat)))]
    which = np.array([distinct.index(i) for i in impls])[seat]
    return [(impl, np.flatnonzero(which == n)) for n, impl in enumerate(distinct) if (which == n).any()]


# --- play ------------------------------------------------------------------------------------------------------


def title_of(score: np.ndarray) -> np.ndarray:
    """Solo title index (0 none, 1 beginner .. 5 legend) of each score."""
    return np.select([score > 20, score > 15, score > 10, score > 5, score > 0], [5, 4, 3, 2, 1], 0)


def play(params: Params, seat_policies: Sequence[str], n_games: int, rng: np.random.Generator | core.Source) -> Outcome:
    """Play ``n_games`` complete games in lock-step; seat ``i`` follows policy ``seat_policies[i]``.

    Games are played in chunks of ``CHUNK`` to bound memory (each game's chance events still come from its own
    index). Returns ``score`` (VP per seat), ``winner`` (-1 shared), ``winners``, ``turns`` (rounds) and the
    columns of :data:`METRICS`.
    """
    impls = _policies(params, seat_policies)
    source = core.as_source(rng)
    if n_games == 0:  # empty columns of the right shapes and dtypes
        one = outcome(
            _run(params, impls, core.RandomSource(np.random.default_rng(0)), np.arange(1)), len(seat_policies)
        )
        return {name: value[:0] for name, value in one.items()}
    outs = [
        outcome(
            _run(params, impls, source, np.arange(lo, min(lo + CHUNK, n_games), dtype=np.int64)), len(seat_policies)
        )
        for lo in range(0, n_games, CHUNK)
    ]
    return {name: np.concatenate([o[name] for o in outs]) for name in outs[0]}


def play_state(
    params: Params, seat_policies: Sequence[str], n_games: int, rng: np.random.Generator | core.Source
) -> State:
    """Play like :func:`play` (one chunk) and return the final state, for tests and studies of the sidewalks."""
    return _run(params, _policies(params, seat_policies), core.as_source(rng), np.arange(n_games, dtype=np.int64))


def _policies(params: Params, seat_policies: Sequence[str]) -> list[object]:
    """Validate the seats and build one policy instance per distinct policy."""
    from engines.panots.policies import POLICIES

    players = len(seat_policies)
    core.check_players(INFO, players)
    if players == 1 and "majority" in params.faces:
        raise ValueError("faces='majority' is not allowed in solo; the solo face of card 4 is space")
    chosen = core.resolve_policies(POLICIES, seat_policies)
    made = {p.name: p.impl(params) for p in chosen}
    return [made[p.name] for p in chosen]


def _run(params: Params, impls: Sequence[object], source: core.Source, games: np.ndarray) -> State:
    """Play the games ``games`` (original indices) to the end."""
    st = State.initial(params, len(impls), source, games)
    for _ in range(params.cards_per_player):
        play_round(params, impls, st, source)
    return st


def outcome(st: State, players: int) -> Outcome:
    """The per-game columns of finished games."""
    n = len(st.game)
    per_face = final_scores(st.cell, st.slot_bits, st.vp, st.cells.astype(np.int64), st.n_cells.astype(np.int64))
    score = per_face.sum(axis=2).astype(np.int32)
    winner, winners = core.rank_winners(score)
    bb = st.bbox.astype(np.int32)
    face_up = np.zeros((n, 8), dtype=np.int64)
    face_up[np.arange(n)[:, None], 2 * np.arange(4) + st.face] = 1
    if players == 1:
        face_up[:, 7] = 0
    title = np.zeros((n, len(TITLES)), dtype=np.int64)
    if players == 1:
        title[np.arange(n), title_of(score[:, 0])] = 1
    out: Outcome = {
        "score": score,
        "winner": winner,
        "winners": winners,
        "turns": np.full(n, st.round, dtype=np.int32),
        "placed": (st.n_cells // 2).astype(np.int8),
        "swapped": st.swapped,
        "discarded": st.discarded,
    }
    for f, face in enumerate(FACES):
        out[f"vp_{face}"] = per_face[..., f].astype(np.int32)
    out["width"] = bb[..., 3] - bb[..., 2] + 1
    out["height"] = bb[..., 1] - bb[..., 0] + 1
    out["face_up"] = face_up
    out["title"] = title
    return out
