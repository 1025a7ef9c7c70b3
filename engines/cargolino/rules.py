"""Cargolino Valentino rules, batched: parameters, tables, state, one lock-step turn for many games, and ``play``.

Encodings. Snails and colours share indices: 0 red, 1 green, 2 yellow, 3 blue, 4 purple, 5 white (snail ``s``
has colour ``s``). A position is 0 on the start stone, ``1..L`` on the track spaces and ``L + 1`` on the finish
stone. The dice still to use in a turn are a *code*: 3 bits per colour holding how many dice show it
(``code = sum(count[c] << 3c)``), so using a die of colour ``c`` is ``code -= 1 << 3c``. Sets of colours or of
snails are 6-bit masks.

Turn flow: roll the dice; then, die by die, the mover's policy picks a (die colour, snail) pair the rules
allow; when no remaining die can move a snail the rest are ignored. A race ends at the end of a turn with a
snail on the finish; owned snails then score the shells of their space.

Progress measures (``mid_score``, ``lead_changes``) use the *live score*: shells banked in finished races plus
what each seat's snails would score if the race ended now. At the end of the game it is the final score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np

from boardlab.engines import core
from boardlab.engines.cargolino import beliefs
from boardlab.engines.core import GameInfo, Metric, Outcome, knob

INFO = GameInfo(
    id="cargolino",
    name="Cargolino Valentino",
    version=2,
    min_players=2,
    max_players=6,
    chance=True,
    turn_cap=2000,
    score_label="shells",
    chunk_games=10_000,
)

COLOURS = ("red", "green", "yellow", "blue", "purple", "white")
N_SNAILS = len(COLOURS)
TRACK_CYCLE = ("purple", "blue", "red", "green", "yellow", "white")  # consecutive spaces (rulebook examples)
DEFAULT_TRACK = TRACK_CYCLE * 4
CODE_BITS = 3  # bits per colour in a dice code; at most 7 dice
MAX_SPACES = 60
MAX_RACES = 5
MAX_BATCH = 32_768  # games played at once (cache-friendly); more are played in consecutive batches
BELIEF_BYTES = 100_000_000  # budget for belief arrays and their temporaries

METRICS: dict[str, Metric] = {
    "race1_turns": Metric("game", "turns in race 1"),
    "race2_turns": Metric("game", "turns in race 2 (0 with one race)"),
    **{f"final_{c}": Metric("game", f"final space of the {c} snail (0 start, track + 1 finish)") for c in COLOURS},
    "race1_shells": Metric("seat", "shells won in race 1"),
    "delayed": Metric("seat", "space of the seat's most-delayed snail at the end of the last race"),
    "belief_accuracy": Metric(
        "seat", "detective: mean belief in the true owner of the other snails at race end (NaN for other policies)"
    ),
    "capped": Metric("game", "games stopped at the turn cap"),
}
PROGRESS = ("mid_score", "lead_changes")  # the game-metrics contract's columns (not in METRICS)
DEFAULT_TOKENS = (2, 2, 1, 1, 1)


@dataclass(frozen=True, slots=True)
class Params(core.Params):
    """Cargolino Valentino knobs; the board layout and shell values are our defaults (see the package README)."""

    track: tuple[str, ...] = knob(
        DEFAULT_TRACK,
        "Colour of each track space from start to finish (the start and finish stones excluded).",
        f"1..{MAX_SPACES} of {', '.join(COLOURS)}",
        source="ours: the rulebook's examples give only the colour order of consecutive spaces, not the board; "
        "we repeat that cycle 4 times",
    )
    shells: tuple[int, ...] = knob(
        (),
        "Shells for a snail on the start stone, on each space and on the finish "
        "(track length + 2 values); empty = 3/2/1 by thirds of the track.",
        "empty, or track length + 2 whole numbers 0..9",
        source="ours: the rulebook says only that the finish is worth 1 and further back is worth more",
    )
    dice: int = knob(4, "Dice rolled each turn; all must be used when they can.", "1..7", source="rulebook")
    faces: tuple[str, ...] = knob(
        COLOURS, "Colour of each die face.", f"1..12 of {', '.join(COLOURS)}", source="rulebook"
    )
    races: int = knob(2, "Races in a game; shells add up over the races.", f"1..{MAX_RACES}", source="rulebook")
    next_starter: Literal["last-mover", "next-player"] = knob(
        "next-player",
        "Who starts the next race: the player after the one who used the last die (each die is handed to the "
        "left after use, so that player holds the dice), or the player who used the last die.",
        "next-player | last-mover",
        source="rulebook",
    )
    tokens: tuple[int, ...] = knob(
        DEFAULT_TOKENS,
        "Snail tokens dealt to each player with 2, 3, 4, 5 and 6 players (the rest stay unowned).",
        "5 whole numbers >= 1, players × tokens <= 6",
        source="rulebook",
    )
    open_ownership: bool = knob(
        False,
        "Tokens are dealt face up: everyone knows who holds which snail (a variant without hidden information).",
        "true | false",
        source="rulebook",
    )
    head_start: int = knob(
        0,
        "Shells credited at the start to every seat before the last: seat i of P starts with (P - 1 - i) x "
        "head_start shells, counted in the score (0 = the rulebook). The shells are public and tied to no snail.",
        "0..20",
        source="ours: a handicap in the game's own currency for the earlier seats (the first seat is behind under "
        "strong play), to ask what compensation makes the seats fair",
        added=True,
    )

    def __post_init__(self) -> None:
        """Reject out-of-range knobs with a message naming the knob, the value and the allowed range."""
        for name, value, hi in (("track", self.track, MAX_SPACES), ("faces", self.faces, 12)):
            if not isinstance(value, tuple) or not 1 <= len(value) <= hi or any(v not in COLOURS for v in value):
                raise ValueError(
                    f"{name}={value!r} is not allowed; give 1..{hi} colour names from {', '.join(COLOURS)}"
                )
        shells = self.shells
        if (
            not isinstance(shells, tuple)
            or len(shells) not in (0, len(self.track) + 2)
            or any(isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 9 for v in shells)
        ):
            raise ValueError(
                f"shells={shells!r} is not allowed; give nothing (3/2/1 by thirds) or "
                f"{len(self.track) + 2} whole numbers 0..9 (start, each space, finish)"
            )
        core.check_range("dice", self.dice, 1, 7)
        core.check_range("races", self.races, 1, MAX_RACES)
        core.check_choice("next_starter", self.next_starter, ("next-player", "last-mover"))
        tokens = self.tokens
        if (
            not isinstance(tokens, tuple)
            or len(tokens) != INFO.max_players - INFO.min_players + 1
            or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in tokens)
            or any((k + INFO.min_players) * v > N_SNAILS for k, v in enumerate(tokens))
        ):
            raise ValueError(
                f"tokens={tokens!r} is not allowed; give 5 whole numbers >= 1 (for 2..6 players) with "
                f"players × tokens <= {N_SNAILS}"
            )
        core.check_choice("open_ownership", self.open_ownership, (False, True))
        core.check_range("head_start", self.head_start, 0, 20)

    def each(self, players: int) -> int:
        """Snail tokens each of ``players`` players holds."""
        return self.tokens[players - INFO.min_players]

    def start_shells(self, players: int) -> np.ndarray:
        """Shells each seat has before the first race, the head start: seat ``i`` has ``(P - 1 - i) * head_start``."""
        return self.head_start * np.arange(players - 1, -1, -1, dtype=np.int64)

    @property
    def shell_values(self) -> tuple[int, ...]:
        """Shells per position 0..L+1: the knob, or 3 on the start and the first third, 2, then 1 (finish too)."""
        if self.shells:
            return self.shells
        n = len(self.track)
        return (3, *(3 - min(2, (i - 1) * 3 // n) for i in range(1, n + 1)), 1)

    @property
    def tables(self) -> Tables:
        """Lookup tables for these knobs (built once per distinct set)."""
        return _tables(self.track, self.shell_values, self.faces)


VARIANTS: dict[str, dict[str, str]] = {
    "one-race": {"races": "1"},
    "last-mover-starts": {"next_starter": "last-mover"},
    "open-ownership": {"open_ownership": "true"},
    "one-token": {"tokens": "1,1,1,1,1"},
    "short-track": {"track": ",".join(TRACK_CYCLE * 2), "shells": "3,3,3,3,3,2,2,2,2,1,1,1,1,1"},
    "three-dice": {"dice": "3"},
}
"""Named variants: knob overrides a designer can ask for by name."""


class Tables:
    """Per-knob lookup tables shared by the engine and the policies."""

    def __init__(self, track: tuple[str, ...], values: tuple[int, ...], faces: tuple[str, ...]) -> None:
        """Build the movement, dice-code and shell tables."""
        self.length = len(track)
        self.finish = self.length + 1
        self.n_pos = self.length + 2
        self.space_colour = np.array([-1, *(COLOURS.index(c) for c in track), -1], dtype=np.int64)
        move = np.zeros((N_SNAILS, self.n_pos), dtype=np.uint8)  # colours that can move snail s from a position
        move[:, 0] = 63
        for s in range(N_SNAILS):
            move[s, 1 : self.finish] = (1 << s) | (1 << self.space_colour[1 : self.finish])
        self.move = move
        self.move_flat = move.ravel()
        self.snail_offset = np.arange(N_SNAILS, dtype=np.intp) * self.n_pos
        self.value = np.array(values, dtype=np.int64)  # shells per position
        self.face_colour = np.array([COLOURS.index(c) for c in faces], dtype=np.int64)
        self.unit = np.int64(1) << (CODE_BITS * np.arange(N_SNAILS, dtype=np.int64))  # one die of colour c
        self.face_unit = self.unit[self.face_colour]
        codes = np.arange(1 << (CODE_BITS * N_SNAILS), dtype=np.int64)
        counts = (codes[:, None] >> (CODE_BITS * np.arange(N_SNAILS))) & 7
        self.present = ((counts > 0) * beliefs.BIT).sum(axis=1).astype(np.uint8)  # colours among the dice
        self.lowbit = np.array([(m & -m).bit_length() - 1 for m in range(256)], dtype=np.int64)
        self.popcount = np.array([bin(m).count("1") for m in range(256)], dtype=np.int64)
        loss = np.zeros(self.n_pos, dtype=np.int64)
        loss[: self.finish] = self.value[: self.finish] - self.value[1:]
        # preference among one's own snails when forced: least shells lost, then the one farthest ahead
        self.own_key = (15 - np.clip(loss, 0, 15)) * 128 + np.arange(self.n_pos)
        nxt = np.minimum(np.arange(self.n_pos) + 1, self.finish)
        self.cheap = (np.arange(self.n_pos) + 1 < self.finish) & (self.value[nxt] >= self.value)

    def legal(self, pos: np.ndarray, code: np.ndarray) -> np.ndarray:
        """``(B, 6)`` masks of the die colours that may move each snail now (0 = the snail cannot move)."""
        return self.move_flat[pos + self.snail_offset] & self.present[code][:, None]


@lru_cache(maxsize=16)
def _tables(track: tuple[str, ...], values: tuple[int, ...], faces: tuple[str, ...]) -> Tables:
    return Tables(track, values, faces)


def row_max(a: np.ndarray) -> np.ndarray:
    """Maximum of each row of a narrow ``(B, k)`` array (column by column: much faster than ``max(axis=1)``)."""
    out = a[:, 0].copy()
    for j in range(1, a.shape[1]):
        np.maximum(out, a[:, j], out=out)
    return out


def dice_code(colours: Sequence[int]) -> int:
    """The code of a list of die colours (for tests and hand-set positions)."""
    return sum(1 << (CODE_BITS * c) for c in colours)


@dataclass(slots=True)
class State:
    """The games still running, one row each; arrays are updated in place by the turn functions."""

    game: np.ndarray  # (B,) int64: index of the game in the output
    pos: np.ndarray  # (B, 6) int8: position of each snail, 0 start .. L + 1 finish
    owner: np.ndarray  # (B, 6) int8: seat holding each snail's token this race, -1 unowned
    held: np.ndarray  # (B, P) int64: 6-bit set of the snails each seat holds this race
    race: np.ndarray  # (B,) int8: races finished, 0..races
    starter: np.ndarray  # (B,) int8: seat that began the current race
    race_turn: np.ndarray  # (B,) int16: turns played in the current race
    turn: np.ndarray  # (B,) int16: turns played in the game, 0..turn_cap
    race_turns: np.ndarray  # (B, 2) int16: turns of races 1 and 2
    banked: np.ndarray  # (B, P) int32: the head start plus the shells from finished races
    race1_shells: np.ndarray  # (B, P) int32: shells of race 1
    belief: np.ndarray  # (B, D, H) float64: each detective seat's belief over the deals it cannot rule out
    accuracy: np.ndarray  # (B, D) float64: sum over finished races of the detective's belief accuracy
    history: np.ndarray  # (B, P, C) int16: live score at the end of each round (column 0: the start)
    leader: np.ndarray  # (B,) int8: the last sole leader at a round's end, -1 before there is one
    lead_changes: np.ndarray  # (B,) int16: changes of the sole leader so far

    @classmethod
    def initial(cls, players: int, n_games: int, detectives: int, n_hyp: int, start: np.ndarray | None = None) -> State:
        """Snails on the start stone, seat 0 to start race 1, ownership to be dealt, ``start`` shells (none) banked."""
        start = np.zeros(players, dtype=np.int64) if start is None else start
        history = np.zeros((n_games, players, 32), dtype=np.int16)
        history[:, :, 0] = start
        return cls(
            game=np.arange(n_games, dtype=np.int64),
            pos=np.zeros((n_games, N_SNAILS), dtype=np.int8),
            owner=np.full((n_games, N_SNAILS), -1, dtype=np.int8),
            held=np.zeros((n_games, players), dtype=np.int64),
            race=np.zeros(n_games, dtype=np.int8),
            starter=np.zeros(n_games, dtype=np.int8),
            race_turn=np.zeros(n_games, dtype=np.int16),
            turn=np.zeros(n_games, dtype=np.int16),
            race_turns=np.zeros((n_games, 2), dtype=np.int16),
            banked=np.tile(start.astype(np.int32), (n_games, 1)),
            race1_shells=np.zeros((n_games, players), dtype=np.int32),
            belief=np.zeros((n_games, detectives, n_hyp), dtype=np.float64),
            accuracy=np.zeros((n_games, detectives), dtype=np.float64),
            history=history,
            leader=np.full(n_games, -1, dtype=np.int8),
            lead_changes=np.zeros(n_games, dtype=np.int16),
        )

    def keep_rows(self, keep: np.ndarray) -> State:
        """A new state holding only the rows in ``keep`` (a boolean mask, or row indices that may repeat)."""
        rows = core.rows_of(keep)
        return State(*(np.take(getattr(self, name), rows, axis=0) for name in self.__slots__))


@dataclass(slots=True)
class Table:
    """Game-wide facts for one batch: knobs, tables, seats, the random source, and who keeps beliefs."""

    params: Params
    tables: Tables
    players: int
    source: core.Source
    hyps: beliefs.Hypotheses
    detective_index: np.ndarray  # (P,) int64: index into State.belief of each detective seat, -1 otherwise
    weights: tuple[tuple[float, float], ...] = ()  # (P,) each detective seat's belief model (own, other)
    #: a search's playout: every seat knows the (drawn) deal, so no beliefs are kept, and no progress is recorded
    playout: bool = False

    @classmethod
    def of(cls, params: Params, impls: Sequence[object], source: core.Source) -> Table:
        """The table for seats following ``impls`` (a seat keeps beliefs when its policy ``believes``)."""
        players = len(impls)
        believes = np.array([getattr(i, "believes", False) for i in impls])
        detective_index = np.where(believes, np.cumsum(believes) - 1, -1).astype(np.int64)
        weights = tuple(getattr(i, "weights", (beliefs.OWN_WEIGHT, beliefs.OTHER_WEIGHT)) for i in impls)
        hyps = beliefs.hypotheses(players, params.each(players))
        return cls(params, params.tables, players, source, hyps, detective_index, weights)

    @property
    def n_beliefs(self) -> int:
        """Seats keeping beliefs."""
        return int((self.detective_index >= 0).sum())


class Step:
    """What the mover's policy may look at for one die decision, for a batch of games (read-only).

    ``rows`` selects this policy's games in ``state``; ``own`` is the mover's own snail set; ``code`` the dice
    still to use; ``legal`` (computed on first use) the usable die colours per snail. ``die`` counts the dice
    already decided this turn (0 = first); the rows of a policy stay the same for all the dice of a turn.
    """

    def __init__(
        self,
        table: Table,
        state: State,
        rows: np.ndarray | slice,
        mover: np.ndarray,
        own: np.ndarray,
        code: np.ndarray,
        die: int,
        legal: np.ndarray | None = None,
    ) -> None:
        """Select ``rows`` of the turn's arrays."""
        self.table, self.state, self.rows, self.die = table, state, rows, die
        self.tables = table.tables
        self.games = state.game[rows]
        self.pos = state.pos[rows]
        self.mover = mover[rows]
        self.own = own[rows]
        self.code = code[rows]
        self._legal = None if legal is None else legal[rows]

    @property
    def legal(self) -> np.ndarray:
        """``(r, 6)`` masks of the die colours that may move each snail (0 = it cannot move)."""
        if self._legal is None:
            self._legal = self.tables.legal(self.pos, self.code)
        return self._legal

    @property
    def own_snails(self) -> np.ndarray:
        """``(r, 6)`` bool: snails the mover holds."""
        return ((self.own[:, None] >> np.arange(N_SNAILS)) & 1).astype(bool)


