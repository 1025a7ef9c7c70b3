"""The n-tuple value model: its tuples' cells, the fit, its bytes and their checks, training with it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from boardlab.engines.learned import cache, store, training
from boardlab.engines.learned.ntuple import Group, Input, LeastSquares, Spec, TupleModel, fit
from boardlab.engines.pantolino import INFO, Params
from tests.engines.test_learned import Toy, reversed_mapper

WIDTH = 4
LEVEL = Input((0,), (4.0,), 0.0, 5)  # feature 0 in [0, 1] as a code 0..4
BITS = Input((2, 3), (1.0, 2.0), 0.0, 4)  # two flags as a 2-bit code
SPEC = Spec(
    (
        Group(((LEVEL, BITS),)),
        Group(((Input((1,), (1.0,), 0.0, 2),), (Input((2,), (1.0,), 0.0, 2),))),  # two flags sharing one table
    ),
    WIDTH,
)


def rows(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.c_[rng.random(n), rng.integers(0, 2, (n, 3))].astype(np.float32)


def target(x: np.ndarray) -> np.ndarray:
    """A step function of the codes (no smooth model draws it), in [0.1, 0.9]."""
    return 0.1 + 0.2 * (np.rint(4 * x[:, 0]) == 2) + 0.3 * x[:, 2] * x[:, 3] + 0.1 * x[:, 1] + 0.1 * x[:, 2]


def test_cells_are_the_mixed_radix_codes_of_each_tuple_and_shared_tables_share_cells() -> None:
    x = rows(50, 1)
    index = SPEC.indices(x)
    assert SPEC.cells == 20 + 2 and index.shape == (50, 3)
    np.testing.assert_array_equal(index[:, 0], np.clip(np.rint(4 * x[:, 0]), 0, 4) * 4 + x[:, 2] + 2 * x[:, 3])
    np.testing.assert_array_equal(index[:, 1], 20 + x[:, 1])
    np.testing.assert_array_equal(index[:, 2], 20 + x[:, 2])
    one_hot = SPEC.one_hot(x).toarray()
    assert (one_hot.sum(axis=1) == 3).all() and one_hot[:, 20:].sum(axis=1).tolist() == [2] * 50


def test_codes_are_clipped_to_the_table() -> None:
    x = np.array([[-3.0, 0, 0, 0], [7.0, 1, 1, 1]], np.float32)
    np.testing.assert_array_equal(SPEC.indices(x)[:, 0], [0, 4 * 4 + 3])


def test_a_spec_refuses_tuples_it_cannot_read() -> None:
    with pytest.raises(ValueError, match="same sizes"):
        Spec((Group(((LEVEL,), (BITS,))),), WIDTH)
    with pytest.raises(ValueError, match="does not read"):
        Spec((Group(((Input((WIDTH,), (1.0,), 0.0, 2),),)),), WIDTH)


def test_the_fit_draws_steps_and_is_deterministic() -> None:
    x = rows(4_000, 2)
    model = fit(SPEC, x, target(x), 0.01)
    test = rows(500, 3)
    assert np.abs(model.predict(test) - target(test)).max() < 0.01
    assert fit(SPEC, x, target(x), 0.01).to_bytes() == model.to_bytes()
    two = fit(SPEC, x, np.c_[target(x), 1 - target(x)], 0.01)  # one output per seat
    np.testing.assert_allclose(two.predict_all(test).sum(axis=1), 1.0, atol=0.02)


def test_the_fit_is_the_ridge_solution_with_a_free_bias_and_one_factorisation_serves_many_targets() -> None:
    x = rows(300, 5)
    y = np.c_[target(x), np.random.default_rng(6).random(300)]
    alpha = 0.5
    design = np.c_[SPEC.one_hot(x).toarray(), np.ones(300)]
    penalty = np.diag(np.r_[np.full(SPEC.cells, alpha), 0.0])  # the bias is not penalised
    exact = np.linalg.solve(design.T @ design + penalty, design.T @ y)
    problem = LeastSquares(SPEC, x, alpha)
    for column in (0, 1):
        model = problem.fit(y[:, column])
        np.testing.assert_allclose(np.concatenate(model.tables)[:, 0], exact[:-1, column], atol=1e-5)
        np.testing.assert_allclose(model.bias, exact[-1:, column], atol=1e-5)
        assert model.to_bytes() == fit(SPEC, x, y[:, column], alpha).to_bytes()
    with pytest.raises(ValueError, match="positive"):
        LeastSquares(SPEC, x, 0.0)


def test_a_spec_whose_cells_float32_cannot_number_is_refused() -> None:
    big = Input((0,), (1.0,), 0.0, 1 << 12)
    with pytest.raises(ValueError, match="exceed"):
        Spec((Group(((big, big, Input((1,), (1.0,), 0.0, 2)),)),), WIDTH)


def test_bytes_round_trip_and_a_bad_file_is_refused() -> None:
    x = rows(1_000, 4)
    model = fit(SPEC, x, target(x), 0.1)
    data = model.to_bytes()
    again = TupleModel.from_bytes(data, SPEC)
    assert again.to_bytes() == data
    np.testing.assert_array_equal(again.predict_all(x), model.predict_all(x))
    other = Spec((Group(((LEVEL,),)),), WIDTH)
    bad_values = replace(model, tables=(model.tables[0] * np.nan, model.tables[1]))
    for blob, message in [
        (data[: len(data) // 2], "not a model file"),
        (b"junk", "not a model file"),
        (bad_values.to_bytes(), "non-finite"),
    ]:
        with pytest.raises(ValueError, match=message):
            TupleModel.from_bytes(blob, SPEC)
    with pytest.raises(ValueError, match="tables"):
        TupleModel.from_bytes(data, other)
    with pytest.raises(ValueError, match="output"):
        TupleModel.from_bytes(data, SPEC, 2)
    key = {"game": "toy", "players": 2, "format": "ntuple-1"}
    blob = cache.encode(key, model)
    assert cache.decode(blob, key, WIDTH, tuples=SPEC).to_bytes() == data
    with pytest.raises(ValueError, match="checksum"):
        cache.decode(blob[:-3] + b"xyz", key, WIDTH, tuples=SPEC)


class Steps(Toy):
    """A sampler whose value is :func:`target` of random rows."""

    def n_features(self, params, players):
        return WIDTH

    def samples(self, params, players, model, n_games, rng):
        x = rng.random((n_games, WIDTH)).astype(np.float32)
        x[:, 1:] = np.rint(x[:, 1:])
        return x, target(x).astype(np.float32), np.arange(n_games)


SMALL = training.Settings(games=2_000, rounds=2, chunk_games=500, family="ntuple", ridge=0.01)


def test_training_an_n_tuple_model_is_deterministic() -> None:
    first = training.train(Steps(), Params(), 2, SMALL, tuples=SPEC)
    backwards = training.train(Steps(), Params(), 2, SMALL, reversed_mapper, tuples=SPEC)
    assert backwards.to_bytes() == first.to_bytes()
    assert training.train(Steps(), Params(), 2, replace(SMALL, seed=1), tuples=SPEC).to_bytes() != first.to_bytes()
    test = rows(300, 5)
    assert np.abs(first.predict(test) - target(test)).max() < 0.01
    with pytest.raises(ValueError, match="tuples"):
        training.train(Steps(), Params(), 2, SMALL)
    with pytest.raises(ValueError, match="family"):
        training.train(Steps(), Params(), 2, replace(SMALL, family="forest"))


def test_the_store_keys_reads_and_rebuilds_an_n_tuple_model(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path))
    key = store.model_key(INFO, Params(), 2, 1, 1, SMALL, tuples=SPEC)
    assert key["format"] == "ntuple-2" and key["tuples"] == SPEC.digest() and key["training"]["family"] == "ntuple"
    mlp = store.model_key(INFO, Params(), 2, 1, 1, replace(SMALL, family="mlp"))
    assert "tuples" not in mlp and "family" not in mlp["training"] and "ridge" not in mlp["training"]
    said: list[str] = []
    model, path, how = store.obtain(store.Request(Steps(), key, Params(), 2, SMALL, tuples=SPEC), say=said.append)
    assert how == "trained" and len(said) == 1
    again, _, how = store.obtain(store.Request(Steps(), key, Params(), 2, SMALL, tuples=SPEC))
    assert how == "cached" and again.to_bytes() == model.to_bytes()
    path.write_bytes(path.read_bytes()[:-10])
    rebuilt, _, how = store.obtain(store.Request(Steps(), key, Params(), 2, SMALL, tuples=SPEC), say=said.append)
    assert how == "trained" and "unusable" in said[-1] and "\n" not in said[-1]
    assert rebuilt.to_bytes() == model.to_bytes()
