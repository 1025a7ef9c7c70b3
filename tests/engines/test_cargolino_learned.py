"""Cargolino's learned player: features from the deciding seat's view only, legal choices, seeding, shipped models."""

from __future__ import annotations

import shutil
from dataclasses import replace

import numpy as np
import pytest

from boardlab.engines import core, expert
from boardlab.engines.cargolino import POLICIES, Params, decisions, features, learned, rules
from boardlab.engines.expert import Rollout
from boardlab.engines.learned import cache, lifecycle, store, training
from boardlab.engines.learned.choice import Featured, best_candidates, choose, guarded_candidates
from boardlab.engines.learned.model import ValueModel

Player = POLICIES["learned"].impl
SPEC = learned.SPEC
TINY = replace(SPEC.settings[2], games=40, rounds=2, hidden=(4,), epochs=1, sweeps=1, chunk_games=20)


def random_model(params: Params, players: int, seed: int = 0) -> ValueModel:
    rng = np.random.default_rng(seed)
    shapes = [(features.n_features(params, players), 8), (8, 1)]
    return ValueModel(
        tuple(rng.normal(size=s).astype(np.float32) for s in shapes),
        tuple(rng.normal(size=s[1]).astype(np.float32) for s in shapes),
    )


def seat0_decision(players: int, swap: bool, learner: object, turns: int = 7, n: int = 32) -> rules.Step:
    """The first die of a seat-0 turn in ``n`` games after ``turns`` hindmost turns, ``learner`` in seat 0.

    ``swap`` re-deals the tokens of every other seat among the snails seat 0 does not hold (the hidden truth), as
    the expert's invariance test does; seat 0's belief comes from the same public moves either way.
    """
    params = Params()
    pushers = core.policy_instances(POLICIES, ["hindmost"] * players, params)
    table = rules.Table.of(params, [learner, *pushers[1:]], core.as_source(np.random.default_rng(3)))
    state = rules.State.initial(players, n, table.n_beliefs, table.hyps.size)
    rules.start_races(table, state, np.arange(n))
    for _ in range(turns):
        rules.play_turn(table, pushers, state)
        state.race_turn += 1
    state.starter[:] = (-state.race_turn) % players  # seat 0 moves next
    if swap:
        for g in range(n):
            others = [s for s in range(6) if state.owner[g, s] != 0]
            state.owner[g, others] = np.roll(state.owner[g, others].copy(), 1)
            state.held[g] = [sum(1 << s for s in range(6) if state.owner[g, s] == p) for p in range(players)]
    mover, code = rules.roll(table, state)
    assert (mover == 0).all()
    return rules.Step(table, state, slice(None), mover, state.held[:, 0].copy(), code, 0)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_features_are_the_deciding_seats_view(players: int) -> None:
    params = Params()
    learner = Player(params, {players: random_model(params, players)})
    step = seat0_decision(players, False, learner)
    point = decisions.Point.at(step, POLICIES, truth=False, keep=True)
    assert isinstance(point, Featured)
    got = point.features()
    assert got.shape == (32, features.n_features(params, players)) and np.isfinite(got).all()
    plain = decisions.Point.at(step, POLICIES, truth=False)  # holdings worked out per call: the same
    np.testing.assert_array_equal(plain.features(), got)
    hold = point.holdings()
    np.testing.assert_allclose(hold.sum(axis=2), params.each(players))  # every seat holds its tokens
    np.testing.assert_array_equal(hold[:, 0] > 0.5, step.own_snails)  # its own exactly
    assert ((hold[:, 1:] > 0) & (hold[:, 1:] < 1)).any()  # the others only believed
    with pytest.raises(ValueError, match="only for its mover"):
        point.features(np.ones(32, dtype=np.int64))