def pick_colour(tables: Tables, colours: np.ndarray) -> np.ndarray:
    """The lowest colour of each mask (the die used when several fit); -1 for an empty mask."""
    return tables.lowbit[colours]


def start_races(table: Table, state: State, rows: np.ndarray) -> None:
    """Deal the snail tokens (6 uniforms per game, sorted), reset the snails and the beliefs (in place).

    With open ownership every belief is certain of the true deal from the start.
    """
    players, each = table.players, table.hyps.each
    u = table.source.uniform(state.game[rows], N_SNAILS)
    order = np.argsort(u, axis=1, kind="stable")
    seat_of_rank = np.full(N_SNAILS, -1, dtype=np.int8)
    seat_of_rank[: players * each] = np.arange(players * each) // each
    owner = np.empty((len(rows), N_SNAILS), dtype=np.int8)
    np.put_along_axis(owner, order, seat_of_rank[None, :], axis=1)
    state.owner[rows] = owner
    snail_bit = beliefs.BIT[order]
    held = snail_bit[:, 0 : players * each : each].copy()
    for extra in range(1, each):
        held |= snail_bit[:, extra : players * each : each]
    state.held[rows] = held
    state.pos[rows] = 0
    state.race_turn[rows] = 0
    if table.playout:
        return
    if not table.params.open_ownership:
        state.belief[rows] = 1.0 / table.hyps.size
        return
    state.belief[rows] = 0.0
    for seat in np.flatnonzero(table.detective_index >= 0):
        column = beliefs.true_column(table.hyps, hypothesis_index(table, state, rows, seat), owner)
        state.belief[rows, table.detective_index[seat], column] = 1.0


