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

Legality, values, placing and final scoring run in :mod:`engines.panots.kernels` (numba), which reads the
constants of :mod:`engines.panots.geometry`, never this module; it is imported inside the functions that call
it, so that loading the rules does not load numba.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from boardlab.engines import core
from boardlab.engines.core import GameInfo, Metric, Outcome, knob
from boardlab.engines.panots.geometry import (
    CARD_TYPES,
    CHUNK,
    EMPTY,
    FACE_VP,
    FACES,
    GRID,
    N_CARDS,
    SPACE_DIAGONAL,
    START,
    TITLES,
    TOKENS,
    TYPE_TOKENS,
)

INFO = GameInfo(
    id="panots",
    name="Panots",
    version=2,
    min_players=1,
    max_players=7,
    chance=True,
    turn_cap=10,
    score_label="VP",
    chunk_games=1_000,
    turns_are_rounds=True,
)

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
    """Panots knobs: the rulebook's where it speaks, our documented guesses where it is silent (see README)."""

    cards_per_player: int = knob(
        10,
        "Cards dealt to each player (rounds played); the sidewalk grid holds at most 10.",
        "1..10, and players x cards + leftovers (+1 solo) <= 72",
        source="rulebook",
    )
    faces: tuple[str, ...] = knob(
        (),
        "Objective faces up: any 4 distinct faces (two faces of one card then read the same tokens); empty = one "
        "random face of each card (line|l, surrounded|free, adjacent|diagonal, space|majority) per game.",
        "() or 4 distinct of " + ", ".join(FACES),
        source="ours: the rulebook lets the players choose each card's side; a random side per game averages over "
        "the choices (which faces share a card is also our guess)",
    )
    tokens: tuple[str, ...] = knob(
        (),
        "Feature tokens on slots 0..7 (line/L 3, surrounded/free 1, adjacent/"
        "diagonal 2, space/majorities 2); empty = random per game.",
        "() or the 8 token names, each once",
        source="rulebook",
    )
    grab_order: Literal["random", "seat"] = knob(
        "random",
        "Who grabs first each round: a random priority order per round, or seat order.",
        "random | seat",
        source="ours: the rulebook's grab is simultaneous (fastest hand); a random order per round models equal hands",
    )
    face_vp: tuple[int, ...] = knob(
        FACE_VP,
        "VP per occurrence of each face, in the order " + ", ".join(FACES) + " (majority: per majority won).",
        "8 whole numbers 0..9",
        source="rulebook",
    )
    leftovers: int = knob(
        1,
        "Cards left in the warehouse after each round's grab (solo: one more); a stuck player swaps for one.",
        "1..3",
        source="rulebook",
    )
    majority_ties: Literal["all", "none"] = knob(
        "all",
        "A tie for a largest group: every tied player scores the majority, or nobody does.",
        "all | none",
        source="rulebook",
    )
    unplaceable: Literal["discard-swapped", "discard-grabbed"] = knob(
        "discard-swapped",
        "A stuck player whose leftovers cannot be placed either: takes a leftover and discards it (the grabbed card "
        "stays in the warehouse), or keeps the warehouse as it is and discards the grabbed card.",
        "discard-swapped | discard-grabbed",
        source="ours: the rulebook says only to exchange the card; it is silent when the exchange cannot be placed",
    )
    space_diagonal: bool = knob(
        False,
        "'One space between' also counts two panots two cells apart diagonally.",
        "true | false",
        source="ours: the rulebook's examples read the space along a row or column",
    )
    group_diagonal: bool = knob(
        False,
        "Majority groups also connect through corners (diagonal neighbours).",
        "true | false",
        source="ours: 'connected' read as sharing a side, as placement adjacency is",
    )
    head_start: int = knob(
        0,
        "VP credited at the start to every seat after the first: seat i starts with i x head_start VP, counted in "
        "the score that decides the game (0 = the rulebook).",
        "0..20",
        source="ours: a handicap in the game's own terms (VP), to ask what compensation makes the later seats fair",
        added=True,
    )

    def __post_init__(self) -> None:
        """Reject out-of-range knobs with a message naming the knob, the value and the allowed range."""
        core.check_range("cards_per_player", self.cards_per_player, 1, 10)
        faces = self.faces
        if not isinstance(faces, tuple) or (
            faces and (len(faces) != 4 or len(set(faces)) != 4 or any(f not in FACES for f in faces))
        ):
            raise ValueError(f"faces={faces!r} is not allowed; give () for random or 4 distinct of {', '.join(FACES)}")
        tokens = self.tokens
        if not isinstance(tokens, tuple) or (tokens and sorted(tokens) != sorted(TOKENS)):
            raise ValueError(
                f"tokens={tokens!r} is not allowed; give () for random or each of {', '.join(TOKENS)} once"
            )
        core.check_choice("grab_order", self.grab_order, ("random", "seat"))
        vp = self.face_vp
        if not isinstance(vp, tuple) or len(vp) != 8 or any(isinstance(v, bool) or v not in range(10) for v in vp):
            raise ValueError(f"face_vp={vp!r} is not allowed; give 8 whole numbers 0..9 ({', '.join(FACES)})")
        core.check_range("leftovers", self.leftovers, 1, 3)
        core.check_choice("majority_ties", self.majority_ties, ("all", "none"))
        core.check_choice("unplaceable", self.unplaceable, ("discard-swapped", "discard-grabbed"))
        core.check_choice("space_diagonal", self.space_diagonal, (False, True))
        core.check_choice("group_diagonal", self.group_diagonal, (False, True))
        core.check_range("head_start", self.head_start, 0, 20)


