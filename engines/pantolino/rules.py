"""Pantolino rules, batched: parameters, state, one lock-step turn for many games, and ``play``.

Order of this module: constants, params, tables, state, the turn context policies read, the turn, play.
Tokens are numbered by preference (see :attr:`DiceTables.token_bit`): token ``t`` has the ``t // C``-th value of
``token_values`` and colour ``C - 1 - t % C``, so a set of tokens is a bit set whose highest bit is its best
token (highest value, then lowest colour) and whose lowest bit is a smallest token.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Generic, Literal, TypeVar

import numpy as np

from boardlab.engines import core
from boardlab.engines.core import GameInfo, Metric, Outcome, knob
from boardlab.engines.pantolino.dice import DiceTables

INFO = GameInfo(
    id="pantolino",
    name="Pantolino",
    version=2,
    min_players=2,
    max_players=8,
    chance=True,
    turn_cap=2000,
    score_label="boots",
    chunk_games=50_000,
)

SUPPLY, REMOVED = -1, -2  # owner codes of tokens not on a centipede
MAX_CODE_SPACE = 1 << 22  # (dice + 1) ** (colours + 1) must fit the lookup tables
MAX_TURN_WEIGHT = 1 << 52  # faces ** (dice * rolls): exact integer turn weights must fit int64 with room

METRICS: dict[str, Metric] = {
    "taken": Metric("seat", "tokens taken from the supply"),
    "steals_made": Metric("seat", "tokens stolen from opponents"),
    "steals_suffered": Metric("seat", "tokens lost to opponents"),
    "removed": Metric("game", "tokens removed from play (no-token rule)"),
    "capped": Metric("game", "games stopped at the turn cap"),
    "turn_best_count": Metric(
        "counts", "turns by best same-colour count (jokers included)", tuple(f"{k} of a colour" for k in range(7))
    ),
    "comeback": Metric("game", "games won by a player trailing when half the supply is gone"),
}
"""Summarised outcome columns. Besides these, ``play`` returns the game-metrics contract's ``mid_score`` and
``lead_changes`` (see :func:`round_columns`), from which :mod:`analysis.game_metrics` derives drama."""


@dataclass(frozen=True, slots=True)
class Params(core.Params):
    """Pantolino knobs; defaults are the published rules (token values 2/3/4 from the physical game)."""

    dice: int = knob(4, "Dice rolled each turn.", "1..6", source="rulebook")
    colours: int = knob(
        5, "Boot colours: faces per die other than jokers, and token colours.", "2..8", source="rulebook"
    )
    joker_faces: int = knob(
        1,
        "Joker faces per die, wild for any colour.",
        "0..3",
        source="published: the game's dice (five boot faces and one joker face); the rulebook names the joker only",
    )
    rolls: int = knob(3, "Rolls allowed per turn; keeps between rolls are not binding.", "1..5", source="rulebook")
    token_values: tuple[int, ...] = knob(
        (2, 3, 4),
        "Boots on the tokens of each colour (one token per value).",
        "1 to 6 strictly increasing values, each 1..dice",
        source="published: the printed tokens of the physical game; the rulebook text gives no values",
    )
    no_token_rule: Literal["nothing", "remove-smallest"] = knob(
        "nothing",
        "When no token fits: take nothing (English rules) or remove a smallest supply token "
        "from play (French and Italian rules).",
        "nothing | remove-smallest",
        source="rulebook",
    )
    escaping_boots: bool = knob(
        False,
        "Older players' variant: a token may be taken from an opponent instead of the supply.",
        "true | false",
        source="rulebook",
    )
    steal_from: Literal["tail", "any"] = knob(
        "tail",
        "With escaping boots: only an opponent's tail token, the one added last (the rulebook), or any of their "
        "tokens (ours, a comparison reading).",
        "tail | any",
        source="rulebook",
    )
    head_start: int = knob(
        0,
        "Boots credited at the start to every seat after the first: seat i starts with i x head_start boots, "
        "counted in the score that decides the game (0 = the rulebook).",
        "0..20",
        source="ours: a handicap in the game's own terms, to ask what compensation makes the later seats fair",
        added=True,
    )

    def __post_init__(self) -> None:
        """Reject out-of-range knobs with a message naming the knob, the value and the allowed range."""
        core.check_range("dice", self.dice, 1, 6)
        core.check_range("colours", self.colours, 2, 8)
        core.check_range("joker_faces", self.joker_faces, 0, 3)
        core.check_range("rolls", self.rolls, 1, 5)
        values = self.token_values
        if (
            not isinstance(values, tuple)
            or not 1 <= len(values) <= 6
            or any(isinstance(v, bool) or not isinstance(v, int) for v in values)
            or any(b <= a for a, b in itertools.pairwise(values))
            or min(values) < 1
            or max(values) > self.dice
        ):
            raise ValueError(
                f"token_values={values!r} is not allowed; give 1 to 6 strictly increasing whole "
                f"numbers between 1 and dice={self.dice}"
            )
        core.check_choice("no_token_rule", self.no_token_rule, ("nothing", "remove-smallest"))
        core.check_choice("escaping_boots", self.escaping_boots, (True, False))
        core.check_choice("steal_from", self.steal_from, ("tail", "any"))
        core.check_range("head_start", self.head_start, 0, 20)
        if (self.dice + 1) ** (self.colours + 1) > MAX_CODE_SPACE:
            raise ValueError(
                f"dice={self.dice} with colours={self.colours} is too large; "
                f"(dice + 1) ** (colours + 1) must be at most {MAX_CODE_SPACE}"
            )
        if (self.colours + self.joker_faces) ** (self.dice * self.rolls) > MAX_TURN_WEIGHT:
            raise ValueError(
                f"dice={self.dice} with rolls={self.rolls} is too large for exact turn tables; "
                f"(colours + joker_faces) ** (dice * rolls) must be at most 2**52"
            )

    @property
    def n_tokens(self) -> int:
        """Tokens in the game: one per colour and value."""
        return self.colours * len(self.token_values)

    @property
    def tables(self) -> DiceTables:
        """Dice lookup tables for these knobs (built once per distinct set of dice knobs)."""
        return _tables(self.dice, self.colours, self.joker_faces, self.rolls, self.token_values)


VARIANTS: dict[str, dict[str, str]] = {
    "escaping-boots": {"escaping_boots": "true", "steal_from": "tail"},
    "escaping-boots-any": {"escaping_boots": "true", "steal_from": "any"},
    "remove-smallest": {"no_token_rule": "remove-smallest"},
    "no-jokers": {"joker_faces": "0"},
    "two-jokers": {"joker_faces": "2"},
}
"""Named variants: knob overrides a designer can ask for by name."""


@lru_cache(maxsize=16)
def _tables(dice: int, colours: int, joker_faces: int, rolls: int, token_values: tuple[int, ...]) -> DiceTables:
    return DiceTables(dice, colours, joker_faces, rolls, token_values)


@dataclass(slots=True)
class State:
    """The games still running, one row each; every array is updated in place by :func:`step`."""

    game: np.ndarray  # (B,) int64: index of the game in the output
    owner: np.ndarray  # (B, T) int8: SUPPLY, REMOVED, or the seat whose centipede holds the token
    supply_bits: np.ndarray  # (B,) int64: bit t set while token t is in the supply
    taken_at: np.ndarray  # (B, T) int16: turn the token joined its centipede, -1 otherwise
    turn: np.ndarray  # (B,) int16: turns played; the mover is turn % players
    taken: np.ndarray  # (B, P) int16: tokens each seat took from the supply
    steals_made: np.ndarray  # (B, P) int16
    steals_suffered: np.ndarray  # (B, P) int16
    removed: np.ndarray  # (B,) int8: tokens removed from play
    best_count: np.ndarray  # (B, dice + 1) int16: turns whose best same-colour count was k
    half_score: np.ndarray  # (B, P) int32: boots when the supply first fell to half, -1 before

    @classmethod
    def initial(cls, params: Params, players: int, n_games: int) -> State:
        """Every token in the supply, seat 0 to move."""
        t = params.n_tokens
        return cls(
            game=np.arange(n_games, dtype=np.int64),
            owner=np.full((n_games, t), SUPPLY, dtype=np.int8),
            supply_bits=np.full(n_games, (1 << t) - 1, dtype=np.int64),
            taken_at=np.full((n_games, t), -1, dtype=np.int16),
            turn=np.zeros(n_games, dtype=np.int16),
            taken=np.zeros((n_games, players), dtype=np.int16),
            steals_made=np.zeros((n_games, players), dtype=np.int16),
            steals_suffered=np.zeros((n_games, players), dtype=np.int16),
            removed=np.zeros(n_games, dtype=np.int8),
            best_count=np.zeros((n_games, params.dice + 1), dtype=np.int16),
            half_score=np.full((n_games, players), -1, dtype=np.int32),
        )

    def keep_rows(self, keep: np.ndarray) -> State:
        """A new state holding only the rows in ``keep``, indices or a mask (finished games compacted out)."""
        rows = core.rows_of(keep)
        return State(*(getattr(self, name).take(rows, axis=0) for name in self.__slots__))  # take: ~6x a mask


def token_colour(params: Params) -> np.ndarray:
    """Colour of each token id."""
    return params.colours - 1 - np.arange(params.n_tokens) % params.colours


def token_value(params: Params) -> np.ndarray:
    """Boot value of each token id."""
    return np.array(params.token_values, dtype=np.int64)[np.arange(params.n_tokens) // params.colours]


def fits(turn: Turn, throw: np.ndarray) -> np.ndarray:
    """``(B, T)`` mask of the tokens whose value is at most the last throw's count of their colour."""
    return ((turn.tables.fit_mask[throw][:, None] >> np.arange(len(turn.value))) & 1).astype(bool)


