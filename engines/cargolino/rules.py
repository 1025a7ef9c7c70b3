"""Cargolino Valentino rules, batched: parameters, tables, state, one lock-step turn for many games, and ``play``.

Encodings. Snails and colours share indices: 0 red, 1 green, 2 yellow, 3 blue, 4 purple, 5 white (snail ``s``
has colour ``s``). A position is 0 on the start stone, ``1..L`` on the track spaces and ``L + 1`` on the finish
stone. The dice still to use in a turn are a *code*: 3 bits per colour holding how many dice show it
(``code = sum(count[c] << 3c)``), so using a die of colour ``c`` is ``code -= 1 << 3c``. Sets of colours or of
snails are 6-bit masks.

Turn flow: roll the dice; then, die by die, the mover's policy picks a (die colour, snail) pair the rules
allow; when no remaining die can move a snail the rest are ignored. A race ends at the end of a turn with a
snail on the finish; owned snails then score the shells of their space.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np

from engines import core
from engines.cargolino import beliefs
from engines.core import GameInfo, Metric, Outcome, knob

INFO = GameInfo(
    id="cargolino",
    name="Cargolino Valentino",
    version=1,
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


@dataclass(frozen=True, slots=True)
class Params(core.Params):
    """Cargolino Valentino knobs; the board layout and shell values are our defaults (see games.md)."""

    track: tuple[str, ...] = knob(
        DEFAULT_TRACK,
        "Colour of each track space from start to finish (the start and finish stones excluded).",
        f"1..{MAX_SPACES} of {', '.join(COLOURS)}",
    )
    shells: tuple[int, ...] = knob(
        (),
        "Shells for a snail on the start stone, on each space and on the finish "
        "(track length + 2 values); empty = 3/2/1 by thirds of the track.",
        "empty, or track length + 2 whole numbers 0..9",
    )
    dice: int = knob(4, "Dice rolled each turn; all must be used when they can.", "1..7")
    faces: tuple[str, ...] = knob(COLOURS, "Colour of each die face.", f"1..12 of {', '.join(COLOURS)}")
    races: int = knob(2, "Races in a game; shells add up over the races.", "1..2")
    next_starter: Literal["last-mover", "next-player"] = knob(
        "last-mover",
        "Who starts the next race: the player who used the last die, or the player after them "
        "(who physically holds the dice).",
        "last-mover | next-player",
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
        core.check_range("races", self.races, 1, 2)
        core.check_choice("next_starter", self.next_starter, ("last-mover", "next-player"))

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
    "holder-starts": {"next_starter": "next-player"},
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
    race_turns: np.ndarray  # (B, 2) int16: turns of each finished race
    banked: np.ndarray  # (B, P) int32: shells from finished races
    race1_shells: np.ndarray  # (B, P) int32: shells of race 1
    belief: np.ndarray  # (B, D, H) float64: each detective seat's belief over the deals it cannot rule out
    accuracy: np.ndarray  # (B, D) float64: sum over finished races of the detective's belief accuracy

    @classmethod
    def initial(cls, players: int, n_games: int, detectives: int, n_hyp: int) -> State:
        """Snails on the start stone, seat 0 to start race 1, ownership still to be dealt."""
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
            banked=np.zeros((n_games, players), dtype=np.int32),
            race1_shells=np.zeros((n_games, players), dtype=np.int32),
            belief=np.zeros((n_games, detectives, n_hyp), dtype=np.float64),
            accuracy=np.zeros((n_games, detectives), dtype=np.float64),
        )

    def keep_rows(self, keep: np.ndarray) -> State:
        """A new state holding only the rows in ``keep`` (a boolean mask)."""
        rows = np.flatnonzero(keep)
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
    """Deal the snail tokens (6 uniforms per game, sorted), reset the snails and the beliefs (in place)."""
    players, each = table.players, beliefs.snails_each(table.players)
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
    state.belief[rows] = 1.0 / table.hyps.size


def hypothesis_index(table: Table, state: State, rows: np.ndarray | slice, seat: int | np.ndarray) -> np.ndarray:
    """``(r, H)`` hypothesis indices of ``seat``'s belief columns (they depend on the seat's own snails)."""
    seat = np.broadcast_to(np.asarray(seat), state.held[rows].shape[:1])
    own = state.held[rows][np.arange(len(seat)), seat]
    return table.hyps.cons[seat, own]


def observe(table: Table, state: State, mover: np.ndarray, snail: np.ndarray, legal: np.ndarray) -> None:
    """Every detective seat other than the mover updates its belief from the move just made (in place)."""
    legal_snails = ((legal != 0) * beliefs.BIT).sum(axis=1)
    for seat in np.flatnonzero(table.detective_index >= 0):
        k = table.detective_index[seat]
        rows = np.flatnonzero((snail >= 0) & (mover != seat))
        if not len(rows):
            continue
        hyp = hypothesis_index(table, state, rows, seat)
        state.belief[rows, k] = beliefs.observe(
            state.belief[rows, k], hyp, table.hyps, mover[rows], snail[rows], legal_snails[rows]
        )


def play_turn(table: Table, impls: Sequence[object], state: State) -> np.ndarray:
    """Roll and use the dice in every game (in place); returns each game's mover."""
    tables, players = table.tables, table.players
    n = len(state.game)
    rows = np.arange(n)
    mover = ((state.starter + state.race_turn) % players).astype(np.int64)
    own = state.held[rows, mover]
    faces = table.source.draw(state.game, len(tables.face_colour), table.params.dice)
    code = tables.face_unit[faces] @ np.ones(faces.shape[1], dtype=np.int64)
    distinct = list(dict.fromkeys(impls))
    groups: list[tuple[object, np.ndarray | slice]] = [(distinct[0], slice(None))]
    if len(distinct) > 1:
        which = np.array([distinct.index(i) for i in impls])[mover]
        groups = [(impl, np.flatnonzero(which == k)) for k, impl in enumerate(distinct)]
    observing = bool((table.detective_index >= 0).any())
    flat_pos = state.pos.reshape(-1)
    for die in range(table.params.dice):
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
    first = rows[state.race[rows] == 0]
    state.race1_shells[first] = shells[state.race[rows] == 0]
    state.race_turns[rows, np.minimum(state.race[rows], 1)] = state.race_turn[rows]
    each = beliefs.snails_each(table.players)
    for seat in np.flatnonzero(table.detective_index >= 0):
        k = table.detective_index[seat]
        hyp = hypothesis_index(table, state, rows, seat)
        prob = beliefs.true_owner_probability(state.belief[rows, k], hyp, table.hyps, state.owner[rows])
        others = state.owner[rows] != seat
        state.accuracy[rows, k] += (prob * others).sum(axis=1) / (N_SNAILS - each)
    state.race[rows] += 1