VARIANTS: dict[str, dict[str, str]] = {
    "seat-order": {"grab_order": "seat"},
    "diagonal-readings": {"space_diagonal": "true", "group_diagonal": "true"},
    "first-faces": {"faces": "line,surrounded,adjacent,space"},
    "second-faces": {"faces": "l,free,diagonal,majority"},
    "short": {"cards_per_player": "6"},
}
"""Named variants: knob overrides a designer can ask for by name."""


def start_vp(params: Params, players: int) -> np.ndarray:
    """VP each seat has before any card is placed, the head start: seat ``i`` has ``i * head_start``."""
    return params.head_start * np.arange(players, dtype=np.int64)


def slot_bits_table(slot_token: np.ndarray) -> np.ndarray:
    """``(B, 17)`` slot bits of every type (and 0 for empty) given each game's ``(B, 8)`` slot tokens."""
    bits = (TYPE_TOKENS[None, :16, None] >> slot_token[:, None, :]) & 1  # (B, 16, 8)
    table = (bits << np.arange(8)).sum(axis=2)
    return np.concatenate([table, np.zeros((len(slot_token), 1), dtype=np.int64)], axis=1)


def face_vp(up: np.ndarray, params: Params) -> np.ndarray:
    """``(B, 9)`` VP per occurrence of each face (0 when down) from the ``(B, 8)`` faces up.

    Column 8 is the diagonal reading of 'one space between' (space's VP when :attr:`Params.space_diagonal`).
    """
    vp = up.astype(np.int64) * np.array(params.face_vp, dtype=np.int64)
    diagonal = vp[:, FACES.index("space")] * int(params.space_diagonal)
    return np.concatenate([vp, diagonal[:, None]], axis=1)


# --- chance: setup ------------------------------------------------------------------------------------------