def hypothesis_index(table: Table, state: State, rows: np.ndarray | slice, seat: int | np.ndarray) -> np.ndarray:
    """``(r, H)`` hypothesis indices of ``seat``'s belief columns (they depend on the seat's own snails)."""
    seat = np.broadcast_to(np.asarray(seat), state.held[rows].shape[:1])
    own = state.held[rows][np.arange(len(seat)), seat]
    return table.hyps.cons[seat, own]


def observe(table: Table, state: State, mover: np.ndarray, snail: np.ndarray, legal: np.ndarray) -> None:
    """Every detective seat other than the mover updates its belief from the move just made (in place)."""
    if table.params.open_ownership or table.playout:
        return
    legal_snails = ((legal != 0) * beliefs.BIT).sum(axis=1)
    for seat in np.flatnonzero(table.detective_index >= 0):
        k = table.detective_index[seat]
        rows = np.flatnonzero((snail >= 0) & (mover != seat))
        if not len(rows):
            continue
        hyp = hypothesis_index(table, state, rows, seat)
        state.belief[rows, k] = beliefs.observe(
            state.belief[rows, k], hyp, table.hyps, mover[rows], snail[rows], legal_snails[rows], table.weights[seat]
        )


def roll(table: Table, state: State) -> tuple[np.ndarray, np.ndarray]:
    """Each game's mover and the code of the dice it rolls."""
    mover = ((state.starter + state.race_turn) % table.players).astype(np.int64)
    faces = table.source.draw(state.game, len(table.tables.face_colour), table.params.dice)
    code = table.tables.face_unit[faces] @ np.ones(faces.shape[1], dtype=np.int64)
    return mover, code