def test_seats_are_numbered_from_the_viewer() -> None:
    # relabelling the seats (each p as p + 1) with the viewer changes nothing the viewer sees
    params, rng = Params(), np.random.default_rng(4)
    n, players = 50, 4
    pos = rng.integers(0, params.tables.n_pos, (n, 6)).astype(np.int8)
    code = rng.integers(0, 1 << 12, n)
    banked, race = rng.integers(0, 6, (n, players)).astype(np.int32), rng.integers(0, 2, n).astype(np.int8)
    viewer = rng.integers(0, players, n)
    hold = rng.dirichlet(np.ones(players + 1), (n, 6))[:, :, :players].transpose(0, 2, 1)
    got = features.features_of(params, pos, code, banked, race, viewer, hold)
    turned = features.features_of(
        params, pos, code, np.roll(banked, 1, axis=1), race, (viewer + 1) % players, np.roll(hold, 1, axis=1)
    )
    np.testing.assert_array_equal(turned, got)
    assert not np.array_equal(features.features_of(params, pos, code, banked, race, (viewer + 1) % 4, hold), got)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_the_learned_choice_ignores_the_hidden_deal(players: int) -> None:
    # the same games with the other seats' tokens re-dealt: the same features and the same choices ...
    params = Params()
    learner = Player(params, {players: random_model(params, players)})
    same, swapped = (seat0_decision(players, swap, learner) for swap in (False, True))
    assert not np.array_equal(same.state.owner, swapped.state.owner)
    for truth, equal in ((False, True), (True, False)):  # ... while the true deal would change them
        seen = [decisions.Point.at(s, POLICIES, truth=truth, keep=True).features() for s in (same, swapped)]
        assert np.array_equal(*seen) == equal
    choices = [np.stack(learner.choose(s)) for s in (same, swapped)]
    np.testing.assert_array_equal(*choices)
    shipped = Player(params)
    np.testing.assert_array_equal(np.stack(shipped.choose(same)), np.stack(shipped.choose(swapped)))


def test_with_a_margin_the_baseline_moves_unless_the_model_clearly_prefers_another() -> None:
    params = Params()
    model = random_model(params, 4)
    learner = Player(params, {4: model})
    step = seat0_decision(4, False, learner, n=200)
    point = decisions.Point.at(step, POLICIES, truth=False, keep=True)
    legal, default, best = point.legal(), point.suggest("detective"), best_candidates(point, model)
    assert legal[np.arange(200), default].all() and (default != best).any()
    np.testing.assert_array_equal(guarded_candidates(point, model, default, np.inf), default)  # never overruled
    np.testing.assert_array_equal(guarded_candidates(point, model, np.full(200, -1), np.inf), best)  # not legal: best
    rows, candidates = np.nonzero(legal)
    after = point.take(rows)
    after.apply(candidates)
    values = np.full(legal.shape, -np.inf)
    values[rows, candidates] = model.predict(after.features(point.seat[rows]))
    value = lambda chosen: values[np.arange(200), chosen]  # noqa: E731
    margin = float(np.median(value(best) - value(default)))  # overrules about half of the rows that differ
    got = guarded_candidates(point, model, default, margin)
    np.testing.assert_array_equal(got, np.where(value(best) > value(default) + margin, best, default))
    assert (got == best).any() and (got != best).any()
    assert SPEC.margin[2] == 0 and SPEC.margin[4] > 0 and SPEC.margin[6] > 0  # 2 players: the model's best
    chosen = learner.choose(step)  # the player: the detective's move unless the model clearly prefers another
    want = guarded_candidates(point, model, default, SPEC.margin[4])
    np.testing.assert_array_equal(chosen[0] * 6 + chosen[1], want)


def test_every_choice_is_legal_and_the_model_decides() -> None:
    params, calls = Params(), []
    model = random_model(params, 2)

    def checked(point, games, propose):
        assert isinstance(point, decisions.Point)
        chosen = choose(point, model)
        assert point.legal()[np.arange(len(chosen)), chosen].all()
        calls.append(len(chosen))
        return chosen

    player = Player(params, decide=checked)
    out = rules.play_with(params, [player, player], 30, np.random.default_rng(5))
    assert sum(calls) > 30 * 50 and not out["capped"].any()
    one = [Player(params, {2: random_model(params, 2, seed)}) for seed in (1, 2, 1)]
    step = seat0_decision(2, False, one[0], n=200)
    first = np.stack(one[0].choose(step))
    assert not np.array_equal(np.stack(one[1].choose(step)), first)
    np.testing.assert_array_equal(np.stack(one[2].choose(step)), first)