def setup(
    params: Params, players: int, source: core.Source, games: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Faces, slot tokens, leftovers and decks for each game.

    Draw order per game: 4 face bits (if random), 7 Fisher-Yates draws placing the tokens (if random), then a
    partial Fisher-Yates shuffle of the 72 cards for the ``leftovers + players * cards`` cards used.
    Returns ``up (B, 8)`` (faces up), ``slot_token (B, 8)``, ``leftover (B, L)`` and ``deck (B, P, cards)``.
    """
    n = len(games)
    up = np.zeros((n, 8), dtype=bool)
    if params.faces:
        up[:, [FACES.index(f) for f in params.faces]] = True
    else:
        face = (source.uniform(games, 4) * 2).astype(np.int64)
        if players == 1:
            face[:, 3] = 0  # solo: the majority face is not a solo face
        up[np.arange(n)[:, None], 2 * np.arange(4) + face] = True
    if params.tokens:
        slot_token = np.tile([TOKENS.index(t) for t in params.tokens], (n, 1))
    else:
        slot_token = np.tile(np.arange(8), (n, 1))
        u = source.uniform(games, 7)
        _partial_shuffle(slot_token, u)
    leftovers = warehouse_leftovers(params, players)
    used = leftovers + players * params.cards_per_player
    cards = np.tile(np.arange(N_CARDS), (n, 1))
    _partial_shuffle(cards, source.uniform(games, used))
    leftover = cards[:, :leftovers]
    deck = cards[:, leftovers:used].reshape(n, players, params.cards_per_player)
    return up, slot_token, leftover, deck


def warehouse_leftovers(params: Params, players: int) -> int:
    """Cards left in the warehouse after each grab: the knob, one more in solo."""
    return params.leftovers + (players == 1)


def _partial_shuffle(values: np.ndarray, u: np.ndarray) -> None:
    """Fisher-Yates in place: position ``i`` swaps with ``i + floor(u_i * (size - i))``."""
    rows = np.arange(len(values))
    size = values.shape[1]
    for i in range(u.shape[1]):
        j = i + (u[:, i] * (size - i)).astype(np.int64)
        vi, vj = values[rows, i].copy(), values[rows, j].copy()
        values[rows, i], values[rows, j] = vj, vi


# --- final scoring -------------------------------------------------------------------------------------------


def final_scores(
    cell: np.ndarray,
    slot_bits: np.ndarray,
    vp: np.ndarray,
    cells: np.ndarray,
    n_cells: np.ndarray,
    params: Params | None = None,
) -> np.ndarray:
    """VP per seat and face ``(B, P, 8)`` of the grids ``cell (B, P, GRID*GRID)`` (``vp`` from :func:`face_vp`).

    ``cells (B, P, K)`` lists each sidewalk's flat cell indices, ``n_cells (B, P)`` how many are real; ``params``
    gives the majority tie rule and the group reading (default knobs when ``None``).
    """
    from boardlab.engines.panots import kernels

    params = params or Params()
    out = kernels.final_scores(
        cell.astype(np.uint8, copy=False),
        slot_bits.astype(np.int64, copy=False),
        vp.astype(np.int64, copy=False),
        cells.astype(np.int16, copy=False),
        n_cells.astype(np.int8, copy=False),
        params.majority_ties == "all",
        params.group_diagonal,
    )
    out[..., FACES.index("space")] += out[..., SPACE_DIAGONAL]
    return out[..., :SPACE_DIAGONAL]


# --- state ---------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class State:
    """The games being played, one row each; updated in place by :func:`play_round`."""

    game: np.ndarray  # (B,) int64: index of the game in the output
    cell: np.ndarray  # (B, P, GRID*GRID) uint8: panot type 0..15 on each cell, 16 empty
    bits: np.ndarray  # (B, P, GRID*GRID) uint8: slot bits of each cell's panot, 0 empty
    nbc: np.ndarray  # (B, P, GRID*GRID) uint8: occupied orthogonal neighbours of each cell, 0..4
    cells: np.ndarray  # (B, P, 2*cards) int16: flat grid index of each placed panot in order, -1 unused
    n_cells: np.ndarray  # (B, P) int8: panots placed (2 per card)
    bbox: np.ndarray  # (B, P, 4) int8: rows min, max, columns min, max of the sidewalk (START before)
    deck: np.ndarray  # (B, P, cards) int8: card ids, round r reveals column r
    leftover: np.ndarray  # (B, L) int8: the warehouse cards left over (L = 1, solo 2)
    up: np.ndarray  # (B, 8) bool: the faces up (FACES order)
    slot_token: np.ndarray  # (B, 8) int8: token 0..7 on each slot
    slot_bits: np.ndarray  # (B, 17) int64: slot bits of each type, 0 for empty
    vp: np.ndarray  # (B, 9) int64: VP per occurrence of each face, 0 when down (see face_vp)
    seen: np.ndarray  # (B, N_CARDS) bool: cards revealed so far (public), the rest make the unseen pool
    swapped: np.ndarray  # (B, P) int8: cards swapped for a leftover
    discarded: np.ndarray  # (B, P) int8: cards discarded
    local: np.ndarray  # (B, P) int64: the head start plus the objective VP so far, majorities excluded
    mid_score: np.ndarray  # (B, P) int32: VP at the end of round cards // 2 (set by play_with's runs only)
    leader: np.ndarray  # (B,) int64: the last sole leader at the end of a round, -1 before any
    lead_changes: np.ndarray  # (B,) int32: times the sole leader changed
    round: int  # rounds played, same for every game

    @classmethod
    def initial(cls, params: Params, players: int, source: core.Source, game: np.ndarray) -> State:
        """Set up the games ``game`` (original indices): faces, tokens, warehouse and decks from the source."""
        n_games = len(game)
        up, slot_token, leftover, deck = setup(params, players, source, game)
        k = 2 * params.cards_per_player
        grid = (n_games, players, GRID * GRID)
        return cls(
            game=game,
            cell=np.full(grid, EMPTY, dtype=np.uint8),
            bits=np.zeros(grid, dtype=np.uint8),
            nbc=np.zeros(grid, dtype=np.uint8),
            cells=np.full((n_games, players, k), -1, dtype=np.int16),
            n_cells=np.zeros((n_games, players), dtype=np.int8),
            bbox=np.tile(np.array([START[0], START[0], START[1], START[1]], dtype=np.int8), (n_games, players, 1)),
            deck=deck.astype(np.int8),
            leftover=leftover.astype(np.int8),
            up=up,
            slot_token=slot_token.astype(np.int8),
            slot_bits=slot_bits_table(slot_token),
            vp=face_vp(up, params),
            seen=np.zeros((n_games, N_CARDS), dtype=bool),
            swapped=np.zeros((n_games, players), dtype=np.int8),
            discarded=np.zeros((n_games, players), dtype=np.int8),
            local=np.tile(start_vp(params, players), (n_games, 1)),
            mid_score=np.zeros((n_games, players), dtype=np.int32),
            leader=np.full(n_games, -1, dtype=np.int64),
            lead_changes=np.zeros(n_games, dtype=np.int32),
            round=0,
        )

    def take(self, rows: np.ndarray) -> State:
        """An independent copy of the games at positions ``rows`` (rows may repeat), numbered ``0..len(rows)-1``.

        ``rows`` is an index array, so each field's indexing is already a copy (not a view).
        """
        rows = np.asarray(rows)
        out = State(*(getattr(self, name)[rows] for name in self.__slots__ if name != "round"), self.round)
        out.game = np.arange(len(rows), dtype=np.int64)
        return out


# --- evaluation of every warehouse card for every seat -----------------------------------------------------


class View:
    """Every seat's legal placements of every warehouse card and the best of them, for a batch of games.

    Rows are ``(game, seat)`` pairs (``row = b * P + seat``) and columns the ``C`` warehouse slots. A placement is
    ``at = d * GRID * GRID + p``: the card's first panot on flat cell ``p``, its second one step in direction ``d``;
    ``at`` order is the ``(d, r, c)`` order that breaks ties. ``count`` holds the number of legal placements,
    ``best_gain`` (with ``values``) the best gain, ``best_plan`` the best value of the seat's ``mode`` (see
    :mod:`engines.panots.policies`) and ``*_at`` where.
    """

    def __init__(self, st: State, wh: np.ndarray, values: bool, mode: np.ndarray, params: Params) -> None:
        """Evaluate the warehouse cards ``wh (B, C)`` for every seat (``mode`` per seat)."""
        from boardlab.engines.panots import kernels

        self.st, self.wh, self.first = st, wh, st.round == 0
        self.pool = unseen_pool(st.seen)
        self.count, self.best_gain, self.best_gain_at, self.best_plan, self.best_plan_at = kernels.evaluate(
            st.cell,
            st.bits,
            st.nbc,
            st.bbox,
            st.cells.astype(np.int64),
            st.n_cells,
            wh,
            st.slot_bits,
            st.vp,
            values,
            mode.astype(np.int64),
            self.pool,
            st.round + 1 < params.cards_per_player,
            params.group_diagonal,
        )

    def nth_legal(self, row: np.ndarray, slot: np.ndarray, nth: np.ndarray) -> np.ndarray:
        """The ``nth`` legal placement (in ``(d, r, c)`` order) of card ``slot`` for each row."""
        from boardlab.engines.panots import kernels

        st, players = self.st, self.st.cell.shape[1]
        b = row // players
        return kernels.nth_legal(st.cell, st.bbox, st.n_cells, b, row % players, self.wh[b, slot], nth.astype(np.int64))


def unseen_pool(seen: np.ndarray) -> np.ndarray:
    """``(B, 16)`` panots of each type on the cards not yet seen (the public pool the unseen cards come from)."""
    return (~seen).astype(np.int64) @ CARD_TYPES


# --- one round --------------------------------------------------------------------------------------------------


def place(st: State, b: np.ndarray, seat: np.ndarray, card: np.ndarray, at: np.ndarray) -> None:
    """Put ``card`` for each ``(b, seat)`` at placement ``at`` (see :class:`View`), in place."""
    from boardlab.engines.panots import kernels

    kernels.place(
        st.cell, st.bits, st.nbc, st.cells, st.n_cells, st.bbox, st.slot_bits, st.vp, st.local, b, seat, card, at
    )


def priority(params: Params, players: int, source: core.Source, games: np.ndarray) -> np.ndarray:
    """``(B, P)`` seats in grabbing order: a Fisher-Yates permutation (P - 1 draws) or seat order."""
    order = np.tile(np.arange(players), (len(games), 1))
    if params.grab_order == "random" and players > 1:
        _partial_shuffle(order, source.uniform(games, players - 1))
    return order


def open_round(params: Params, impls: Sequence[object], st: State, source: core.Source) -> View:
    """Reveal the round's cards, value them for ``impls`` and draw the grabbing order; no card grabbed yet."""
    b_n, players = st.cell.shape[:2]
    wh = np.concatenate([st.leftover, st.deck[:, :, st.round]], axis=1).astype(np.int64)  # (B, C)
    st.seen[np.arange(b_n)[:, None], wh] = True
    view = evaluate_round(params, impls, st, wh, source)
    view.order = priority(params, players, source, st.game)
    view.free = np.ones(wh.shape, dtype=bool)
    view.grabbed = np.zeros((b_n, players), dtype=np.int64)
    return view