def _play_batch(
    params: Params,
    impls: Sequence[object],
    players: int,
    games: np.ndarray,
    source: core.Source,
    detective_index: np.ndarray,
    out: dict[str, np.ndarray],
) -> None:
    hyps = beliefs.hypotheses(players)
    n_det = int((detective_index >= 0).sum())
    table = Table(params, params.tables, players, source, hyps, detective_index)
    state = State.initial(players, len(games), n_det, hyps.size if n_det else 1)
    state.game = games.copy()
    fresh = np.arange(len(games))
    while len(state.game):
        if len(fresh):
            start_races(table, state, fresh)
        mover = play_turn(table, impls, state)
        state.turn += 1
        state.race_turn += 1
        capped = state.turn >= INFO.turn_cap
        ended = (row_max(state.pos) == table.tables.finish) | capped
        ended_rows = np.flatnonzero(ended)
        if not len(ended_rows):
            fresh = ended_rows
            continue
        end_races(table, state, ended_rows)
        done = ended & ((state.race >= params.races) | capped)
        fresh_mask = ended & ~done
        shift = 0 if params.next_starter == "last-mover" else 1
        state.starter[fresh_mask] = (mover[fresh_mask] + shift) % players
        if done.any():
            _write(table, state, done, out)
            keep = ~done
            state = state.keep_rows(keep)
            fresh_mask = fresh_mask[keep]
        fresh = np.flatnonzero(fresh_mask)


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
    seats = np.flatnonzero(table.detective_index >= 0)
    acc[:, seats] = state.accuracy[done][:, table.detective_index[seats]] / races
    out["belief_accuracy"][g] = acc


def play_with(params: Params, impls: Sequence[object], n_games: int, rng: np.random.Generator | core.Source) -> Outcome:
    """Play ``n_games`` complete games in lock-step; seat ``i`` follows the policy implementation ``impls[i]``.

    Games are played in consecutive batches of at most :data:`MAX_BATCH` (fewer when detectives keep beliefs,
    to bound memory); every draw is tied to its game index, so on a scripted source the batching changes nothing.
    Returns per-game columns: ``score`` (shells per seat over all races), ``winner`` (-1 shared), ``winners``,
    ``turns``, and the metrics in :data:`METRICS`.
    """
    players = len(impls)
    core.check_players(INFO, players)
    source = core.as_source(rng)
    believes = np.array([getattr(i, "believes", False) for i in impls])
    detective_index = np.where(believes, np.cumsum(believes) - 1, -1).astype(np.int64)

    out: dict[str, np.ndarray] = {
        "score": np.zeros((n_games, players), dtype=np.int32),
        "turns": np.zeros(n_games, dtype=np.int32),
        "race1_turns": np.zeros(n_games, dtype=np.int16),
        "race2_turns": np.zeros(n_games, dtype=np.int16),
        **{f"final_{c}": np.zeros(n_games, dtype=np.int8) for c in COLOURS},
        "race1_shells": np.zeros((n_games, players), dtype=np.int32),
        "delayed": np.zeros((n_games, players), dtype=np.int8),
        "belief_accuracy": np.full((n_games, players), np.nan),
        "capped": np.zeros(n_games, dtype=bool),
    }
    per_game = int(believes.sum()) * beliefs.hypotheses(players).size * 8 * 8
    batch = max(1, min(MAX_BATCH, BELIEF_BYTES // per_game if per_game else MAX_BATCH))
    for start in range(0, n_games, batch):
        games = np.arange(start, min(n_games, start + batch), dtype=np.int64)
        _play_batch(params, impls, players, games, source, detective_index, out)

    delayed = out["delayed"].astype(np.int64)
    winner, winners = core.rank_winners(out["score"], -delayed)
    return {"score": out.pop("score"), "winner": winner, "winners": winners, "turns": out.pop("turns"), **out}