def use_dice(
    table: Table, impls: Sequence[object], state: State, mover: np.ndarray, code: np.ndarray, first: int = 0
) -> None:
    """Use the dice of ``code`` (in place), the ``first``-th die of the turn onwards, each by the mover's policy."""
    tables = table.tables
    n = len(state.game)
    rows = np.arange(n)
    own = state.held[rows, mover]
    distinct = list(dict.fromkeys(impls))
    groups: list[tuple[object, np.ndarray | slice]] = [(distinct[0], slice(None))]
    if len(distinct) > 1:
        which = np.array([distinct.index(i) for i in impls])[mover]
        groups = [(impl, np.flatnonzero(which == k)) for k, impl in enumerate(distinct)]
    observing = table.n_beliefs > 0
    flat_pos = state.pos.reshape(-1)
    for die in range(first, table.params.dice):
        legal = tables.legal(state.pos, code) if observing else None
        if len(groups) == 1:
            snail, colour = groups[0][0].choose(Step(table, state, slice(None), mover, own, code, die, legal))
        else:
            snail = np.full(n, -1, dtype=np.int64)
            colour = np.zeros(n, dtype=np.int64)
            for impl, sub in groups:
                if len(sub):
                    snail[sub], colour[sub] = impl.choose(Step(table, state, sub, mover, own, code, die, legal))
        moved = snail >= 0
        if not moved.any():
            break
        flat_pos[rows * N_SNAILS + np.maximum(snail, 0)] += moved
        code -= tables.unit[colour] * moved
        if observing:
            observe(table, state, mover, snail, legal)