def evaluate_round(params: Params, impls: Sequence[object], st: State, wh: np.ndarray, source: core.Source) -> View:
    """The :class:`View` of the warehouse ``wh`` with the values ``impls`` need (chance for them from ``source``)."""
    values = any(getattr(i, "values", False) for i in impls)
    mode = np.array([getattr(i, "mode", 0) for i in impls], dtype=np.int64)
    view = View(st, wh, values, mode, params)
    view.params, view.source, view.games, view.mode = params, source, st.game, mode
    return view


def grab_from(impls: Sequence[object], st: State, view: View, first: int) -> None:
    """Let the grabbers ``first``.. of the round's order grab, in order (``view.free``/``grabbed`` in place)."""
    b_n, players = st.cell.shape[:2]
    bs = np.arange(b_n)
    order, free = view.order, view.free
    for k in range(first, players):
        seat = order[:, k]
        choice = np.zeros(b_n, dtype=np.int64)
        for impl, rows in _groups(impls, seat):
            choice[rows] = impl.grab(view, st, rows, seat[rows], free[rows], order[rows], k)
        view.grabbed[bs, seat] = choice
        free[bs, choice] = False


def play_round(params: Params, impls: Sequence[object], st: State, source: core.Source) -> None:
    """Reveal, grab in priority order, place, then swap or discard (in place)."""
    view = open_round(params, impls, st, source)
    grab_from(impls, st, view, 0)
    close_round(impls, st, view)


