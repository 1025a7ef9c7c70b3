"""Pantolino's 3-player teacher: samples valued by the exact best reply, and the model it trains."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from boardlab.engines.learned import cache, lifecycle, training
from boardlab.engines.pantolino import POLICIES, Params, learned, response, teacher
from boardlab.engines.pantolino.heuristics import TurnOptimal
from boardlab.engines.pantolino.rules import play_with, token_colour, token_value

SMALL = Params(colours=4, token_values=(2, 4))  # 8 tokens, 3,876 positions: the reply solves in a second
QUICK = replace(learned.SETTINGS_TAUGHT, games=3_000, hidden=(32, 32), chunk_games=1_000)


@pytest.fixture(autouse=True)
def cache_folder(tmp_path, monkeypatch):
    """Each test reads or solves the reply in a cache folder of its own."""
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path))
    teacher.reply_for.cache_clear()
    yield tmp_path
    teacher.reply_for.cache_clear()


def rank_of(patterns: list[int]) -> int:
    """A multiset of colour patterns' rank, as :mod:`engines.pantolino.response` numbers them (written anew)."""
    return sum(math.comb(p + i, i + 1) for i, p in enumerate(sorted(patterns)))


def test_every_sample_is_a_reachable_candidate_valued_by_the_reply() -> None:
    """Each sample's features name a position whole (per seat and colour boots); its target is the reply's value."""
    features, targets, positions = teacher.Taught(TurnOptimal).samples(SMALL, 3, None, 60, np.random.default_rng(2))
    assert positions is None and features.shape == (len(targets), learned.n_features(SMALL, 3)) and len(targets) > 500
    after_seat = teacher.reply_for(SMALL).after_seat
    colours = SMALL.colours
    unit = sum(SMALL.token_values) * colours / learned.BOOTS_SCALE
    boots = np.rint(features[:, -3 * colours :] * unit).astype(np.int64).reshape(-1, 3, colours)  # seat, colour
    colour_of, value_of = token_colour(SMALL), token_value(SMALL)
    for row in range(len(targets)):
        patterns = [0] * colours
        for token in range(SMALL.n_tokens):  # in the supply (0) or held by the viewer (1), the next (2), the last (3)
            c, j = colour_of[token], SMALL.token_values.index(value_of[token])
            holder = [s for s in range(3) if boots[row, s, c] in (value_of[token], sum(SMALL.token_values))]
            assert len(holder) <= 1 and (not holder) == bool(features[row, token])
            patterns[c] |= (holder[0] + 1 if holder else 0) << (2 * j)
        assert targets[row] == np.float32(after_seat[rank_of(patterns)])


def test_half_the_games_are_the_learners_and_the_samples_are_seeded() -> None:
    sampler = teacher.Taught(TurnOptimal)
    first = sampler.samples(SMALL, 3, None, 30, np.random.default_rng(4))
    again = sampler.samples(SMALL, 3, None, 30, np.random.default_rng(4))
    assert np.array_equal(first[0], again[0]) and np.array_equal(first[1], again[1])
    model = training.train(sampler, SMALL, 3, replace(QUICK, games=600, rounds=1))
    taught = sampler.samples(SMALL, 3, model, 30, np.random.default_rng(4))
    # the reply's games come first and draw the same dice whoever the learner is; the learner's then differ
    assert np.array_equal(taught[1][:100], first[1][:100]) and not np.array_equal(taught[1], first[1])


def test_a_taught_model_values_like_the_reply_and_plays_near_it() -> None:
    """Exact values: the reply is worth 35.74% seat-averaged, ``turn-optimal`` in its place 33.33%."""
    best = response.seat_values(response.solve(SMALL)).mean()
    assert best == pytest.approx(0.35741, abs=1e-5)
    model = training.train(teacher.Taught(TurnOptimal), SMALL, 3, QUICK)
    features, targets, _ = teacher.Taught(TurnOptimal).samples(SMALL, 3, model, 600, np.random.default_rng(9))
    error = np.abs(model.predict_all(features)[:, 0] - targets).mean()
    assert error < 0.05 < 0.2 < np.abs(targets - targets.mean()).mean()  # a constant is off by 0.22
    player = learned.Learned(SMALL, {3: model})
    shares = []
    for seat in range(3):
        impls: list[object] = [TurnOptimal(SMALL) for _ in range(3)]
        impls[seat] = player
        winners = play_with(SMALL, impls, 6_000, np.random.default_rng([5, seat]))["winners"].astype(float)
        shares.append((winners[:, seat] / winners.sum(axis=1)).mean())
    # 18,000 games: one standard error is 0.35 points; measured 34.9%
    assert 1 / 3 + 0.007 < np.mean(shares) < best + 0.007


def test_three_solvable_players_are_taught_and_the_rest_learn_by_self_play() -> None:
    assert learned.settings_for(Params(), 3) == learned.SETTINGS_TAUGHT
    assert learned.settings_for(SMALL, 3) == learned.SETTINGS_TAUGHT
    assert learned.settings_for(Params(), 2) == learned.SETTINGS
    assert learned.settings_for(Params(), 4) == learned.SETTINGS_MANY
    assert not learned.settings_for(Params(escaping_boots=True), 3).teacher
    assert not learned.settings_for(Params(colours=6), 3).teacher  # 119,877,472 positions: too many to solve
    player = POLICIES["learned"].impl
    assert isinstance(lifecycle.sampler(player, learned.SETTINGS_TAUGHT), teacher.Taught)
    assert isinstance(lifecycle.sampler(player, learned.SETTINGS_MANY), learned.SelfPlay)
    assert lifecycle.model_key(learned.Learned, Params(), 3)["training"]["teacher"] == learned.TEACHER
    assert "teacher" not in lifecycle.model_key(learned.Learned, Params(), 4)["training"]
    with pytest.raises(ValueError, match="3 players and the base game"):
        teacher.Taught(TurnOptimal).samples(Params(escaping_boots=True), 3, None, 10, np.random.default_rng(0))


def test_training_caches_a_one_output_model_whose_bytes_do_not_depend_on_the_workers(cache_folder, monkeypatch) -> None:
    player = POLICIES["learned"].impl
    settings = replace(QUICK, games=1_200, rounds=2, chunk_games=300)
    model, path, how = player.train(SMALL, 3, settings)
    assert how == "trained" and path.parent == cache_folder and model.n_outputs == 1
    assert response.cache_path(SMALL).exists()  # the reply was solved once, where every worker reads it
    monkeypatch.setattr(response, "solve", lambda *a, **k: pytest.fail("the cached reply was solved again"))

    def like_fresh_workers(function, jobs):  # chunks run last first, each reading the reply anew, as a worker would
        done = []
        for args in reversed(jobs):
            teacher.reply_for.cache_clear()
            done.append(function(*args))
        return reversed(done)

    again, _, how = player.train(SMALL, 3, settings, mapper=like_fresh_workers, retrain=True)
    assert how == "trained" and again.to_bytes() == model.to_bytes()
    key = lifecycle.model_key(learned.Learned, SMALL, 3, settings)
    assert cache.load(path, key, learned.n_features(SMALL, 3), 1).to_bytes() == model.to_bytes()
