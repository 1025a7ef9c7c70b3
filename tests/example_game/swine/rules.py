"""Swine's rules, batched: every live game makes one decision per step (hold, or roll the die).

A :class:`State` holds a batch of games; ``game`` numbers each row's chance stream. A step asks each row's
mover to hold or roll (:class:`View` is what a policy sees), then resolves it: a hold banks the turn's total
(reaching the target wins), a roll draws one face from the row's stream.

Besides the game's own metrics, the outcome has the game-metrics contract's ``mid_score`` and ``lead_changes``
(drama and lead changes, :mod:`analysis.game_metrics`). A round is a turn of every seat; a game of ``T`` turns
lasted ``R = ceil(T / P)`` rounds (its last perhaps cut short by the win). ``mid_score``: the banked scores at the
end of round ``R // 2`` (all 0 when ``R < 2``); ``lead_changes``: how often the sole leader (the highest banked
score, untied) changed from one round's end to a later one's, the game's end counting as its last round's end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np

from boardlab.engines import core

INFO = core.GameInfo(
    id="swine",
    name="Swine",
    version=2,  # 2: the mid_score and lead_changes columns
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
HISTORY = 16  # rounds' scores kept at first (a batch's history doubles when a game outlasts it)


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
    history: np.ndarray  # (B, P, C) int16: banked scores at the end of round c (column 0: the start), grown
    leader: np.ndarray  # (B,) int8: the sole leader at the last round's end that had one (-1: none yet)
    lead_changes: np.ndarray  # (B,) int16

    @classmethod
    def start(cls, n_games: int, players: int) -> State:
        """``n_games`` games before the first roll."""
        zeros = np.zeros(n_games, dtype=np.int32)
        table = np.zeros((n_games, players), dtype=np.int32)
        history = np.zeros((n_games, players, HISTORY), dtype=np.int16)
        leader, changes = np.full(n_games, -1, dtype=np.int8), np.zeros(n_games, dtype=np.int16)
        counts = (zeros.copy(), zeros.copy(), table.copy(), zeros.astype(bool))
        return cls(np.arange(n_games), table, zeros, *counts, history, leader, changes)

    def rows(self, rows: np.ndarray) -> State:
        """A copy of ``rows`` (rows may repeat)."""
        return State(*(getattr(self, f.name)[rows] for f in fields(self)))

    @staticmethod
    def concat(parts: Sequence[State]) -> State:
        """The rows of ``parts`` in order (their histories widened to the widest)."""
        width = max(p.history.shape[2] for p in parts)
        wide = [np.pad(p.history, ((0, 0), (0, 0), (0, width - p.history.shape[2]))) for p in parts]
        columns = {
            f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(State) if f.name != "history"
        }
        return State(**columns, history=np.concatenate(wide))

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
    """Each row's decision (True: roll) by its mover's policy; a turn's first roll is compulsory.

    A policy is asked only where holding is legal; one with a ``forced(view)`` hook (a watched seat) is also shown
    the rows whose roll is compulsory, and what it answers there is not read.
    """
    players = state.score.shape[1]
    distinct = list(dict.fromkeys(impls))
    which = np.array([distinct.index(i) for i in impls])[state.turn % players]
    roll = np.ones(len(state.game), dtype=bool)
    for k, impl in enumerate(distinct):
        rows = np.flatnonzero((which == k) & (state.total > 0))
        if len(rows):
            roll[rows] = impl.decide(View(params, state.rows(rows), source))
        shown = getattr(impl, "forced", None)  # a seat that is shown the compulsory first rolls as well
        rows = np.flatnonzero((which == k) & (state.total == 0))
        if shown is not None and len(rows):
            shown(View(params, state.rows(rows), source))
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
    round_end(state, ends | state.won)


def round_end(state: State, ended: np.ndarray) -> None:
    """Where a turn just ended a round (or the game): keep the scores and count a change of the sole leader."""
    players = state.score.shape[1]
    rows = np.flatnonzero(ended & ((state.turn % players == 0) | ~state.live()))
    if not len(rows):
        return
    full = rows[(state.turn[rows] % players == 0) & ~state.won[rows]]  # a whole round's end: keep its scores
    column = state.turn[full] // players
    if len(full) and column.max() >= state.history.shape[2]:
        grow = max(state.history.shape[2], int(column.max()) + 1 - state.history.shape[2])
        state.history = np.pad(state.history, ((0, 0), (0, 0), (0, grow)))
    state.history[full, :, column] = state.score[full]
    score = state.score[rows]
    sole = (score == score.max(axis=1, keepdims=True)).sum(axis=1) == 1
    leader = np.where(sole, score.argmax(axis=1), -1).astype(np.int8)
    state.lead_changes[rows] += sole & (state.leader[rows] >= 0) & (leader != state.leader[rows])
    state.leader[rows] = np.where(sole, leader, state.leader[rows])


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
    final = State.concat(done)
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
    players = state.score.shape[1]
    mid = (turns + players - 1) // players // 2  # the end of round R // 2 of a game of R rounds
    return {"score": state.score, "winner": winner, "winners": winners, "turns": turns} | {
        "rolls": state.rolls,
        "busts": state.busts,
        "mid_score": state.history[np.arange(len(mid)), :, mid],
        "lead_changes": state.lead_changes,
    }


def play_with(params: Params, impls: Sequence[object], n_games: int, rng: object) -> core.Outcome:
    """Play ``n_games`` games, seat ``i`` following the policy implementation ``impls[i]``."""
    source = core.as_source(rng)
    return outcome(play_on(params, impls, State.start(n_games, len(impls)), source))