def highest_bit(bits: np.ndarray) -> np.ndarray:
    """Position of the highest set bit of each (non-negative) int64, -1 for zero."""
    return np.frexp(bits.astype(np.float64))[1].astype(np.int64) - 1


def token_bits(mask: np.ndarray) -> np.ndarray:
    """A ``(B, T)`` token mask as one int64 bit set per row."""
    return mask @ (np.int64(1) << np.arange(mask.shape[1], dtype=np.int64))


def start_boots(params: Params, players: int) -> np.ndarray:
    """Boots each seat has before any token is taken, the head start: seat ``i`` has ``i * head_start``."""
    return params.head_start * np.arange(players, dtype=np.int64)


def seat_boots(params: Params, owner: np.ndarray, players: int) -> np.ndarray:
    """Each seat's boots, its head start plus its centipede's tokens: shape ``(B, players)``."""
    seats = np.arange(players, dtype=owner.dtype)
    held = ((owner[:, None, :] == seats[None, :, None]) * token_value(params)).sum(axis=2, dtype=np.int64)
    return held + start_boots(params, players)


def total_boots(params: Params, players: int) -> int:
    """Boots in the game: every token's and every head start."""
    return sum(params.token_values) * params.colours + int(start_boots(params, players).sum())


def tie_possible(params: Params, players: int) -> bool:
    """Whether a game can end with the leaders level on boots (so the colour tie-break can decide it).

    Two players who share every token of an odd total (head starts included) never end level; removed tokens or a
    third player can.
    """
    return players > 2 or params.no_token_rule == "remove-smallest" or total_boots(params, players) % 2 == 0


