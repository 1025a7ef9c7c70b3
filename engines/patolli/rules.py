"""Patolli rules, batched: parameters, board layout, state, one lock-step roll for many games, and ``play``.

Order of this module: constants, params, layout, state, the moves a policy sees, the roll, play.

Encoding. Buttons of one seat are identical, so a seat's buttons on the track are one bit set (``uint64``): bit
``p`` is set when a button has travelled ``p`` steps from the seat's start square (its *progress*, ``0..L-1``;
the square is ``(start + p) % L``). Buttons not on the track are counts: ``off`` (waiting to enter, including
captured ones) and ``home`` (finished). Square sets (safe, bad luck, grey corners) are stored in each seat's own
progress frame, so "the square my button lands on" is a shift of a bit set. Converting between the two seats'
frames is a rotation of the ``L``-bit ring. This keeps every step elementwise over the batch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np

from boardlab.engines import core
from boardlab.engines.core import GameInfo, Metric, Outcome, knob

INFO = GameInfo(
    id="patolli",
    name="Patolli",
    version=3,  # 3: markers placed by the players where the rulebook allows, optional grey extra move; 2: entering
    min_players=2,
    max_players=2,
    chance=True,
    turn_cap=1000,
    score_label="buttons finished",
    chunk_games=20_000,
)

PLAYERS = 2
MAX_TRACK = 60  # a seat's buttons must fit one uint64 bit set, and ring rotations must stay below 64 bits
ALL_FINISHED, BANKRUPT, CAPPED = 0, 1, 2  # win reasons
SKIP, CAPTURE, BAD_LUCK = 0, 1, 2  # causes of a payment
NEVER = np.iinfo(np.int16).max  # the finishing turn of a button that has not finished
U64 = np.uint64
ONE = np.uint64(1)

METRICS: dict[str, Metric] = {
    "win_reason": Metric("counts", "how the game ended", ("all buttons finished", "opponent bankrupt", "turn cap")),
    "capped": Metric("game", "games stopped at the turn cap"),
    "first_player": Metric("game", "games in which seat 1 moved first (the roll-off's or the knob's choice)"),
    "first_won": Metric("game", "games won alone by the seat that moved first"),
    "captures": Metric("seat", "opponent buttons captured"),
    "paid_skip": Metric("seat", "tokens paid for turns with no legal move"),
    "paid_capture": Metric("seat", "tokens paid when one of the seat's buttons was captured"),
    "paid_bad_luck": Metric("seat", "tokens paid for landing on a bad-luck square"),
    "tokens": Metric("seat", "tokens held at the end (the winner has collected the bank)"),
    "bank": Metric("game", "tokens in the bank when the game ended, before the winner collects them"),
}


def marker_eligible(params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The squares a safe marker and a bad-luck marker may stand on, ascending (knob ``marker_squares``)."""
    length = params.track_length
    grey = set(grey_squares(length, params.arm_length))
    if params.marker_squares == "restricted":
        same = tuple(s for s in range(length) if s not in grey and s not in params.starts)
        return same, same
    return tuple(range(length)), tuple(s for s in range(length) if s not in grey)


def _check_squares(name: str, squares: tuple[int, ...] | None, length: int, forbidden: set[int]) -> None:
    if squares is None:
        return
    if (
        not isinstance(squares, tuple)
        or any(isinstance(s, bool) or not isinstance(s, int) for s in squares)
        or len(set(squares)) != len(squares)
        or any(not 0 <= s < length for s in squares)
        or any(s in forbidden for s in squares)
    ):
        raise ValueError(
            f"{name}={squares!r} is not allowed; give distinct squares 0..{length - 1}, none of them "
            f"forbidden here: {sorted(forbidden)}"
        )


