"""Swine's rules, batched: every live game makes one decision per step (hold, or roll the die).

A :class:`State` holds a batch of games; ``game`` numbers each row's chance stream. A step asks each row's
mover to hold or roll (:class:`View` is what a policy sees), then resolves it: a hold banks the turn's total
(reaching the target wins), a roll draws one face from the row's stream.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np

from boardlab.engines import core

INFO = core.GameInfo(
    id="swine",
    name="Swine",
    version=1,
    min_players=2,
    max_players=4,
    chance=True,
    turn_cap=400,
    score_label="points",
    chunk_games=10_000,
)
METRICS = {
    "rolls": core.Metric("game", "dice rolled per game"),
    "busts": core.Metric("seat", "turns lost to a bust, per seat"),
}
VARIANTS = {"short": {"target": "30"}, "d8": {"faces": "8"}}
HOLD, ROLL = 0, 1  # a decision's candidates


@dataclass(frozen=True, slots=True)
class Params(core.Params):
    """Swine's knobs."""

    target: int = core.knob(50, "points that win the game", "10..500", "ours: half the folk game's, short games")
    faces: int = core.knob(6, "faces of the die", "4..20", "rulebook")
    bust: int = core.knob(1, "faces 1..bust end the turn and lose its total", "1..3", "rulebook")

    def __post_init__(self) -> None:
        core.check_range("target", self.target, 10, 500)
        core.check_range("faces", self.faces, 4, 20)
        core.check_range("bust", self.bust, 1, 3)


@dataclass(slots=True)
class State:
    """A batch of games (one row each): scores, the turn's total, turns and rolls so far, busts per seat."""

    game: np.ndarray  # (B,) int64: the row's chance stream
    score: np.ndarray  # (B, P) int32
    total: np.ndarray  # (B,) int32: the mover's points this turn
    turn: np.ndarray  # (B,) int32: turns finished; the mover is turn % P
    rolls: np.ndarray  # (B,) int32
    busts: np.ndarray  # (B, P) int32
    won: np.ndarray  # (B,) bool: the mover has reached the target

    @classmethod
    def start(cls, n_games: int, players: int) -> State:
        """``n_games`` games before the first roll."""
        zeros = np.zeros(n_games, dtype=np.int32)
        table = np.zeros((n_games, players), dtype=np.int32)
        return cls(np.arange(n_games), table, zeros, zeros.copy(), zeros.copy(), table.copy(), zeros.astype(bool))

    def rows(self, rows: np.ndarray) -> State:
        """A copy of ``rows`` (rows may repeat)."""
        return State(*(getattr(self, f.name)[rows] for f in fields(self)))

    def live(self) -> np.ndarray:
        """Rows still playing."""
        return ~self.won & (self.turn < INFO.turn_cap)


@dataclass(frozen=True, slots=True)
class View:
    """What a policy sees of some rows: the whole table (nothing is hidden), and the chance source."""

    params: Params
    state: State
    source: core.Source

    @property
    def seat(self) -> np.ndarray:
        """The mover of each row."""
        return self.state.turn % self.state.score.shape[1]

    @property
    def own(self) -> np.ndarray:
        """The mover's banked score."""
        return self.state.score[np.arange(len(self.seat)), self.seat]

    @property
    def best_other(self) -> np.ndarray:
        """The best banked score among the mover's opponents."""
        others = self.state.score.copy()
        others[np.arange(len(self.seat)), self.seat] = -1
        return others.max(axis=1)


def decide(impls: Sequence[object], params: Params, state: State, source: core.Source) -> np.ndarray:
    """Each row's decision (True: roll) by its mover's policy; a turn's first roll is compulsory."""
    players = state.score.shape[1]
    distinct = list(dict.fromkeys(impls))
    which = np.array([distinct.index(i) for i in impls])[state.turn % players]
    roll = np.ones(len(state.game), dtype=bool)
    for k, impl in enumerate(distinct):
        rows = np.flatnonzero((which == k) & (state.total > 0))
        if len(rows):
            roll[rows] = impl.decide(View(params, state.rows(rows), source))
    return roll


def step(params: Params, state: State, roll: np.ndarray, source: core.Source) -> None:
    """Resolve every row's decision in place: bank the total, or roll one die (a bust ends the turn)."""
    rows = np.arange(len(state.game))
    seat = state.turn % state.score.shape[1]
    face = np.zeros(len(rows), dtype=np.int64)
    if roll.any():
        face[roll] = source.draw(state.game[roll], params.faces)[:, 0] + 1
    bust = roll & (face <= params.bust)
    state.rolls += roll
    state.busts[rows[bust], seat[bust]] += 1
    state.total = np.where(bust, 0, state.total + face).astype(np.int32)
    hold = ~roll
    state.score[rows[hold], seat[hold]] += state.total[hold]
    state.won = hold & (state.score[rows, seat] >= params.target)
    ends = (hold & ~state.won) | bust
    state.total[hold] = 0
    state.turn += ends


def play_on(params: Params, impls: Sequence[object], state: State, source: core.Source) -> State:
    """Play every row of ``state`` to its end; returns the finished rows in their original order."""
    done: list[State] = []
    while len(state.game):
        step(params, state, decide(impls, params, state, source), source)
        over = ~state.live()
        if over.any():
            done.append(state.rows(np.flatnonzero(over)))
            state = state.rows(np.flatnonzero(~over))
    if not done:
        return state
    final = State(*(np.concatenate([getattr(d, f.name) for d in done]) for f in fields(State)))
    return final.rows(np.argsort(final.game, kind="stable"))


def outcome(state: State) -> core.Outcome:
    """The contract's columns of finished games: a winner reached the target, else the highest score at the cap."""
    seat = state.turn % state.score.shape[1]
    winner, winners = core.rank_winners(state.score)
    alone = np.zeros_like(winners)
    alone[np.arange(len(seat)), seat] = True
    winners = np.where(state.won[:, None], alone, winners)
    winner = np.where(state.won, seat, winner).astype(np.int8)
    turns = (state.turn + state.won).astype(np.int32)
    return {"score": state.score, "winner": winner, "winners": winners, "turns": turns} | {
        "rolls": state.rolls,
        "busts": state.busts,
    }


def play_with(params: Params, impls: Sequence[object], n_games: int, rng: object) -> core.Outcome:
    """Play ``n_games`` games, seat ``i`` following the policy implementation ``impls[i]``."""
    source = core.as_source(rng)
    return outcome(play_on(params, impls, State.start(n_games, len(impls)), source))