Computed = TypeVar("Computed")


class TurnMemo(Generic[Computed]):
    """The last value a policy computed for a turn, reused while the policy is asked about the same turn again.

    A turn is known by its games, movers, owners and supply: a policy's keeps and its token choice all ask about one
    turn, so a costly per-turn computation runs once.
    """

    def __init__(self) -> None:
        """Nothing remembered yet."""
        self.key: tuple[np.ndarray, ...] | None = None
        self.value: Computed | None = None

    def get(self, turn: Turn, compute: Callable[[], Computed]) -> Computed:
        """``compute()``'s value for ``turn``: remembered if ``turn`` is the last one asked about, else computed now."""
        key = (turn.games, turn.mover, turn.owner, turn.supply_bits)
        if self.key is None or not all(
            a.shape == b.shape and np.array_equal(a, b) for a, b in zip(self.key, key, strict=True)
        ):
            self.value, self.key = compute(), tuple(np.copy(a) for a in key)
        return self.value


class Turn:
    """What the mover's policy may look at this turn, for a batch of games (read-only for policies)."""

    def __init__(self, params: Params, players: int, source: core.Source, state: State, mover: np.ndarray) -> None:
        """Derive the supply and (with escaping boots) the stealable tokens for each game's mover."""
        self.params, self.players, self.source = params, players, source
        self.state = state  # the whole position, for policies that look ahead (do not modify)
        self.tables = params.tables
        self.colour, self.value = token_colour(params), token_value(params)
        self.games, self.mover, self.owner, self.supply_bits = state.game, mover, state.owner, state.supply_bits
        self.stealable: np.ndarray | None = None
        self.tie_possible = tie_possible(params, players)
        self.available_bits = self.supply_bits
        if params.escaping_boots:
            owner = state.owner
            stealable = (owner >= 0) & (owner != mover[:, None])
            if params.steal_from == "tail":
                seats = np.arange(players, dtype=owner.dtype)
                on_seat = owner[:, None, :] == seats[None, :, None]
                tail_time = np.where(on_seat, state.taken_at[:, None, :], -1).max(axis=2)  # (B, P)
                owner_tail = np.take_along_axis(tail_time, np.maximum(owner, 0).astype(np.int64), axis=1)
                stealable &= state.taken_at == owner_tail
            self.stealable = stealable
            self.available_bits = self.supply_bits | token_bits(stealable)

    def subset(self, rows: np.ndarray) -> Turn:
        """The same turn restricted to ``rows`` (used when seats follow different policies)."""
        out = object.__new__(Turn)
        out.params, out.players, out.source, out.tables = self.params, self.players, self.source, self.tables
        out.colour, out.value, out.tie_possible = self.colour, self.value, self.tie_possible
        out._state_of, out._rows = self, rows
        for name in ("games", "mover", "owner", "supply_bits", "available_bits"):
            setattr(out, name, getattr(self, name)[rows])
        out.stealable = None if self.stealable is None else self.stealable[rows]
        return out

    def __getattr__(self, name: str) -> State:
        """A subset's ``state``, copied from the full turn's only when a policy asks for it."""
        if name != "state" or "_state_of" not in self.__dict__:
            raise AttributeError(name)
        self.state = self._state_of.state.keep_rows(self._rows)
        return self.state

    @property
    def signature(self) -> np.ndarray:
        """Bit set of the tokens the mover could claim if the dice allowed (supply plus stealable)."""
        return self.available_bits

    @cached_property
    def available(self) -> np.ndarray:
        """The signature as a ``(B, T)`` mask."""
        return ((self.available_bits[:, None] >> np.arange(len(self.value))) & 1).astype(bool)

    @cached_property
    def potential(self) -> np.ndarray:
        """Highest available value of each colour, 0 when the colour has nothing left: ``(B, colours)``."""
        return self.tables.highest_value[self.tables.colour_masks(self.signature)]

    @cached_property
    def boots(self) -> np.ndarray:
        """Boots per seat: ``(B, players)``."""
        return seat_boots(self.params, self.owner, self.players)