def close_round(impls: Sequence[object], st: State, view: View) -> None:
    """Every card grabbed: place, swap or discard, leave the leftovers for the next round (in place)."""
    b_n, players = st.cell.shape[:2]
    bs = np.arange(b_n)
    wh, order, free, grabbed = view.wh, view.order, view.free, view.grabbed
    n_left = st.leftover.shape[1]
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
        taken = np.where(none, free[rows].argmax(axis=1), pick)  # stuck again: the first leftover is discarded
        swap = ~none | (view.params.unplaceable == "discard-swapped")  # or the grabbed card, leftovers kept
        r2, s2 = rows[swap], s[swap]
        free[r2, taken[swap]] = False
        free[r2, grabbed[r2, s2]] = True
        grabbed[r2, s2] = taken[swap]
        st.swapped[r2, s2] += 1
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
    at = np.zeros(len(rows), dtype=np.int64)
    for impl, sub in _groups(impls, s):
        at[sub] = impl.place(view, st, rows[sub], s[sub], k[sub])
    place(st, rows, s, wh[rows, k], at)


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


def play_with(params: Params, impls: Sequence[object], n_games: int, rng: np.random.Generator | core.Source) -> Outcome:
    """Play ``n_games`` complete games in lock-step; seat ``i`` follows the policy implementation ``impls[i]``.

    Games are played in chunks of ``CHUNK`` to bound memory (each game's chance events still come from its own
    index). Returns ``score`` (VP per seat), ``winner`` (-1 shared), ``winners``, ``turns`` (rounds) and the
    columns of :data:`METRICS`.
    """
    check_seats(params, len(impls))
    source = core.as_source(rng)
    if n_games == 0:  # empty columns of the right shapes and dtypes
        one = outcome(
            params, _run(params, impls, core.RandomSource(np.random.default_rng(0)), np.arange(1)), len(impls)
        )
        return {name: value[:0] for name, value in one.items()}
    outs = [
        outcome(
            params, _run(params, impls, source, np.arange(lo, min(lo + CHUNK, n_games), dtype=np.int64)), len(impls)
        )
        for lo in range(0, n_games, CHUNK)
    ]
    return {name: np.concatenate([o[name] for o in outs]) for name in outs[0]}