def test_same_seed_same_model_bytes_with_tiny_settings() -> None:
    params, sampler = Params(), lifecycle.sampler(Player)

    def backwards(function, jobs):  # runs the chunks in reverse and yields them in order, as workers would
        return reversed([function(*args) for args in reversed(jobs)])

    first = training.train(sampler, params, 2, TINY).to_bytes()
    assert training.train(sampler, params, 2, TINY, backwards).to_bytes() == first
    assert training.train(sampler, params, 2, replace(TINY, seed=1)).to_bytes() != first


def test_the_cache_key_holds_every_setting_and_the_versions() -> None:
    key = lifecycle.model_key(Player, Params(), 2, SPEC.settings[2])
    assert key["features"] == SPEC.features and key["unit"] == SPEC.unit
    assert key["training"] == SPEC.settings[2].as_key() and key["sampling"]["lambda"] == SPEC.sampling.lam
    assert key["sampling"]["baseline"] == "detective"
    assert lifecycle.model_key(Player, Params(), 2, replace(SPEC.settings[2], epochs=3)) != key
    assert lifecycle.model_key(Player, Params(races=3), 2, SPEC.settings[2]) != key
    assert Player.settings(Params(), 3) == SPEC.settings[2] and Player.settings(Params(), 5) == SPEC.settings[4]


@pytest.mark.parametrize("players", [2, 4, 6])
def test_the_shipped_models_load(players: int, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("BOARDLAB_TRAIN", "0")
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path))
    model, path, how = store.obtain(lifecycle.request(Player, Params(), players, Player.settings(Params(), players)))
    assert how == "shipped" and path.parent == SPEC.shipped
    assert model.n_features == features.n_features(Params(), players)


def test_a_corrupt_or_foreign_model_is_refused(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("BOARDLAB_TRAIN", "0")
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path / "cache"))
    params = Params()
    settings = Player.settings(params, 2)
    _, path, _ = store.obtain(lifecycle.request(Player, params, 2, settings))
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    blob = bytearray(path.read_bytes())
    blob[-10] ^= 0xFF
    (shipped / path.name).write_bytes(bytes(blob))
    monkeypatch.setattr(Player, "spec", replace(SPEC, shipped=shipped))
    with pytest.raises(ValueError, match=r"unusable .*checksum mismatch"):
        store.obtain(lifecycle.request(Player, params, 2, settings))
    shutil.copy(path, shipped / cache.file_name(lifecycle.model_key(Player, Params(races=1), 2, settings)))
    with pytest.raises(ValueError, match=r"unusable .*another setting"):
        store.obtain(lifecycle.request(Player, Params(races=1), 2, settings))


def test_the_expert_rolls_out_with_learned() -> None:
    params = Params()
    assert isinstance(POLICIES["expert"].parse_arg("2@learned"), Rollout)
    (expert,) = core.policy_instances(POLICIES, ["expert:2@learned"], params)
    search = expert.decide.searcher  # the belief expert's decide function hides or searches
    assert search.rollout == "learned" and search.search(2).playouts == 2
    step = seat0_decision(2, False, expert, turns=20, n=4)
    snail, colour = expert.choose(step)
    assert ((step.legal[np.arange(4), snail] >> colour) & 1).all()


def test_expert_iterations_search_values_ignore_the_hidden_deal() -> None:
    # the targets expert iteration learns from: the other seats' tokens re-dealt, the same values per candidate
    params, players = Params(), 2
    learner = Player(params, {players: random_model(params, players)})
    same, swapped = (seat0_decision(players, swap, learner) for swap in (False, True))
    points = [decisions.Point.at(s, POLICIES, truth=False, keep=True) for s in (same, swapped)]
    values = [expert.candidate_values(p, "detective", 4) for p in points]
    np.testing.assert_array_equal(*values)
    assert np.isfinite(values[0]).any() and len(np.unique(values[0][np.isfinite(values[0])])) > 1