def _for_each_policy(
    impls: Sequence[object],
    turn: Turn,
    call: Callable[[object, Turn, object], np.ndarray],
) -> np.ndarray:
    """Call ``call(impl, subturn, rows)`` for the rows whose mover uses each distinct policy; gather results."""
    distinct = list(dict.fromkeys(impls))
    if len(distinct) == 1:
        return call(distinct[0], turn, slice(None))
    out = np.empty(len(turn.mover), dtype=np.int64)
    which = np.array([distinct.index(i) for i in impls])[turn.mover]
    for k, impl in enumerate(distinct):
        rows = np.flatnonzero(which == k)
        if len(rows):
            out[rows] = call(impl, turn.subset(rows), rows)
    return out


def roll_rest(turn: Turn, kept: np.ndarray) -> np.ndarray:
    """Roll the dice not in ``kept`` (multiset codes); returns the code of the whole throw."""
    tables, params = turn.tables, turn.params
    n_rolled = params.dice - tables.size_of(kept)
    faces = turn.source.draw(turn.games, tables.faces, params.dice, used=n_rolled)
    return kept + tables.roll_codes(faces, n_rolled)


def roll_dice(impl: object, turn: Turn, kept: np.ndarray | None = None, rolls_left: int | None = None) -> np.ndarray:
    """Play rolls die by die: roll, keep, reroll the rest, repeat. Returns the index of the last throw.

    By default a whole turn; from a decision, the ``rolls_left`` rolls after keeping ``kept``.
    """
    tables = turn.tables
    if kept is None:
        kept, rolls_left = np.zeros(len(turn.games), dtype=np.int64), turn.params.rolls
    code = roll_rest(turn, kept)
    for left in range(rolls_left - 1, 0, -1):
        code = roll_rest(turn, impl.keep(turn, code, left))
    return tables.full_position[tables.index_of_code[code]].astype(np.int64)