def _chunk(lo: int, n_games: int) -> np.ndarray:
    """Indices of the games of the chunk starting at ``lo``."""
    return np.arange(lo, min(lo + CHUNK, n_games), dtype=np.int64)


def play_state(params: Params, impls: Sequence[object], n_games: int, rng: np.random.Generator | core.Source) -> State:
    """Play like :func:`play_with` (one chunk) and return the final state, for tests and studies of the sidewalks."""
    check_seats(params, len(impls))
    return _run(params, impls, core.as_source(rng), np.arange(n_games, dtype=np.int64))


def check_seats(params: Params, players: int) -> None:
    """Refuse a player count the game or these knobs do not allow."""
    core.check_players(INFO, players)
    if players == 1 and "majority" in params.faces:
        raise ValueError("faces='majority' is not allowed in solo; the solo face of card 4 is space")
    used = players * params.cards_per_player + warehouse_leftovers(params, players)
    if used > N_CARDS:
        raise ValueError(
            f"{players} players x cards_per_player={params.cards_per_player} + "
            f"{warehouse_leftovers(params, players)} leftovers = {used} cards; the deck has {N_CARDS}"
        )


def _run(params: Params, impls: Sequence[object], source: core.Source, games: np.ndarray) -> State:
    """Play the games ``games`` (original indices) to the end."""
    st = State.initial(params, len(impls), source, games)
    for _ in range(params.cards_per_player):
        play_round(params, impls, st, source)
        track_lead(params, st)
    return st


def track_lead(params: Params, st: State) -> None:
    """After a round, from the score as it would stand if the game ended now (majorities included).

    Sets the mid-game score at the end of round ``cards // 2`` and counts the changes of sole leader (a round that
    ends in a tie for the lead keeps the last sole leader).
    """
    from boardlab.engines.panots import kernels

    score = st.local + kernels.majorities(
        st.bits, st.cells.astype(np.int64), st.n_cells, st.vp, params.majority_ties == "all", params.group_diagonal
    )
    if st.round == params.cards_per_player // 2:
        st.mid_score[:] = score
    top = score.max(axis=1)
    sole = (score == top[:, None]).sum(axis=1) == 1
    lead = score.argmax(axis=1)
    st.lead_changes += sole & (st.leader >= 0) & (lead != st.leader)
    st.leader = np.where(sole, lead, st.leader)


def outcome(params: Params, st: State, players: int) -> Outcome:
    """The per-game columns of finished games."""
    n = len(st.game)
    per_face = final_scores(
        st.cell, st.slot_bits, st.vp, st.cells.astype(np.int64), st.n_cells.astype(np.int64), params
    )
    score = (per_face.sum(axis=2) + start_vp(params, players)).astype(np.int32)
    winner, winners = core.rank_winners(score)
    bb = st.bbox.astype(np.int32)
    face_up = st.up.astype(np.int64)
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
        "mid_score": st.mid_score,
        "lead_changes": st.lead_changes,
    }
    for f, face in enumerate(FACES):
        out[f"vp_{face}"] = per_face[..., f].astype(np.int32)
    out["width"] = bb[..., 3] - bb[..., 2] + 1
    out["height"] = bb[..., 1] - bb[..., 0] + 1
    out["face_up"] = face_up
    out["title"] = title
    return out