@dataclass(frozen=True, slots=True)
class Params(core.Params):
    """Patolli knobs; defaults are the rulebook's, and ours where it is silent (see the package README)."""

    track_length: int = knob(
        52,
        "Squares on the closed track.",
        f"20..{MAX_TRACK}, equal to 4 × (2 × arm_length + 1)",
        source="ours: the modern 52-square board; the rulebook shows a board but counts no squares",
    )
    arm_length: int = knob(
        6,
        "Squares on each side of an arm (each arm is 2 wide).",
        "2..7",
        source="ours: 6, the arm that makes 52 squares",
    )
    start_squares: tuple[int, ...] | None = knob(
        None,
        "Start square of each seat; none means the centre squares 2·arm_length and 2·arm_length + L/2.",
        "none or 2 distinct squares that are not grey corners",
        source="ours: two opposite squares of the centre (the rulebook: a black square in the centre)",
    )
    safe_squares: tuple[int, ...] | None = knob(
        None,
        "Fixed safe squares; none has random_markers of them placed per game (see marker_placement).",
        "none or distinct squares where marker_squares lets a safe marker stand",
        source="rulebook: not fixed; the players choose them",
    )
    bad_luck_squares: tuple[int, ...] | None = knob(
        None,
        "Fixed bad-luck squares; none has random_markers of them placed per game (see marker_placement).",
        "none or distinct squares where marker_squares lets a bad-luck marker stand, not safe squares",
        source="rulebook: not fixed; the players choose them",
    )
    marker_squares: Literal["rulebook", "restricted"] = knob(
        "rulebook",
        "Where markers may stand. rulebook: a safe marker on any square, a bad-luck marker on any square but a grey "
        "corner; restricted: neither on a grey corner nor on a start square (this engine's rule up to version 2).",
        "rulebook | restricted",
        source="rulebook: only bad-luck markers are kept off the grey corners; nothing else is forbidden",
    )
    marker_placement: Literal["players", "random"] = knob(
        "players",
        "Who places the markers that no knob fixes: the players (each seat's policy, in turn) or chance.",
        "players | random",
        source="rulebook: the players decide the safe squares together and choose the bad-luck squares",
    )
    random_markers: int = knob(
        2,
        "Safe markers and bad-luck markers (of each kind) placed per game when a kind is not fixed.",
        "0..8, and enough free squares",
        source="rulebook",
    )
    buttons: int = knob(6, "Buttons per player.", "1..12", source="rulebook")
    tokens: int = knob(10, "Tokens per player at the start.", "1..60", source="rulebook")
    die_faces: int = knob(6, "Faces of the die (face f moves f squares).", "2..12", source="rulebook")
    enter_roll: int = knob(1, "Face that may enter a button on the start square.", "1..die_faces", source="rulebook")
    roll_again: tuple[int, ...] = knob(
        (5,),
        "Faces after whose move the player rolls again.",
        "distinct faces 1..die_faces, possibly none",
        source="rulebook",
    )
    grey_bonus: bool = knob(
        True, "Landing on a grey corner (arm end) grants another move.", "true | false", source="rulebook"
    )
    grey_extra: Literal["optional", "always"] = knob(
        "optional",
        "The extra move a grey corner grants: optional (the player decides after landing) or always taken.",
        "optional | always",
        source="rulebook: 'you may make a second move'",
    )
    exit_overshoot: bool = knob(
        False,
        "A button may leave the track with a roll larger than needed.",
        "true | false",
        source="rulebook: the exact number is needed to finish",
    )
    pay_when_empty: bool = knob(
        False,
        "A player with no button on the track who cannot enter also pays 1 token.",
        "true | false",
        source="rulebook: with no button on the board and no 1, the turn just ends",
    )
    overshoot_pays: bool = knob(
        True,
        "A roll lost because it is too high to finish a button costs a token like any lost roll (false: free).",
        "true | false",
        source="rulebook: a roll with no legal move costs a token; the too-high rule names no exception",
    )
    grey_safe: bool = knob(
        False,
        "A button on a grey corner cannot be captured (opposing buttons share it, as on a safe square).",
        "true | false",
        source="rulebook: 'safe from penalties' read as never a bad-luck (penalty) square, not as capture-proof",
    )
    first_player: int = knob(
        -1,
        "Seat that starts; -1 means a die roll-off (highest starts, ties reroll).",
        "-1..1",
        source="rulebook",
    )
    head_start: int = knob(
        0,
        "Tokens credited at the start to seat 1, on top of tokens: seat 1 places the first bad-luck marker and "
        "seat 0 the last (0 = the rulebook).",
        "0..20, and tokens + head_start <= 60",
        source="ours: a handicap in the game's own currency, to ask what compensation makes the later seat fair",
        added=True,
    )

    def __post_init__(self) -> None:
        """Reject out-of-range knobs with a message naming the knob, the value and the allowed range."""
        core.check_range("arm_length", self.arm_length, 2, 7)
        core.check_range("track_length", self.track_length, 20, MAX_TRACK)
        if self.track_length != 4 * (2 * self.arm_length + 1):
            raise ValueError(
                f"track_length={self.track_length} does not fit arm_length={self.arm_length}; "
                f"allowed 4 × (2 × arm_length + 1) = {4 * (2 * self.arm_length + 1)}"
            )
        length = self.track_length
        grey = set(grey_squares(length, self.arm_length))
        _check_squares("start_squares", self.start_squares, length, grey)
        if self.start_squares is not None and len(self.start_squares) != PLAYERS:
            raise ValueError(f"start_squares={self.start_squares!r} is not allowed; give {PLAYERS} squares")
        core.check_choice("marker_squares", self.marker_squares, ("rulebook", "restricted"))
        core.check_choice("marker_placement", self.marker_placement, ("players", "random"))
        safe_ok, bad_ok = marker_eligible(self)
        safe, bad = set(self.safe_squares or ()), set(self.bad_luck_squares or ())
        _check_squares("safe_squares", self.safe_squares, length, set(range(length)) - set(safe_ok))
        _check_squares("bad_luck_squares", self.bad_luck_squares, length, (set(range(length)) - set(bad_ok)) | safe)
        core.check_range("random_markers", self.random_markers, 0, 8)
        free_safe, free_bad = len(set(safe_ok) - safe - bad), len(set(bad_ok) - safe - bad)
        needed_safe = self.random_markers * (self.safe_squares is None)
        needed = needed_safe + self.random_markers * (self.bad_luck_squares is None)
        if needed_safe > free_safe or (self.bad_luck_squares is None and needed > free_bad):
            raise ValueError(
                f"random_markers={self.random_markers} is out of range; only {free_bad} free squares "
                f"remain for {needed} random markers"
            )
        core.check_range("buttons", self.buttons, 1, 12)
        core.check_range("tokens", self.tokens, 1, 60)
        core.check_range("die_faces", self.die_faces, 2, 12)
        core.check_range("enter_roll", self.enter_roll, 1, self.die_faces)
        again = self.roll_again
        if (
            not isinstance(again, tuple)
            or any(isinstance(f, bool) or not isinstance(f, int) for f in again)
            or len(set(again)) != len(again)
            or any(not 1 <= f <= self.die_faces for f in again)
        ):
            raise ValueError(f"roll_again={again!r} is not allowed; give distinct faces 1..{self.die_faces}")
        core.check_choice("grey_bonus", self.grey_bonus, (True, False))
        core.check_choice("exit_overshoot", self.exit_overshoot, (True, False))
        core.check_choice("pay_when_empty", self.pay_when_empty, (True, False))
        core.check_choice("overshoot_pays", self.overshoot_pays, (True, False))
        core.check_choice("grey_safe", self.grey_safe, (True, False))
        core.check_choice("grey_extra", self.grey_extra, ("optional", "always"))
        core.check_range("first_player", self.first_player, -1, PLAYERS - 1)
        core.check_range("head_start", self.head_start, 0, 20)
        if self.tokens + self.head_start > 60:
            raise ValueError(
                f"head_start={self.head_start} is out of range; allowed 0..{60 - self.tokens} with "
                f"tokens={self.tokens} (at most 60 tokens a player)"
            )

    @property
    def starts(self) -> tuple[int, int]:
        """Start square of each seat."""
        if self.start_squares is not None:
            return (self.start_squares[0], self.start_squares[1])
        return (2 * self.arm_length, 2 * self.arm_length + self.track_length // 2)


VARIANTS: dict[str, dict[str, str]] = {
    "exit-overshoot": {"exit_overshoot": "true"},
    "pay-when-empty": {"pay_when_empty": "true"},
    "no-grey-bonus": {"grey_bonus": "false"},
    "test-markers": {"safe_squares": "3,29", "bad_luck_squares": "16,42"},
    "board-60": {"track_length": "60", "arm_length": "7"},
    "free-overshoot": {"overshoot_pays": "false"},
    "grey-extra-always": {"grey_extra": "always"},
    "grey-safe": {"grey_safe": "true"},
    "restricted-markers": {"marker_squares": "restricted"},
}
"""Named variants: knob overrides a designer can ask for by name."""


# --- layout -----------------------------------------------------------------------------------------------


def grey_squares(length: int, arm: int) -> tuple[int, ...]:
    """The grey corners: the two squares at the far end of each arm (5, 6, 18, 19, ... on the 52 board)."""
    quarter = length // 4
    return tuple(q * quarter + arm + k for q in range(4) for k in (-1, 0))


def square_bits(squares: Sequence[int]) -> int:
    """A set of squares (or progresses) as a Python int bit set."""
    bits = 0
    for s in squares:
        bits |= 1 << int(s)
    return bits


def rotate(bits: np.ndarray, shift: np.ndarray | np.uint64, length: int) -> np.ndarray:
    """Rotate ``length``-bit sets so that bit ``p`` moves to bit ``(p + shift) % length`` (``shift`` in 0..L-1)."""
    shift = np.asarray(shift, dtype=U64)
    full = U64((1 << length) - 1)
    return ((bits << shift) | (bits >> (U64(length) - shift))) & full


@dataclass(frozen=True)
class Layout:
    """Tables derived from the board knobs once per ``Params``."""

    length: int
    full: np.uint64  # bits 0..L-1
    starts: tuple[int, int]
    grey: tuple[int, ...]  # grey corner squares
    grey_frame: np.ndarray  # (2,) uint64: grey corners in each seat's progress frame (zero without grey_bonus)
    shelter_frame: np.ndarray  # (2,) uint64: grey corners in each seat's frame when they protect (grey_safe)
    to_me: np.ndarray  # (2,) uint64: rotation taking the opponent's frame to the mover's, by mover
    to_them: np.ndarray  # (2,) uint64: the inverse rotation, by mover
    eligible: tuple[tuple[int, ...], tuple[int, ...]]  # squares a safe / bad-luck marker may take, ascending
    again_bits: int  # bit f set when face f rolls again


@lru_cache(maxsize=32)
def layout(params: Params) -> Layout:
    """The board tables of ``params``."""
    length = params.track_length
    grey = grey_squares(length, params.arm_length)
    starts = params.starts
    grey_frame = np.array(
        [square_bits([(g - s) % length for g in grey]) if params.grey_bonus else 0 for s in starts], dtype=U64
    )
    shelter_frame = np.array(
        [square_bits([(g - s) % length for g in grey]) if params.grey_safe else 0 for s in starts], dtype=U64
    )
    to_me = np.array([(starts[1 - me] - starts[me]) % length for me in range(PLAYERS)], dtype=U64)
    to_them = np.array([(starts[me] - starts[1 - me]) % length for me in range(PLAYERS)], dtype=U64)
    eligible = marker_eligible(params)
    return Layout(
        length,
        U64((1 << length) - 1),
        starts,
        grey,
        grey_frame,
        shelter_frame,
        to_me,
        to_them,
        eligible,
        square_bits(params.roll_again),
    )


# --- state ------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class State:
    """The games being played, one column each; :func:`step` updates the arrays in place.

    Per-seat arrays are seat-major, shape ``(2, B)``, so that each seat's row is contiguous; the game axis is
    always the last one.
    """

    game: np.ndarray  # (B,) int64: index of the game in the output
    track: np.ndarray  # (2, B) uint64: bit p set = a button of the seat at progress p (0..L-1) on the track
    off: np.ndarray  # (2, B) int8: buttons waiting to enter (never entered, or captured), 0..buttons
    home: np.ndarray  # (2, B) int8: buttons finished, 0..buttons
    tokens: np.ndarray  # (2, B) int8: tokens held, 0..tokens + head_start (the winner collects the bank in the outcome)
    bank: np.ndarray  # (B,) int8: tokens paid to the bank, 0..2·tokens + head_start
    safe: np.ndarray  # (2, B) uint64: safe squares in each seat's progress frame
    bad: np.ndarray  # (2, B) uint64: bad-luck squares in each seat's progress frame
    mover: np.ndarray  # (B,) int8: seat to roll, 0 or 1
    first: np.ndarray  # (B,) int8: seat that moved first, 0 or 1
    turn: np.ndarray  # (B,) int16: turns completed (a turn may hold several rolls), 0..turn_cap
    captures: np.ndarray  # (2, B) int8: opponent buttons captured by the seat (at most the opponent's tokens)
    paid: np.ndarray  # (3, 2, B) int8: tokens paid, by cause (SKIP, CAPTURE, BAD_LUCK) and seat
    finished_at: np.ndarray  # (2, buttons, B) int16: turn in which the seat's k-th button finished, NEVER before
    winner: np.ndarray  # (B,) int8: -1 while undecided, else the winning seat
    reason: np.ndarray  # (B,) int8: -1 while running, else ALL_FINISHED, BANKRUPT or CAPPED

    @classmethod
    def empty(cls, params: Params, games: np.ndarray) -> State:
        """Every button waiting, full purses, no markers, seat 0 to move, for the games ``games``."""
        n = len(games)
        return cls(
            game=np.asarray(games, dtype=np.int64),
            track=np.zeros((PLAYERS, n), dtype=U64),
            off=np.full((PLAYERS, n), params.buttons, dtype=np.int8),
            home=np.zeros((PLAYERS, n), dtype=np.int8),
            tokens=np.repeat((params.tokens + start_tokens(params))[:, None], n, axis=1).astype(np.int8),
            bank=np.zeros(n, dtype=np.int8),
            safe=np.zeros((PLAYERS, n), dtype=U64),
            bad=np.zeros((PLAYERS, n), dtype=U64),
            mover=np.zeros(n, dtype=np.int8),
            first=np.zeros(n, dtype=np.int8),
            turn=np.zeros(n, dtype=np.int16),
            captures=np.zeros((PLAYERS, n), dtype=np.int8),
            paid=np.zeros((3, PLAYERS, n), dtype=np.int8),
            finished_at=np.full((PLAYERS, params.buttons, n), NEVER, dtype=np.int16),
            winner=np.full(n, -1, dtype=np.int8),
            reason=np.full(n, -1, dtype=np.int8),
        )

    def set_markers(self, params: Params, safe_squares: np.ndarray, bad_squares: np.ndarray) -> None:
        """Store marker square sets (``(B,)`` bit sets over squares) in each seat's progress frame, in place."""
        lay = layout(params)
        for seat, start in enumerate(lay.starts):
            back = U64((lay.length - start) % lay.length)
            self.safe[seat] = rotate(safe_squares.astype(U64), back, lay.length)
            self.bad[seat] = rotate(bad_squares.astype(U64), back, lay.length)

    def keep_rows(self, keep: np.ndarray) -> State:
        """A new state holding only the games ``keep``, positions or a mask (finished games compacted out)."""
        rows = core.rows_of(keep)
        return State(*(getattr(self, name).take(rows, axis=-1) for name in self.__slots__))  # faster than [..., rows]

    def slice(self, begin: int, end: int) -> State:
        """A view of the games at positions ``begin..end-1``."""
        return State(*(getattr(self, name)[..., begin:end] for name in self.__slots__))

    def put_rows(self, rows: np.ndarray, other: State) -> None:
        """Overwrite the games at positions ``rows`` with the games of ``other`` (in place)."""
        for name in self.__slots__:
            getattr(self, name)[..., rows] = getattr(other, name)


def start_tokens(params: Params) -> np.ndarray:
    """Tokens each seat gets on top of ``tokens``, the head start: seat ``i`` gets ``i * head_start``."""
    return params.head_start * np.arange(PLAYERS, dtype=np.int64)


SAFE, BAD = 0, 1  # the kinds of marker, in the order they are placed


def placements(params: Params) -> list[tuple[int, int]]:
    """The marker placements of a game in order, as ``(kind, seat)``: every safe marker, then every bad-luck one.

    Kinds fixed by a knob are not placed. The seats alternate, seat 0 first for the safe markers and seat 1
    first for the bad-luck markers, so with two of each both seats place one of each kind (our protocol: the
    rulebook says the players decide together).
    """
    out = []
    if params.safe_squares is None:
        out += [(SAFE, k % PLAYERS) for k in range(params.random_markers)]
    if params.bad_luck_squares is None:
        out += [(BAD, (k + 1) % PLAYERS) for k in range(params.random_markers)]
    return out


def marker_sets(params: Params, state: State) -> tuple[np.ndarray, np.ndarray]:
    """The safe and the bad-luck squares of every game as ``(B,)`` bit sets over squares (not progress)."""
    lay = layout(params)
    shift = U64(lay.starts[0])
    return rotate(state.safe[0], shift, lay.length), rotate(state.bad[0], shift, lay.length)


def free_squares(params: Params, state: State, kind: int) -> np.ndarray:
    """``(B, L)`` bool: the squares a marker of ``kind`` may still take (eligible and holding no marker)."""
    lay = layout(params)
    safe, bad = marker_sets(params, state)
    taken = safe | bad
    free = ((taken[:, None] >> np.arange(lay.length, dtype=U64)) & ONE) == 0
    allowed = np.zeros(lay.length, dtype=bool)
    allowed[list(lay.eligible[kind])] = True
    return free & allowed


def draw_square(free: np.ndarray, games: np.ndarray, source: core.Source) -> np.ndarray:
    """One uniform draw per game over its free squares (ascending): the square picked."""
    pick = source.draw(games, free.sum(axis=1))[:, 0]
    return (np.cumsum(free, axis=1) > pick[:, None]).argmax(axis=1)


def place_markers(
    params: Params, state: State, source: core.Source, impls: Sequence[object] | None = None, first: int = 0
) -> None:
    """Put the markers on the board (in place), from placement ``first`` on (see :func:`placements`).

    Under ``marker_placement=players`` the placing seat's policy picks each square (``place(params, state, step,
    source)`` -> ``(B,)`` squares; an illegal pick takes the lowest free square); under ``random``, and
    when no policies are given (look-ahead, tests), one uniform draw over the free squares picks it, as the
    ``random`` policy does.
    """
    safe, bad = marker_sets(params, state)
    if first == 0:
        safe = np.full(len(state.game), square_bits(params.safe_squares or ()), dtype=U64)
        bad = np.full(len(state.game), square_bits(params.bad_luck_squares or ()), dtype=U64)
        state.set_markers(params, safe, bad)
    by_players = params.marker_placement == "players" and impls is not None
    for step, (kind, seat) in enumerate(placements(params)):
        if step < first:
            continue
        free = free_squares(params, state, kind)
        if by_players:
            square = np.asarray(impls[seat].place(params, state, step, source), dtype=np.int64)
            legal = free[np.arange(len(square)), np.clip(square, 0, free.shape[1] - 1)] & (square >= 0)
            square = np.where(legal & (square < free.shape[1]), square, free.argmax(axis=1))
        else:
            square = draw_square(free, state.game, source)
        bit = ONE << square.astype(U64)
        if kind == SAFE:
            safe = safe | bit
        else:
            bad = bad | bit
        state.set_markers(params, safe, bad)


def roll_off(params: Params, state: State, source: core.Source) -> None:
    """Choose the first player: fixed, or each seat rolls the die (seat 0 first), highest starts, ties reroll."""
    if params.first_player >= 0:
        state.first[:] = params.first_player
    else:
        pending = np.arange(len(state.game))
        while len(pending):
            faces = source.draw(state.game[pending], params.die_faces, PLAYERS)
            decided = faces[:, 0] != faces[:, 1]
            state.first[pending[decided]] = faces[decided, 1] > faces[decided, 0]
            pending = pending[~decided]
    state.mover[:] = state.first


def start(params: Params, games: np.ndarray, source: core.Source, impls: Sequence[object] | None = None) -> State:
    """Fresh games ``games``: the markers placed (by ``impls``, or drawn), then the roll-off (when not fixed)."""
    state = State.empty(params, games)
    place_markers(params, state, source, impls)
    roll_off(params, state, source)
    return state


# --- what a policy sees -----------------------------------------------------------------------------------


def role_masks(mover: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All-ones masks where seat 1 moves: as uint64 and as int8 (branch-free selects beat ``np.where``)."""
    m8 = -mover.astype(np.int8)
    return m8.astype(U64), m8


def by_role(values: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mover's and the other seat's values from a ``(2, B)`` seat-major array."""
    swap = (values[0] ^ values[1]) & mask
    return values[0] ^ swap, values[1] ^ swap


def to_seats(values: np.ndarray, mine: np.ndarray, theirs: np.ndarray, mask: np.ndarray) -> None:
    """Store the mover's and the other seat's values into a ``(2, B)`` seat-major array, in place."""
    swap = (mine ^ theirs) & mask
    values[0] = mine ^ swap
    values[1] = theirs ^ swap


class Moves:
    """The mover's legal moves after a roll, for a batch of games (read-only for policies).

    Bit sets are ``(B,)`` uint64 in the mover's progress frame unless the name ends in ``_own`` (the opponent's
    buttons in the opponent's frame) or ``_theirs`` (a square set in the opponent's frame). A move is named by
    its source: a single-bit set holding the moving button's progress; entering a button is the empty set.
    """

    __slots__ = (
        "bad",
        "die",
        "enter",
        "finish",
        "games",
        "grey",
        "home_me",
        "mine",
        "off_me",
        "off_them",
        "overshoot",
        "params",
        "rows",
        "safe",
        "safe_theirs",
        "source",
        "state",
        "step",
        "theirs",
        "theirs_own",
        "to_me",
        "to_them",
    )

    def __init__(self, params: Params, source: core.Source, state: State, die: np.ndarray) -> None:
        """Derive the moves of each game's mover after rolling ``die`` (``(B,)`` int64 faces)."""
        lay = layout(params)
        length = lay.length
        m64, m8 = role_masks(state.mover)
        self.params, self.source, self.games = params, source, state.game
        self.state, self.rows = state, None  # the position (rows of ``state``; None = all), for look-ahead only
        self.die = die.astype(U64)  # the face rolled
        self.mine, self.theirs_own = by_role(state.track, m64)  # the mover's buttons; the opponent's, own frame
        self.to_me = lay.to_me[0] ^ ((lay.to_me[0] ^ lay.to_me[1]) & m64)  # rotation: their frame -> mover's
        self.to_them = lay.to_them[0] ^ ((lay.to_them[0] ^ lay.to_them[1]) & m64)  # and back
        self.theirs = rotate(self.theirs_own, self.to_me, length)  # opponent's buttons, mover's frame
        self.off_me, self.off_them = by_role(state.off, m8)  # (B,) int8: waiting buttons of mover, opponent
        self.home_me = state.home[0] ^ ((state.home[0] ^ state.home[1]) & m8)  # (B,) int8: mover's finished
        safe, safe_theirs = by_role(state.safe, m64)  # safe markers, mover's and opponent's frame
        shelter = lay.shelter_frame
        # squares where no capture happens: the safe markers, and the grey corners under ``grey_safe``
        self.safe = safe | (shelter[0] ^ ((shelter[0] ^ shelter[1]) & m64))
        self.safe_theirs = safe_theirs | (shelter[1] ^ ((shelter[0] ^ shelter[1]) & m64))
        self.bad = state.bad[0] ^ ((state.bad[0] ^ state.bad[1]) & m64)  # bad-luck squares
        grey = lay.grey_frame
        self.grey = grey[0] ^ ((grey[0] ^ grey[1]) & m64)  # grey corners (0 without the bonus)
        lands = (ONE << (U64(length) - self.die)) - ONE  # sources p with p + die < L
        self.step = self.mine & lands & ~(self.mine >> self.die)  # sources of moves landing on the track
        # sources of finishing moves
        self.finish = self.mine & (~lands if params.exit_overshoot else lands + ONE)
        self.overshoot = self.mine & ~lands & ~(lands + ONE)  # buttons the roll would take past their finish
        self.enter = (die == params.enter_roll) & (self.off_me > 0) & ((self.mine & ONE) == 0)  # (B,) bool

    @property
    def legal(self) -> np.ndarray:
        """Sources of every legal button move (entering excluded)."""
        return self.step | self.finish

    def target(self, sources: np.ndarray) -> np.ndarray:
        """Landing bit of the move from each single-bit source set (0 when it finishes or is empty)."""
        return (sources << self.die) & U64((1 << self.params.track_length) - 1)

    @property
    def capture(self) -> np.ndarray:
        """Sources whose move lands on an opponent's button outside a safe square."""
        return self.step & ((self.theirs & ~self.safe) >> self.die)

    @property
    def enter_captures(self) -> np.ndarray:
        """Entering is legal and lands on an opponent's button (start squares are never safe)."""
        return self.enter & ((self.theirs & ONE) != 0)

    def subset(self, rows: np.ndarray) -> Moves:
        """The same moves restricted to ``rows``."""
        out = object.__new__(Moves)
        for name in self.__slots__:
            value = getattr(self, name)
            setattr(out, name, value if name in ("params", "source", "state", "rows") else value[rows])
        out.rows = rows if self.rows is None else self.rows[rows]
        return out

    def position(self) -> State:
        """A copy of the games these moves belong to (for policies that look ahead)."""
        return self.state.keep_rows(np.arange(len(self.games)) if self.rows is None else self.rows)


def lowest(bits: np.ndarray) -> np.ndarray:
    """The lowest set bit of each uint64 as a single-bit set (0 for zero)."""
    return bits & (~bits + ONE)


def highest(bits: np.ndarray) -> np.ndarray:
    """The highest set bit of each uint64 as a single-bit set (0 for zero)."""
    smear = bits | (bits >> U64(1))
    for shift in (2, 4, 8, 16, 32):
        smear |= smear >> U64(shift)
    return smear ^ (smear >> U64(1))


# --- the roll ---------------------------------------------------------------------------------------------


def decide(impls: Sequence[object], moves: Moves, mover: np.ndarray) -> np.ndarray:
    """Each game's chosen source bit (0 = enter) from its mover's policy."""
    if impls[0] is impls[1]:
        return impls[0].choose(moves)
    out = np.empty(len(mover), dtype=U64)
    for seat in range(PLAYERS):
        rows = np.flatnonzero(mover == seat)
        if len(rows):
            out[rows] = impls[seat].choose(moves.subset(rows))
    return out


def keeps(impls: Sequence[object], params: Params, state: State, rows: np.ndarray, source: core.Source) -> np.ndarray:
    """Whether each mover of ``rows`` takes the optional extra move its grey corner offers.

    ``state`` is the position after the move that landed there, with the mover still to move. A policy decides
    by ``keep_extra(params, state, rows, source)``; one without that method always takes it.
    """
    out = np.ones(len(rows), dtype=bool)
    mover = state.mover[rows]
    for seat in range(PLAYERS):
        rule = getattr(impls[seat], "keep_extra", None)
        mine = mover == seat
        if rule is not None and mine.any():
            out[mine] = rule(params, state, rows[mine], source)
    return out


def step(params: Params, impls: Sequence[object], state: State, source: core.Source) -> np.ndarray:
    """Play one roll in every game of ``state`` (in place); returns the mask of games that ended.

    A roll: draw the die; the mover's policy picks a legal move (or the roll is lost, paying when due); apply
    the capture and the bad-luck payment; decide the game; the turn passes unless the move earned another roll.
    Everything is branch-free arithmetic over the whole batch.
    """
    die = source.draw(state.game, params.die_faces)[:, 0] + 1
    moves = Moves(params, source, state, die)
    chosen = decide(impls, moves, state.mover)
    return move(params, state, moves, chosen, lambda rows: keeps(impls, params, state, rows, source))


def move(
    params: Params,
    state: State,
    moves: Moves,
    chosen: np.ndarray,
    keep: Callable[[np.ndarray], np.ndarray] | None = None,
) -> np.ndarray:
    """Make each game's ``chosen`` move (a single-bit source, 0 = enter or none) in place; the games that ended.

    An illegal choice counts as none: the roll is lost. ``keep(rows)`` says which movers of ``rows`` take the
    extra move of the grey corner they landed on when ``grey_extra`` is optional (``None``: all take it).
    """
    lay = layout(params)
    m64, m8 = role_masks(state.mover)
    src = chosen & moves.legal  # the policy's single-bit source; 0 = enter or none
    entering = moves.enter & (src == 0)
    moved = (src != 0) | entering
    target = moves.target(src) | entering.astype(U64)
    captured = target & moves.theirs & ~moves.safe
    to_seats(
        state.track, (moves.mine ^ src) | target, moves.theirs_own & ~rotate(captured, moves.to_them, lay.length), m64
    )

    took = (captured != 0).view(np.int8)
    finishing = ((src & moves.finish) != 0).view(np.int8)
    tokens_me, tokens_them = by_role(state.tokens, m8)
    tokens_them = tokens_them - took
    bad_luck = (((target & moves.bad) != 0) & (tokens_them > 0)).view(np.int8)
    skip = ~moved if params.pay_when_empty else ~moved & (moves.mine != 0)
    if not params.overshoot_pays:
        skip &= moves.overshoot == 0  # a roll too high to finish some button is skipped for free
    skip = skip.view(np.int8)
    pays = bad_luck | skip
    tokens_me = tokens_me - pays
    home_me = moves.home_me + finishing
    to_seats(state.tokens, tokens_me, tokens_them, m8)
    to_seats(state.off, moves.off_me - entering.view(np.int8), moves.off_them + took, m8)
    done = np.flatnonzero(finishing)
    if len(done):
        state.finished_at[state.mover[done], moves.home_me[done], done] = state.turn[done]
    state.home[0] += finishing & ~m8
    state.home[1] += finishing & m8
    state.bank += took + pays
    state.captures[0] += took & ~m8
    state.captures[1] += took & m8
    for cause, amount in ((CAPTURE, took), (BAD_LUCK, bad_luck), (SKIP, skip)):
        victim = m8 if cause != CAPTURE else ~m8  # the opponent pays for a capture, the mover otherwise
        state.paid[cause, 0] += amount & ~victim
        state.paid[cause, 1] += amount & victim

    bankrupt_them, bankrupt_me = tokens_them <= 0, tokens_me <= 0
    won = bankrupt_them | (home_me >= params.buttons)
    ended = won | bankrupt_me
    if ended.any():
        mover = state.mover
        state.winner[ended] = np.where(won, mover, 1 - mover)[ended]
        state.reason[ended] = np.where(bankrupt_them | bankrupt_me, BANKRUPT, ALL_FINISHED)[ended]

    again = ((U64(lay.again_bits) >> moves.die) & ONE) != 0
    if params.grey_bonus:
        grey = (target & moves.grey) != 0
        if params.grey_extra == "optional" and keep is not None:
            offered = np.flatnonzero(grey & ~again & moved & ~ended)  # a roll-again face needs no decision
            if len(offered):
                grey[offered] = keep(offered)
        again |= grey
    turn_over = ~(again & moved & ~ended)
    state.turn += turn_over
    state.mover ^= turn_over.view(np.int8)
    capped = (state.turn >= INFO.turn_cap) & ~ended
    if capped.any():
        state.reason[capped] = CAPPED
    return ended | capped


# --- play -------------------------------------------------------------------------------------------------

BATCH = 8192  # games in play at once: a finished game's column goes to a new game while any are left
REFILL = 1024  # new games are set up (markers, roll-off) this many at a time


def standings(out: State) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each finished game's score (buttons home, ``(B, 2)``), winner ``(B,)`` and winners ``(B, 2)``.

    A game won outright has its winner; a capped game is ranked as it stands (buttons home, then tokens).
    """
    score = out.home.T.astype(np.int32)
    ranked, ranked_all = core.rank_winners(score, out.tokens.T.astype(np.int64))
    decided = out.winner >= 0
    winner = np.where(decided, out.winner, ranked).astype(np.int8)
    winners = ranked_all.copy()
    winners[decided] = np.arange(PLAYERS)[None, :] == out.winner[decided, None]
    return score, winner, winners


def outcome(params: Params, out: State) -> Outcome:
    """Per-game columns from finished states: winners take the bank; capped games are ranked as they stand."""
    n = len(out.game)
    score, winner, winners = standings(out)
    capped = out.reason == CAPPED
    tokens = out.tokens.T.astype(np.int16)
    decided = out.winner >= 0
    tokens[np.flatnonzero(decided), out.winner[decided]] += out.bank[decided]
    reason = np.zeros((n, 3), dtype=np.int32)
    reason[np.arange(n), out.reason] = 1
    return {
        "score": score,
        "winner": winner,
        "winners": winners,
        "turns": out.turn.astype(np.int32),
        "win_reason": reason,
        "capped": capped,
        "first_player": out.first.copy(),
        "first_won": winner == out.first,
        "captures": out.captures.T.astype(np.int16),
        "paid_skip": out.paid[SKIP].T.astype(np.int16),
        "paid_capture": out.paid[CAPTURE].T.astype(np.int16),
        "paid_bad_luck": out.paid[BAD_LUCK].T.astype(np.int16),
        "tokens": tokens,
        "bank": out.bank.astype(np.int16),
        **progress_metrics(out.finished_at, out.turn),
    }


def progress_metrics(finished_at: np.ndarray, turns: np.ndarray) -> Outcome:
    """``mid_score`` and ``lead_changes`` (the game-metrics contract) from each button's finishing turn.

    The score is the one that ranks the seats, buttons finished (a game won by bankruptcy is decided otherwise).
    A round is a turn of each seat: turns ``2r`` and ``2r + 1``, so a game of ``T`` turns lasted
    ``R = ceil(T / 2)`` rounds. ``mid_score``: each seat's buttons finished by the end of round ``R // 2``;
    ``lead_changes``: how often the sole leader (more buttons finished at the end of a round) changed. Scores
    only change when a button finishes, so only the rounds of those events are looked at.
    """
    n = len(turns)
    rounds = (turns.astype(np.int32) + 1) // 2
    done_round = finished_at.astype(np.int32) // 2  # (2, K, B); NEVER stays beyond every game
    mid = (done_round < (rounds // 2)[None, None, :]).sum(axis=1).T.astype(np.int16)
    events = np.sort(done_round.reshape(done_round.shape[0] * done_round.shape[1], n), axis=0)  # (2K, B), in order
    changes = np.zeros(n, dtype=np.int16)
    last = np.full(n, -1, dtype=np.int8)
    for r in events:
        counts = (done_round <= r[None, None, :]).sum(axis=1)  # (2, B) at the end of round r
        leader = np.where(counts[0] > counts[1], 0, np.where(counts[1] > counts[0], 1, -1)).astype(np.int8)
        real = r < NEVER // 2
        changes += real & (leader >= 0) & (last >= 0) & (leader != last)
        last = np.where(real & (leader >= 0), leader, last)
    return {"mid_score": mid, "lead_changes": changes}


def play_on(params: Params, impls: Sequence[object], state: State, source: core.Source) -> State:
    """Play every game of ``state`` from where it stands to its end; returns the final states by row."""
    out = state.keep_rows(np.arange(len(state.game)))  # finished games are written here by row
    state.game = np.arange(len(state.game))
    state = state.keep_rows(np.flatnonzero(state.reason < 0))
    while len(state.game):
        done = step(params, impls, state, source)
        if done.any():
            out.put_rows(state.game[done], state.keep_rows(np.flatnonzero(done)))
            state = state.keep_rows(np.flatnonzero(~done))
    return out


def play_with(params: Params, impls: Sequence[object], n_games: int, rng: np.random.Generator | core.Source) -> Outcome:
    """Play ``n_games`` complete games in lock-step; seat ``i`` follows the policy implementation ``impls[i]``.

    At most :data:`BATCH` games run at once: a finished game's column is handed to a new game (set up ahead in
    groups of :data:`REFILL`) while any are left; after that, finished games are compacted out. Chance events
    per game, in order: the marker squares drawn at random or placed by ``random``, the roll-off, then per roll
    one die face (and one pick for the ``random`` policy when it has two or more legal moves). Returns ``score``
    (buttons finished), ``winner``, ``winners``, ``turns``, the columns in :data:`METRICS`, and ``mid_score`` and
    ``lead_changes`` (see :func:`progress_metrics`).
    """
    source = core.as_source(rng)
    started = min(n_games, BATCH)
    state = start(params, np.arange(started), source, impls)
    out = State.empty(params, np.arange(n_games))
    reserve, taken = state.keep_rows(np.arange(0)), 0  # games started ahead, and how many of them are used
    while len(state.game):
        done = step(params, impls, state, source)
        if not done.any():
            continue
        rows = np.flatnonzero(done)
        games = state.game[rows]
        for name in State.__slots__:
            getattr(out, name)[..., games] = getattr(state, name)[..., rows]
        fresh = 0
        while fresh < len(rows) and (taken < len(reserve.game) or started < n_games):
            if taken == len(reserve.game):
                count = min(REFILL, n_games - started)
                reserve, taken = start(params, np.arange(started, started + count), source, impls), 0
                started += count
            k = min(len(rows) - fresh, len(reserve.game) - taken)
            state.put_rows(rows[fresh : fresh + k], reserve.slice(taken, taken + k))
            fresh, taken = fresh + k, taken + k
        if fresh < len(rows):
            keep = ~done
            keep[rows[:fresh]] = True
            state = state.keep_rows(np.flatnonzero(keep))
    return outcome(params, out)