def last_throw(impl: object, turn: Turn, exact: bool) -> np.ndarray:
    """The turn's last throw: sampled whole from its exact distribution when the policy allows, else rolled."""
    sampler = getattr(impl, "sampler", None)
    if exact and sampler is not None:
        return sampler.sample(impl.turn_key(turn), turn.source.uniform(turn.games)[:, 0])
    return roll_dice(impl, turn)


def step(params: Params, impls: Sequence[object], state: State, source: core.Source, exact: bool) -> None:
    """Play one turn in every game of ``state`` (in place): rolls, keeps, the token taken, bookkeeping."""
    players = len(impls)
    mover = (state.turn % players).astype(np.int64)
    turn = Turn(params, players, source, state, mover)

    throw = _for_each_policy(impls, turn, lambda impl, t, r: last_throw(impl, t, exact))
    end_turn(impls, turn, throw)


def end_turn(impls: Sequence[object], turn: Turn, throw: np.ndarray) -> None:
    """Finish the turn of every game in ``turn.state`` after its last ``throw``: the token, then bookkeeping."""
    state = turn.state
    state.best_count[np.arange(len(state.game)), turn.tables.best_count[throw]] += 1
    choice = _for_each_policy(impls, turn, lambda impl, t, r: impl.choose(t, throw[r]))
    take_token(turn, choice)


def take_token(turn: Turn, choice: np.ndarray) -> None:
    """Give each game's mover the token ``choice`` (-1 for none), apply the no-token rule, pass the turn."""
    state, params, players, mover = turn.state, turn.params, turn.players, turn.mover
    took = np.flatnonzero(choice >= 0)
    token = choice[took]
    previous = state.owner[took, token].astype(np.int64)
    stolen = previous >= 0
    thief = took[stolen]
    state.steals_made[thief, mover[thief]] += 1
    state.steals_suffered[thief, previous[stolen]] += 1
    from_supply = took[~stolen]
    state.taken[from_supply, mover[from_supply]] += 1
    state.supply_bits[from_supply] &= ~(np.int64(1) << token[~stolen])
    state.owner[took, token] = mover[took]
    state.taken_at[took, token] = state.turn[took]

    if params.no_token_rule == "remove-smallest":
        empty_handed = np.flatnonzero((choice < 0) & (state.supply_bits != 0))
        bits = state.supply_bits[empty_handed]
        lowest = bits & -bits
        state.owner[empty_handed, highest_bit(lowest)] = REMOVED
        state.supply_bits[empty_handed] = bits & ~lowest
        state.removed[empty_handed] += 1

    in_supply = np.bitwise_count(state.supply_bits)
    half = np.flatnonzero((in_supply * 2 <= params.n_tokens) & (state.half_score[:, 0] < 0))
    state.half_score[half] = seat_boots(params, state.owner[half], players)
    state.turn += 1


def finished(state: State) -> np.ndarray:
    """Games whose supply is empty or that reached the turn cap."""
    return (state.supply_bits == 0) | (state.turn >= INFO.turn_cap)


