"""The game-agnostic self-play sampler, on the tiny pile game (:mod:`tests.engines.pile`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from boardlab.engines import core
from boardlab.engines.learned import training
from boardlab.engines.learned.selfplay import Recorder, SelfPlay, Trajectories, lambda_returns, merge
from tests.engines.pile import Pile, PileTable, perfect, width


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


def test_mix_takes_the_models_choice_in_a_share_of_rows_once_a_model_exists() -> None:
    point = Pile(np.full(2000, 7), np.zeros(2000, dtype=np.int64))  # the perfect model takes one (leaves 6)
    given = np.ones(2000, dtype=np.int64)  # a game's own choice: take two
    recorder = Recorder(perfect(), 1.0, 0.0, np.random.default_rng(9))
    mixed = recorder.mix(point, given.copy(), 0.3)
    assert set(np.unique(mixed)) == {0, 1} and abs((mixed == 0).mean() - 0.3) < 0.05
    np.testing.assert_array_equal(recorder.mix(point, given.copy(), 0.0), given)
    np.testing.assert_array_equal(
        Recorder(None, 1.0, 0.0, np.random.default_rng(9)).mix(point, given.copy(), 1.0), given
    )
    assert (recorder.mix(point, given.copy(), 1.0) == 0).all()
