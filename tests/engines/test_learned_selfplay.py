"""The game-agnostic self-play sampler, on a tiny game: take one or two from a pile, the last to take wins."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial

import numpy as np

from engines import core
from engines.learned import training
from engines.learned.choice import Featured
from engines.learned.model import ValueModel
from engines.learned.selfplay import SelfPlay, Trajectories, choose, lambda_returns, merge, where_chosen


@dataclass
class Pile:
    """A decision point of the tiny game: candidate ``c`` takes ``c + 1`` (two only from a pile of two or more)."""

    pile: np.ndarray  # (B,) int64
    seat: np.ndarray  # (B,) int64: the mover
    players: int = 2
    cooperative: bool = False

    def legal(self) -> np.ndarray:
        return np.stack([self.pile >= 1, self.pile >= 2], axis=1)

    def take(self, rows: np.ndarray) -> Pile:
        return Pile(self.pile[rows].copy(), self.seat[rows].copy())

    def apply(self, actions: np.ndarray) -> None:
        self.pile = self.pile - actions - 1
        self.seat = np.where(self.pile > 0, 1 - self.seat, self.seat)  # the last taker stays the "mover"

    def features(self, viewer: np.ndarray | None = None) -> np.ndarray:
        viewer = self.seat if viewer is None else viewer
        mine = self.seat == viewer
        return np.stack([self.pile / 10, self.pile % 3 == 0, mine, (self.pile == 0) & mine], axis=1).astype(np.float32)


class Taker:
    """A seat: every decision through ``decide``; its own choice (``propose``) takes one."""

    def __init__(self, decide: Callable) -> None:
        self.decide = decide


@dataclass(frozen=True)
class PileTable:
    """Seats and plays the tiny game in lock-step: piles of 1..10, seat 0 first."""

    def seat(self, params: core.Params, players: int, decide: Callable) -> Taker:
        return Taker(decide)

    def play(self, params: core.Params, seats: Sequence[Taker], n_games: int, source: core.Source) -> core.Outcome:
        games = np.arange(n_games)
        point = Pile(source.draw(games, 10)[:, 0] + 1, np.zeros(n_games, dtype=np.int64))
        winners = np.zeros((n_games, 2), dtype=bool)
        live = games
        while len(live):
            now = point.take(live)
            chosen = seats[0].decide(now, live, partial(np.zeros, len(live), dtype=np.int64))  # proposes: take one
            now.apply(chosen)
            point.pile[live], point.seat[live] = now.pile, now.seat
            done = now.pile == 0
            winners[live[done], now.seat[done]] = True
            live = live[~done]
        return {"winners": winners}


def width(params: core.Params, players: int) -> int:
    return 4


def perfect(n_features: int = 4) -> ValueModel:
    """Values a position won (the viewer took the last) 1, a pile of 3k left to the opponent high, others low."""
    w0 = np.zeros((n_features, 2), np.float32)
    w0[1, 0], w0[3, 1] = 0.5, 1.0
    return ValueModel((w0, np.ones((2, 1), np.float32)), (np.zeros(2, np.float32), np.full(1, 0.25, np.float32)))


def test_the_tiny_game_point_is_featured() -> None:
    assert isinstance(Pile(np.ones(1, np.int64), np.zeros(1, np.int64)), Featured)


def test_lambda_returns_follow_each_owners_records_in_order() -> None:
    values = np.array([0.1, 0.2, 0.3, 0.4, 0.5], np.float32)
    returns = np.array([0, 1, 0, 1, 0], np.float32)  # one result per owner, as a game gives
    owner = np.array([0, 1, 0, 1, 0])
    # owner 0: records 0, 2, 4 (G4 = 0, G2 = .5·.5 + .5·0, G0 = .5·.3 + .5·G2); owner 1: G3 = 1, G1 = .5·.4 + .5·1
    np.testing.assert_allclose(lambda_returns(values, returns, owner, 0.5), [0.275, 0.7, 0.25, 1.0, 0.0], rtol=1e-6)
    np.testing.assert_array_equal(lambda_returns(values, returns, owner, 1.0), returns)
    np.testing.assert_allclose(lambda_returns(values, returns, owner, 0.0), [0.3, 0.4, 0.5, 1.0, 0.0], rtol=1e-6)


def test_samples_are_the_chosen_positions_with_their_seats_share_of_the_win() -> None:
    sampler = SelfPlay(PileTable(), width)
    features, targets, records = sampler.samples(core.Params(), 2, None, 200, np.random.default_rng(0))
    assert features.shape == (len(targets), 4) and len(records.owner) == len(targets)
    left = np.rint(features[:, 0] * 10).astype(int)
    # the baseline takes one: of the stones left after a recorded move, the opponent takes the odd ones
    np.testing.assert_array_equal(targets, left % 2 == 0)
    assert len(np.unique(records.owner // 2)) > 150 and sampler.backup(perfect(), records) is None


def test_merge_keeps_owners_of_chunks_apart() -> None:
    sampler = SelfPlay(PileTable(), width, lam=0.5)
    parts = [sampler.samples(core.Params(), 2, None, 30, np.random.default_rng(s))[2] for s in (1, 2)]
    merged = merge(parts)
    assert isinstance(merged, Trajectories)
    assert not set(merged.owner[: len(parts[0].owner)]) & set(merged.owner[len(parts[0].owner) :])
    backed = sampler.backups(core.Params(), 2, perfect(), parts, training.serial)
    assert backed.shape == merged.returns.shape and np.isfinite(backed).all()
    np.testing.assert_array_equal(backed, sampler.backup(perfect(), merged))


def test_choose_asks_the_model_only_where_there_is_a_choice() -> None:
    point = Pile(np.array([1, 4, 5, 2]), np.zeros(4, dtype=np.int64))
    # a pile of 4 or 5: leave 3 to the opponent; a pile of 2: take both; a pile of 1: the only move
    np.testing.assert_array_equal(choose(point, perfect()), [0, 0, 1, 1])


def test_where_chosen_picks_only_among_rows_with_two_legal_candidates() -> None:
    point = Pile(np.array([1, 4, 1, 2, 7]), np.arange(5) % 2)
    seen = []

    def pick(sub: Pile, rows: np.ndarray) -> np.ndarray:
        seen.append((sub.pile.copy(), sub.seat.copy(), rows.copy()))
        return np.ones(len(rows), dtype=np.int64)

    np.testing.assert_array_equal(where_chosen(point, pick), [0, 1, 0, 1, 1])
    ((piles, seats, rows),) = seen  # one call, with the rows that have a choice (and their seats)
    np.testing.assert_array_equal(rows, [1, 3, 4])
    np.testing.assert_array_equal(piles, [4, 2, 7])
    np.testing.assert_array_equal(seats, [1, 1, 0])
    assert where_chosen(Pile(np.ones(3, np.int64), np.zeros(3, np.int64)), pick).tolist() == [0, 0, 0]
    assert len(seen) == 1  # no row with a choice: never asked


def test_the_model_plays_the_tiny_game_well() -> None:
    sampler = SelfPlay(PileTable(), width)
    features, targets, _ = sampler.samples(core.Params(), 2, perfect(), 300, np.random.default_rng(3))
    left = np.rint(features[:, 0] * 10).astype(int)
    assert (left % 3 == 0).any() and (left % 3 != 0).any()
    np.testing.assert_array_equal(targets, left % 3 == 0)  # both play perfectly: leaving 3k stones wins


def test_same_seed_same_model_bytes_for_any_chunk_order() -> None:
    settings = replace(training.Settings(), games=600, rounds=2, hidden=(4,), epochs=2, sweeps=1, chunk_games=100)
    sampler = SelfPlay(PileTable(), width, keep=0.5, lam=0.5)

    def backwards(function, jobs):  # runs the chunks in reverse, yields them in order (as workers would)
        return reversed([function(*args) for args in reversed(jobs)])

    one = training.train(sampler, core.Params(), 2, settings).to_bytes()
    assert training.train(sampler, core.Params(), 2, settings, backwards).to_bytes() == one
    assert training.train(sampler, core.Params(), 2, replace(settings, seed=1)).to_bytes() != one


def test_explored_choices_are_random_legal_and_always_recorded() -> None:
    rng = np.random.default_rng
    baseline = SelfPlay(PileTable(), width).samples(core.Params(), 2, None, 200, rng(4))[0]
    explored = SelfPlay(PileTable(), width, keep=0.0, explore=1.0).samples(core.Params(), 2, None, 200, rng(4))[0]
    # the same piles: taking two at random ends games sooner, and every real choice explored is recorded
    assert 0.5 * len(baseline) < len(explored) < len(baseline)
    assert (explored[:, 0] >= 0).all()  # never more than the pile (the legal mask holds)
    assert len(SelfPlay(PileTable(), width, keep=0.0).samples(core.Params(), 2, None, 200, rng(4))[0]) == 0