def score(params: Params, owner: np.ndarray, players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Boots per seat, winner (-1 for shared) and the mask of seats sharing first place.

    Boots include the head start; ties on boots go to the most boots of a single colour (tokens only); a
    remaining tie is a shared win.
    """
    values = token_value(params)
    boots = np.zeros((len(owner), players), dtype=np.int64)
    best_colour = np.zeros((len(owner), players), dtype=np.int64)
    for seat in range(players):
        held = (owner == seat) * values  # (n, T); token t = value index * colours + reversed colour
        per_colour = held.reshape(len(owner), len(params.token_values), params.colours).sum(axis=1)
        boots[:, seat] = per_colour.sum(axis=1)
        best_colour[:, seat] = per_colour.max(axis=1)
    boots += start_boots(params, players)
    winner, winners = core.rank_winners(boots, best_colour)
    return boots.astype(np.int32), winner, winners


def prepare(impl: object, players: int) -> None:
    """Let a policy refuse the table, or build its tables, before play starts (if it offers ``prepare``)."""
    hook = getattr(impl, "prepare", None)
    if hook is not None:
        hook(players)


def play_with(
    params: Params,
    impls: Sequence[object],
    n_games: int,
    rng: np.random.Generator | core.Source,
    exact: bool = True,
    metrics: bool = True,
) -> Outcome:
    """Play ``n_games`` complete games in lock-step; seat ``i`` follows the policy implementation ``impls[i]``.

    With ``exact`` (the default) a policy whose keeps depend on a small summary of the position has each
    turn's last throw drawn whole from its exact distribution (one uniform per turn); ``exact=False`` rolls
    every die, as the reference engine does. Returns per-game columns: ``score`` (boots per seat),
    ``winner`` (-1 shared), ``winners``, ``turns``, the metrics in :data:`METRICS`, and (unless ``metrics`` is
    False, which only benchmarks ask) the game-metrics columns ``mid_score`` and ``lead_changes``
    (:func:`round_columns`).
    """
    for impl in dict.fromkeys(impls):
        prepare(impl, len(impls))
    players = len(impls)
    state = State.initial(params, players, n_games)
    rounds = Rounds(params, players, n_games) if metrics and params.escaping_boots else None
    final = play_on(params, impls, state, core.as_source(rng), exact, rounds)
    if not metrics:
        return outcome(params, final)
    columns = rounds.columns() if rounds is not None else round_columns(params, final, players)
    return outcome(params, final) | columns


def play_on(
    params: Params,
    impls: Sequence[object],
    state: State,
    source: core.Source,
    exact: bool,
    rounds: Rounds | None = None,
) -> State:
    """Play every game of ``state`` from where it stands to its end; returns the final states by row.

    ``rounds`` (for games that all start at turn 0) records the scores of every round as they end.
    """
    out = state.keep_rows(np.arange(len(state.game)))  # finished games are written here by row
    state.game = np.arange(len(state.game))
    while len(state.game):
        step(params, impls, state, source, exact)
        done = finished(state)
        if rounds is not None:
            rounds.record(state, done)
        if done.any():
            ended = np.flatnonzero(done)
            for name in State.__slots__:
                getattr(out, name)[state.game[ended]] = getattr(state, name).take(ended, axis=0)
            state = state.keep_rows(np.flatnonzero(~done))
    return out


class Rounds:
    """Boots at every round's end, for the game-metrics columns of games in which tokens change hands (steals).

    Games are played in lock-step from turn 0, so every running game ends a round at the same time; the boots of
    each round are kept only while a running game may still need them as its mid-game (from round ``r // 2`` on
    at round ``r``). Without steals the same columns come cheaper, at the end, from :func:`round_columns`.
    """

    def __init__(self, params: Params, players: int, n_games: int) -> None:
        """Nothing recorded yet: every game at round 0 with no boots and no leader."""
        self.params, self.players = params, players
        self.mid_score = np.tile(start_boots(params, players).astype(np.int32), (n_games, 1))
        self.leader = np.full(n_games, -1, dtype=np.int8)
        self.lead_changes = np.zeros(n_games, dtype=np.int16)
        self.kept: dict[int, tuple[np.ndarray, np.ndarray]] = {0: (np.arange(n_games), self.mid_score.copy())}

    def record(self, state: State, done: np.ndarray) -> None:
        """After a turn of every running game: end the round where it ends (or a finished game's last round)."""
        turn = int(state.turn[0]) if len(state.turn) else 0
        played = -(-turn // self.players)
        whole = turn % self.players == 0
        if not whole and not done.any():
            return
        rows = slice(None) if whole else done
        games, boots = state.game[rows], seat_boots(self.params, state.owner[rows], self.players).astype(np.int32)
        sole, lead = sole_leader(boots)
        before = self.leader[games]
        self.lead_changes[games] += sole & (before >= 0) & (lead != before)
        self.leader[games] = np.where(sole, lead, before)
        if whole:
            self.kept[played] = (games, boots)
            for old in [r for r in self.kept if r < played // 2]:
                del self.kept[old]
        if done.any():
            ids, at = self.kept[played // 2]
            ended = state.game[done]
            self.mid_score[ended] = at[np.searchsorted(ids, ended)]

    def columns(self) -> dict[str, np.ndarray]:
        """``mid_score`` and ``lead_changes`` (see :func:`round_columns`)."""
        return {"mid_score": self.mid_score, "lead_changes": self.lead_changes}


def sole_leader(boots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Over the last axis (seats): whether one seat alone has the most boots, and the (first) seat with the most."""
    top, lead = boots[..., 0].copy(), np.zeros(boots.shape[:-1], dtype=np.int8)
    level = np.ones(boots.shape[:-1], dtype=np.int8)  # seats level with the best so far
    for seat in range(1, boots.shape[-1]):  # seat by seat: faster than reductions over a short axis
        column = boots[..., seat]
        ahead = column > top
        level = np.where(ahead, 1, level + (column == top))
        lead[ahead] = seat
        np.maximum(top, column, out=top)
    return level == 1, lead


def round_columns(params: Params, out: State, players: int) -> dict[str, np.ndarray]:
    """The game-metrics contract's columns of finished games in which no token changed hands.

    A round: every seat took one turn; a game's last round may be cut short by its end. ``mid_score`` ``(B, P)``:
    each seat's boots at the end of round ``R // 2`` of a game that lasted ``R`` rounds (round 0 is the start);
    ``lead_changes`` ``(B,)``: how often the sole leader (a unique highest number of boots at a round's end)
    changed. A token stays with the seat that took it, so the boots at each round's end are the sums of the
    tokens taken by then: nothing to record during play (the compiled loop is in :mod:`engines.pantolino.rounds`).
    """
    from boardlab.engines.pantolino.rounds import round_columns_kernel

    mid_score, changes = round_columns_kernel(
        out.owner,
        out.taken_at,
        token_value(params),
        start_boots(params, players).astype(np.int32),
        out.turn.astype(np.int64),
        INFO.turn_cap,
    )
    return {"mid_score": mid_score, "lead_changes": changes}


def outcome(params: Params, out: State) -> Outcome:
    """Per-game result columns of finished games."""
    players = out.taken.shape[1]
    boots, winner, winners = score(params, out.owner, players)
    winner_half = np.take_along_axis(out.half_score, np.maximum(winner, 0).astype(np.int64)[:, None], axis=1)[:, 0]
    comeback = (winner >= 0) & (winner_half < out.half_score.max(axis=1))
    return {
        "score": boots,
        "winner": winner,
        "winners": winners,
        "turns": out.turn.astype(np.int32),
        "taken": out.taken,
        "steals_made": out.steals_made,
        "steals_suffered": out.steals_suffered,
        "removed": out.removed,
        "capped": out.turn >= INFO.turn_cap,
        "turn_best_count": out.best_count,
        "comeback": comeback,
    }


def play_turns(
    params: Params,
    impl: object,
    n_turns: int,
    rng: np.random.Generator | core.Source,
    available_bits: int | None = None,
    exact: bool = True,
) -> dict[str, np.ndarray]:
    """Play ``n_turns`` independent single turns of the policy ``impl`` from one position, for turn statistics.

    The position has the tokens in ``available_bits`` in the supply (default: all of them) and nobody to steal
    from. Returns per turn the last throw's index, its best same-colour count and the value of the token taken.
    """
    prepare(impl, 1)
    source = core.as_source(rng)
    state = State.initial(params, 1, n_turns)
    if available_bits is not None:
        state.supply_bits[:] = available_bits
        gone = ((available_bits >> np.arange(params.n_tokens)) & 1) == 0
        state.owner[:, gone] = REMOVED
    turn = Turn(params, 1, source, state, np.zeros(n_turns, dtype=np.int64))
    throw = last_throw(impl, turn, exact)
    token = impl.choose(turn, throw)
    return {
        "throw": throw,
        "best_count": params.tables.best_count[throw],
        "value": np.where(token >= 0, turn.value[np.maximum(token, 0)], 0),
    }
