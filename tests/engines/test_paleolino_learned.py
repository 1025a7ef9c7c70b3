"""Paleolino's learned player: features of the table's view only, legal choices, seeding and the shipped models."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from boardlab.engines import core
from boardlab.engines.expert import Rollout
from boardlab.engines.learned import cache, lifecycle, store, training
from boardlab.engines.learned.choice import Featured
from boardlab.engines.learned.model import ValueModel
from boardlab.engines.paleolino import POLICIES, Params, features, learned
from boardlab.engines.paleolino.decisions import CAVE, KEEP, Point
from boardlab.engines.paleolino.rules import play_with
from boardlab.experiments.cli import app
from tests.engines.paleolino_points import points_at

Player = POLICIES["learned"].impl
SPEC = learned.SPEC
TINY = replace(SPEC.settings, games=60, rounds=2, hidden=(4,), epochs=1, sweeps=1, chunk_games=30)
SHIPPED_MEMORY = (0.0, 1.0)  #: the 2-player models that ship


def random_model(params: Params, players: int = 2, seed: int = 0) -> ValueModel:
    rng = np.random.default_rng(seed)
    shapes = [(features.n_features(params, players), 8), (8, 1)]
    return ValueModel(
        tuple(rng.normal(size=s).astype(np.float32) for s in shapes),
        tuple(rng.normal(size=s[1]).astype(np.float32) for s in shapes),
    )


def other_truth(point: Point, seed: int) -> Point:
    """The same positions with what no seat sees redrawn: unremembered chips in caves, cards under the tops."""
    other = point.take(np.arange(len(point.state.game)))
    other.determinise(core.StreamSource(np.arange(len(point.state.game), dtype=np.uint64) + np.uint64(seed)))
    return other


@pytest.mark.parametrize("stage", [CAVE, KEEP])
def test_features_and_choices_ignore_what_no_seat_sees(stage: int) -> None:
    params = Params(memory=0.4)
    point = points_at(params, stage, turn=5)
    other = other_truth(point, 99)
    assert (other.state.caves != point.state.caves).any()  # the hidden truth really differs ...
    assert (other.state.deck != point.state.deck).any()
    got = point.features()
    assert got.shape == (len(point.state.game), features.n_features(params, 2)) and np.isfinite(got).all()
    np.testing.assert_array_equal(other.features(), got)  # ... and neither features nor choices see it
    np.testing.assert_array_equal(point.features(np.ones(len(got), dtype=np.int64)), got)  # one table view
    model = random_model(params)
    np.testing.assert_array_equal(learned.choose(other, model), learned.choose(point, model))
    after = point.take(np.arange(len(got)))
    after.apply(learned.choose(point, model))
    assert not np.array_equal(after.features(), got)  # the phase and what was opened or kept show


def test_a_remembered_cave_is_valued_exactly() -> None:
    params = Params()  # memory 1: nothing to redraw
    point = points_at(params, CAVE, turn=4)
    model = random_model(params, seed=3)
    values = learned.cave_values(point, model)
    for cave in range(params.caves):
        after = point.take(np.arange(len(point.state.game)))
        after.apply(np.full(len(point.state.game), cave))
        np.testing.assert_allclose(values[:, cave], model.predict(after.features()), rtol=1e-6)


@pytest.mark.parametrize("players", [1, 2, 3])
def test_every_decision_point_is_featured_and_every_choice_legal(players: int) -> None:
    params = Params(memory=0.5)
    model, seen = random_model(params, players), set()

    def checked(point: Point, games: np.ndarray, propose) -> np.ndarray:
        assert isinstance(point, Featured)
        chosen = learned.choose(point, model)
        assert point.legal()[np.arange(len(chosen)), chosen].all()
        seen.add(point.stage)
        return chosen

    player = Player(params, decide=checked)
    out = play_with(params, [player] * players, 40, np.random.default_rng(3))
    assert seen == {CAVE, KEEP} and out["won"].dtype == bool


def test_the_model_decides_and_differs_between_models() -> None:
    params = Params(memory=0.5)
    point = points_at(params, CAVE, turn=6)
    one, two = learned.choose(point, random_model(params, seed=1)), learned.choose(point, random_model(params, seed=2))
    assert not np.array_equal(one, two)
    np.testing.assert_array_equal(learned.choose(point, random_model(params, seed=1)), one)


def test_same_seed_same_model_bytes_with_tiny_settings() -> None:
    params, sampler = Params(memory=0.5), lifecycle.sampler(Player)

    def backwards(function, jobs):  # runs the chunks in reverse and yields them in order, as workers would
        return reversed([function(*args) for args in reversed(jobs)])

    first = training.train(sampler, params, 2, TINY).to_bytes()
    assert training.train(sampler, params, 2, TINY, backwards).to_bytes() == first
    assert training.train(sampler, params, 2, replace(TINY, seed=1)).to_bytes() != first


def test_simulate_train_gives_the_same_bytes_for_jobs_1_and_2(tmp_path: Path, monkeypatch) -> None:
    blobs = []
    for jobs in ("1", "2"):
        monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path / jobs))
        args = ["train", "paleolino", "--players", "2", "--set", "goal=3", "--games", "40", "--jobs", jobs, "--json"]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        blobs.append(Path(json.loads(result.stdout)["path"]).read_bytes())
    assert blobs[0] == blobs[1]


def test_the_cache_key_holds_every_setting_and_the_versions() -> None:
    key = lifecycle.model_key(Player, Params(), 2, SPEC.settings)
    assert key["features"] == SPEC.features and key["unit"] == SPEC.unit
    assert key["training"] == SPEC.settings.as_key() and key["sampling"]["samples"] == learned.SAMPLES
    assert lifecycle.model_key(Player, Params(), 2, replace(SPEC.settings, epochs=3)) != key
    assert lifecycle.model_key(Player, Params(memory=0.0), 2, SPEC.settings) != key


@pytest.mark.parametrize("memory", SHIPPED_MEMORY)
def test_the_shipped_models_load_and_play(memory: float, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("BOARDLAB_TRAIN", "0")
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path))
    params = Params(memory=memory)
    model, path, how = store.obtain(lifecycle.request(Player, params, 2, SPEC.settings))
    assert how == "shipped" and path.parent == SPEC.shipped
    out = play_with(params, [Player(params, {2: model})] * 2, 300, np.random.default_rng(6))
    assert out["won"].mean() > 0.25  # a random table wins about 15%
    with pytest.raises(ValueError, match="BOARDLAB_TRAIN=0"):
        store.obtain(lifecycle.request(Player, Params(memory=0.3), 2, SPEC.settings))


def test_a_corrupt_shipped_model_is_refused(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("BOARDLAB_TRAIN", "0")
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path / "cache"))
    params = Params()
    key = lifecycle.model_key(Player, params, 2, SPEC.settings)
    blob = bytearray((SPEC.shipped / cache.file_name(key)).read_bytes())
    blob[-100] ^= 0xFF
    (tmp_path / cache.file_name(key)).write_bytes(bytes(blob))
    monkeypatch.setattr(Player, "spec", replace(SPEC, shipped=tmp_path))
    with pytest.raises(ValueError, match=r"unusable .*checksum"):
        store.obtain(lifecycle.request(Player, params, 2, SPEC.settings))


def test_the_expert_rolls_out_with_learned(monkeypatch) -> None:
    monkeypatch.setenv("BOARDLAB_TRAIN", "0")  # the shipped model plays out
    params = Params()
    (expert,) = core.policy_instances(POLICIES, ["expert:4@learned"], params)
    assert expert.decide.rollout == "learned" and expert.decide.search(2).playouts == 4
    assert isinstance(POLICIES["expert"].parse_arg("4@learned"), Rollout)
    expert.prepare(2)
    point = points_at(params, CAVE, turn=3, n=6)
    chosen = expert.decide(point, np.arange(6), point.legal().argmax)
    assert point.legal()[np.arange(6), chosen].all()