def play_turn(table: Table, impls: Sequence[object], state: State) -> np.ndarray:
    """Roll and use the dice in every game (in place); returns each game's mover."""
    mover, code = roll(table, state)
    use_dice(table, impls, state, mover, code)
    return mover


def race_shells(table: Table, pos: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """Shells per seat for snails at ``pos`` held as ``owner``: ``(B, P)``."""
    values = table.tables.value[pos]
    return np.stack([((owner == p) * values).sum(axis=1) for p in range(table.players)], axis=1).astype(np.int32)


def most_delayed(table: Table, pos: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """Position of each seat's most-delayed snail: ``(B, P)``."""
    big = table.tables.finish + 1
    return np.stack([np.where(owner == p, pos, big).min(axis=1) for p in range(table.players)], axis=1)


def end_races(table: Table, state: State, rows: np.ndarray) -> None:
    """Score the race just finished in ``rows``: shells, race turns, detective accuracy (in place)."""
    shells = race_shells(table, state.pos[rows], state.owner[rows])
    state.banked[rows] += shells
    race = state.race[rows]
    state.race1_shells[rows[race == 0]] = shells[race == 0]
    early = race < 2
    state.race_turns[rows[early], race[early]] = state.race_turn[rows[early]]
    each = table.hyps.each
    for seat in np.flatnonzero(table.detective_index >= 0) if not table.playout else ():
        k = table.detective_index[seat]
        hyp = hypothesis_index(table, state, rows, seat)
        prob = beliefs.true_owner_probability(state.belief[rows, k], hyp, table.hyps, state.owner[rows])
        others = state.owner[rows] != seat
        state.accuracy[rows, k] += (prob * others).sum(axis=1) / (N_SNAILS - each)
    state.race[rows] += 1


def end_rounds(table: Table, state: State) -> None:
    """Where a round just ended: record the live score and count a change of the sole leader (in place)."""
    rows = np.flatnonzero(state.turn % table.players == 0)
    if not len(rows):
        return
    live = state.banked[rows] + race_shells(table, state.pos[rows], state.owner[rows])
    column = state.turn[rows].astype(np.int64) // table.players
    if column.max() >= state.history.shape[2]:
        grown = np.zeros((*state.history.shape[:2], 2 * state.history.shape[2]), dtype=np.int16)
        grown[:, :, : state.history.shape[2]] = state.history
        state.history = grown
    state.history[rows, :, column] = live
    best = live.max(axis=1, keepdims=True)
    sole = (live == best).sum(axis=1) == 1
    leader = np.where(sole, live.argmax(axis=1), -1)
    changed = sole & (state.leader[rows] >= 0) & (leader != state.leader[rows])
    state.lead_changes[rows] += changed
    state.leader[rows] = np.where(sole, leader, state.leader[rows])


def after_turn(table: Table, state: State, mover: np.ndarray, out: dict[str, np.ndarray]) -> tuple[State, np.ndarray]:
    """Count the turn, end the races and games it finished (writing those games to ``out``).

    Returns the games still running and which of their rows start a race.
    """
    params, players = table.params, table.players
    state.turn += 1
    state.race_turn += 1
    if not table.playout:
        end_rounds(table, state)
    capped = state.turn >= INFO.turn_cap
    ended = (row_max(state.pos) == table.tables.finish) | capped
    ended_rows = np.flatnonzero(ended)
    if not len(ended_rows):
        return state, ended_rows
    end_races(table, state, ended_rows)
    done = ended & ((state.race >= params.races) | capped)
    fresh_mask = ended & ~done
    shift = 1 if params.next_starter == "next-player" else 0
    state.starter[fresh_mask] = (mover[fresh_mask] + shift) % players
    if table.playout and isinstance(table.source, core.StreamSource):
        # every copy of a position starts each later race at the same point of its stream: the copies of a
        # search see the same deals and dice there, whenever the race before ended (common random numbers)
        table.source.cursor[state.game[fresh_mask]] = state.race[fresh_mask].astype(np.uint64) << np.uint64(40)
    if done.any():
        _write(table, state, done, out)
        keep = ~done
        state = state.keep_rows(keep)
        fresh_mask = fresh_mask[keep]
    return state, np.flatnonzero(fresh_mask)


def play_on(table: Table, impls: Sequence[object], state: State, fresh: np.ndarray, out: dict[str, np.ndarray]) -> None:
    """Play every game of ``state`` to its end (``fresh`` rows deal a race first), writing results to ``out``."""
    while len(state.game):
        if len(fresh):
            start_races(table, state, fresh)
        mover = play_turn(table, impls, state)
        state, fresh = after_turn(table, state, mover, out)


def _write(table: Table, state: State, done: np.ndarray, out: dict[str, np.ndarray]) -> None:
    g = state.game[done]
    out["score"][g] = state.banked[done]
    out["turns"][g] = state.turn[done]
    out["race1_turns"][g] = state.race_turns[done, 0]
    out["race2_turns"][g] = state.race_turns[done, 1]
    pos = state.pos[done]
    for s, c in enumerate(COLOURS):
        out[f"final_{c}"][g] = pos[:, s]
    out["race1_shells"][g] = state.race1_shells[done]
    out["delayed"][g] = most_delayed(table, pos, state.owner[done])
    out["capped"][g] = state.turn[done] >= INFO.turn_cap
    races = state.race[done].astype(np.float64)[:, None]
    acc = np.full((len(g), table.players), np.nan)
    seats = np.flatnonzero(table.detective_index >= 0) if not table.playout else np.zeros(0, dtype=np.int64)
    acc[:, seats] = state.accuracy[done][:, table.detective_index[seats]] / races
    out["belief_accuracy"][g] = acc
    mid = state.turn[done].astype(np.int64) // table.players // 2
    out["mid_score"][g] = state.history[np.flatnonzero(done), :, mid]
    out["lead_changes"][g] = state.lead_changes[done]


def new_outcome(n_games: int, players: int) -> dict[str, np.ndarray]:
    """Empty result columns for ``n_games`` games of ``players`` seats."""
    return {
        "score": np.zeros((n_games, players), dtype=np.int32),
        "turns": np.zeros(n_games, dtype=np.int32),
        "race1_turns": np.zeros(n_games, dtype=np.int16),
        "race2_turns": np.zeros(n_games, dtype=np.int16),
        **{f"final_{c}": np.zeros(n_games, dtype=np.int8) for c in COLOURS},
        "race1_shells": np.zeros((n_games, players), dtype=np.int32),
        "delayed": np.zeros((n_games, players), dtype=np.int8),
        "belief_accuracy": np.full((n_games, players), np.nan),
        "capped": np.zeros(n_games, dtype=bool),
        "mid_score": np.zeros((n_games, players), dtype=np.int16),
        "lead_changes": np.zeros(n_games, dtype=np.int16),
    }


def outcome(out: dict[str, np.ndarray]) -> Outcome:
    """Winners by shells, then by the most-delayed snail; the columns in the order ``play`` returns them."""
    delayed = out["delayed"].astype(np.int64)
    winner, winners = core.rank_winners(out["score"], -delayed)
    rest = {k: v for k, v in out.items() if k not in ("score", "turns")}
    return {"score": out["score"], "winner": winner, "winners": winners, "turns": out["turns"], **rest}


def play_with(params: Params, impls: Sequence[object], n_games: int, rng: np.random.Generator | core.Source) -> Outcome:
    """Play ``n_games`` complete games in lock-step; seat ``i`` follows the policy implementation ``impls[i]``.

    Games are played in consecutive batches of at most :data:`MAX_BATCH` (fewer when detectives keep beliefs,
    to bound memory); every draw is tied to its game index, so on a scripted source the batching changes nothing.
    Returns per-game columns: ``score`` (shells per seat over all races), ``winner`` (-1 shared), ``winners``,
    ``turns``, the metrics in :data:`METRICS`, ``mid_score`` (each seat's live score at the end of round
    ``⌊R/2⌋`` of a game of ``R`` complete rounds; see the module docstring) and ``lead_changes`` (changes of the
    sole leader of the live score between round ends).
    """
    players = len(impls)
    core.check_players(INFO, players)
    source = core.as_source(rng)
    table = Table.of(params, impls, source)
    out = new_outcome(n_games, players)
    per_game = table.n_beliefs * table.hyps.size * 8 * 8
    batch = max(1, min(MAX_BATCH, BELIEF_BYTES // per_game if per_game else MAX_BATCH))
    for start in range(0, n_games, batch):
        games = np.arange(start, min(n_games, start + batch), dtype=np.int64)
        hyps = table.hyps.size if table.n_beliefs else 1
        state = State.initial(players, len(games), table.n_beliefs, hyps, params.start_shells(players))
        state.game = games.copy()
        play_on(table, impls, state, np.arange(len(games)), out)
    return outcome(out)
