"""The game-agnostic self-play sampler, on the tiny pile game (:mod:`tests.engines.pile`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

import numpy as np
import pytest

from boardlab.engines import core
from boardlab.engines.learned import training
from boardlab.engines.learned.choice import choose
from boardlab.engines.learned.selfplay import SelfPlay, Trajectories, lambda_returns, merge
from tests.engines.pile import PileTable, Taker, perfect, width


@dataclass(frozen=True)
class RivalPile(PileTable):
    """The tiny game's table with a rival (the model deciding every move, unrecorded), each mover's seat deciding."""

    def rival(self, params: core.Params, players: int, model) -> Taker:
        return Taker(lambda point, games, propose: choose(point, model))

    def play(self, params: core.Params, seats, n_games: int, source: core.Source) -> core.Outcome:
        by_seat = Taker(lambda point, games, propose: by_mover(seats, point, games, propose))
        return super().play(params, [by_seat], n_games, source)


def by_mover(seats, point, games: np.ndarray, propose) -> np.ndarray:
    """Each row's choice by the seat to move (the tiny table asks one seat for every row)."""
    chosen = propose()
    for s, taker in enumerate(seats):
        rows = np.flatnonzero(point.seat == s)
        if len(rows):
            chosen[rows] = taker.decide(point.take(rows), games[rows], partial(np.zeros, len(rows), dtype=np.int64))
    return chosen


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


def test_rivals_record_one_seat_against_the_model_playing_its_own_way() -> None:
    rng, params = np.random.default_rng, core.Params()
    alone = SelfPlay(RivalPile(), width, keep=0.0, explore=1.0, rivals=1.0)
    _, targets, records = alone.samples(params, 2, perfect(), 400, rng(5))
    _, both, selfish = SelfPlay(RivalPile(), width, keep=0.0, explore=1.0).samples(params, 2, perfect(), 400, rng(5))
    # every choice of the recorded seat is random: in self-play it meets another random seat and wins about half,
    # against the perfect rival (unrecorded) far less; each game's records are one seat's
    assert 0.4 < both.mean() < 0.6 and targets.mean() < 0.3
    assert len(np.unique(records.owner)) <= 400 < len(np.unique(selfish.owner))
    half = replace(alone, rivals=0.5).samples(params, 2, perfect(), 400, rng(5))[1]
    assert targets.mean() < half.mean() < both.mean()
    # no model yet (round 0): self-play only, the same samples as without rivals
    np.testing.assert_array_equal(
        alone.samples(params, 2, None, 100, rng(6))[0],
        replace(alone, rivals=0.0).samples(params, 2, None, 100, rng(6))[0],
    )
    with pytest.raises(ValueError, match="rival"):
        SelfPlay(PileTable(), width, rivals=0.5).samples(params, 2, perfect(), 10, rng(7))
