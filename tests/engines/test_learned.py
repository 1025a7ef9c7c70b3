"""The game-agnostic learned-player core: the value model, its files, the store and the training loop."""

from __future__ import annotations

import numpy as np
import pytest

from boardlab.engines.learned import cache, store, training
from boardlab.engines.learned.model import ValueModel
from boardlab.engines.pantolino import Params

KEY = {"game": "toy", "players": 2, "knobs": {"a": 1}, "format": 1}
WIDTH = 3


class Toy:
    """A sampler whose positions are random features and whose value is a fixed smooth function of them."""

    def n_features(self, params, players):
        return WIDTH

    def n_outputs(self, players):
        return 1

    def samples(self, params, players, model, n_games, rng):
        features = rng.random((n_games, WIDTH)).astype(np.float32)
        return features, (0.2 + 0.6 * features[:, 0] * features[:, 1]).astype(np.float32), np.arange(n_games)

    def backups(self, params, players, model, positions, mapper):
        return None


SMALL = training.Settings(games=4_000, rounds=2, hidden=(8,), epochs=40, chunk_games=1_000)


def toy_model() -> ValueModel:
    return training.train(Toy(), Params(), 2, SMALL)


def reversed_mapper(function, jobs):
    """Runs the chunks last first (as workers may finish), yielding results in chunk order."""
    results = [function(*args) for args in reversed(jobs)]
    return reversed(results)


def test_training_is_deterministic_and_independent_of_chunk_order() -> None:
    first, again = toy_model(), training.train(Toy(), Params(), 2, SMALL, reversed_mapper)
    assert first.to_bytes() == again.to_bytes()
    other = training.train(Toy(), Params(), 2, training.Settings(**{**SMALL.__dict__, "seed": 1}))
    assert other.to_bytes() != first.to_bytes()
    x = np.random.default_rng(9).random((500, WIDTH)).astype(np.float32)
    assert np.abs(first.predict(x) - (0.2 + 0.6 * x[:, 0] * x[:, 1])).mean() < 0.05  # it learned the function


def test_chunks_draw_from_spawned_seed_sequences() -> None:
    class Spy(Toy):
        def samples(self, params, players, model, n_games, rng):
            return rng.random((1, WIDTH)), np.zeros(1), np.zeros(1)

    got = training.play_chunk(Spy(), Params(), 2, None, 1, 5, 3)[0]
    expected = np.random.default_rng(np.random.SeedSequence(5, spawn_key=(3,))).random((1, WIDTH))
    np.testing.assert_array_equal(got, expected)


def test_a_round_whose_samples_would_pass_the_memory_bound_stops_after_its_first_chunk(monkeypatch) -> None:
    chunks = []

    class Counting(Toy):
        def samples(self, params, players, model, n_games, rng):
            chunks.append(n_games)
            return super().samples(params, players, model, n_games, rng)

    one_chunk = training.held_bytes(Toy().samples(Params(), 2, None, 1_000, np.random.default_rng(0)))
    assert one_chunk == 1_000 * (WIDTH * 4 + 4 + 8)  # features, targets and positions
    monkeypatch.setattr(training, "MAX_ROUND_BYTES", 2 * one_chunk - 1)  # a round of 2,000 games needs 2 chunks
    with pytest.raises(ValueError, match=r"(?s)first 1,000 of 2,000 games.*train on fewer games"):
        training.train(Counting(), Params(), 2, SMALL)
    assert chunks == [1_000]  # refused before the second chunk was played
    monkeypatch.setattr(training, "MAX_ROUND_BYTES", 2 * one_chunk)
    assert training.train(Toy(), Params(), 2, SMALL).to_bytes() == toy_model().to_bytes()


def test_held_bytes_counts_each_buffer_in_tuples_lists_and_dataclasses_once() -> None:
    from dataclasses import dataclass

    @dataclass
    class Held:
        a: np.ndarray
        b: list

    part = (np.zeros(3, np.float32), Held(np.zeros(2), [np.zeros(5, np.int8), "text", 7]))
    assert training.held_bytes(part) == 12 + 16 + 5
    shared = np.zeros((4, 10), np.float32)  # the samples' features, also held by the positions
    assert training.held_bytes((shared, np.zeros(4, np.float32), Held(shared, [shared[1:]]))) == 160 + 16


def test_model_files_round_trip_and_refuse_what_is_wrong() -> None:
    model = toy_model()
    blob = cache.encode(KEY, model)
    assert cache.decode(blob, KEY, WIDTH).to_bytes() == model.to_bytes()
    header, _, data = blob.partition(b"\n")
    broken = bytearray(data)
    broken[len(broken) // 2] ^= 0xFF
    cases = {
        "another setting": (blob, {**KEY, "players": 3}, WIDTH),
        "checksum": (header + b"\n" + bytes(broken), KEY, WIDTH),
        "not a learned-model file": (b"garbage", KEY, WIDTH),
        "does not take 4 inputs": (blob, KEY, WIDTH + 1),
    }
    for message, (data_in, key, width) in cases.items():
        with pytest.raises(ValueError, match=message):
            cache.decode(data_in, key, width)
    with pytest.raises(ValueError, match=r"does not end in 2 output\(s\)"):
        cache.decode(blob, KEY, WIDTH, 2)
    bad = ValueModel((model.weights[0] * np.nan, *model.weights[1:]), model.biases)
    with pytest.raises(ValueError, match="non-finite"):
        ValueModel.from_bytes(bad.to_bytes(), WIDTH)


def test_inference_zeroes_negligible_weights_and_keeps_the_file_s_weights() -> None:
    tiny = np.finfo(np.float32).tiny  # the smallest normal float32: below it, and 1e-25, are negligible
    weights = (np.array([[1.0, tiny / 4], [-tiny / 8, 0.5]], np.float32), np.array([[2.0], [1e-25]], np.float32))
    biases = (np.array([0.0, tiny / 16], np.float32), np.array([0.1], np.float32))
    model = ValueModel(weights, biases)
    for (w, b), (w_file, b_file) in zip(model.inference_layers, zip(weights, biases, strict=True), strict=True):
        assert np.array_equal(w, np.where(np.abs(w_file) < 1e-20, 0.0, w_file))
        assert np.array_equal(b, np.where(np.abs(b_file) < 1e-20, 0.0, b_file))
    assert model.weights[0][0, 1] == tiny / 4 and model.biases[0][1] == tiny / 16  # the file keeps what fitting gave
    features = np.array([[0.25, 0.5], [0.0, 0.0]], np.float32)
    np.testing.assert_allclose(model.predict(features), [0.1 + 2 * 0.25, 0.1], rtol=1e-6)


def test_the_store_trains_once_rebuilds_corrupt_files_and_refuses_when_told(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path))
    said = []
    model, path, how = store.obtain(store.Request(Toy(), KEY, Params(), 2, SMALL), say=said.append)
    assert how == "trained" and len(said) == 1 and path.parent == tmp_path
    assert store.obtain(store.Request(Toy(), KEY, Params(), 2, SMALL))[2] == "cached"
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    (shipped / path.name).write_bytes(path.read_bytes())
    assert store.obtain(store.Request(Toy(), KEY, Params(), 2, SMALL, shipped=shipped))[2] == "shipped"
    path.write_bytes(b"corrupt")
    monkeypatch.setenv("BOARDLAB_TRAIN", "0")
    with pytest.raises(ValueError, match=r"unusable.*BOARDLAB_TRAIN=0 forbids training; run `simulate train toy"):
        store.obtain(store.Request(Toy(), KEY, Params(), 2, SMALL))
    monkeypatch.delenv("BOARDLAB_TRAIN")
    rebuilt, _, how = store.obtain(store.Request(Toy(), KEY, Params(), 2, SMALL), say=said.append)
    assert how == "trained" and rebuilt.to_bytes() == model.to_bytes()
    assert "unusable (not a learned-model file)" in said[-1]


class NoTraining(Toy):
    """A Toy whose samples must never be asked for: the store has to refuse before it trains."""

    def samples(self, params, players, model, n_games, rng):
        raise AssertionError("trained although the store should have refused first")


def test_the_store_refuses_a_bad_training_switch_or_an_unusable_cache_before_training(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path))
    for typo in ("maybe", "no", "2"):
        monkeypatch.setenv("BOARDLAB_TRAIN", typo)
        with pytest.raises(ValueError, match=rf"^BOARDLAB_TRAIN='{typo}' must be 0 \(no training\) or 1"):
            store.obtain(store.Request(NoTraining(), KEY, Params(), 2, SMALL))
    monkeypatch.setenv("BOARDLAB_TRAIN", "1")
    blocker = tmp_path / "a-file"
    blocker.write_text("in the way")
    monkeypatch.setenv("BOARDLAB_CACHE", str(blocker / "models"))
    said = []
    with pytest.raises(
        ValueError, match=r"^the cache folder .*a-file/models cannot be used \(.+\); set BOARDLAB_CACHE"
    ):
        store.obtain(store.Request(NoTraining(), KEY, Params(), 2, SMALL), say=said.append)
    assert said == []  # nothing announced: no training started


class ToySearch(Toy):
    """A Toy that also offers search samples, valued by another function (so the search rounds' fit shows)."""

    def search_samples(self, params, players, model, n_games, rng, playouts):
        assert model is not None and playouts == SEARCHED.search_playouts
        features = rng.random((n_games, WIDTH)).astype(np.float32)
        return features, (0.9 - 0.6 * features[:, 2]).astype(np.float32)


SEARCHED = training.Settings(**{**SMALL.__dict__, "search_rounds": 2, "search_games": 6_000, "search_playouts": 5})


def test_expert_iteration_rounds_refit_on_the_search_values_and_enter_the_key() -> None:
    rounds = []
    model = training.train(ToySearch(), Params(), 2, SEARCHED, each_round=lambda n, m: rounds.append((n, m)))
    assert [n for n, _ in rounds] == [0, 1, 2, 3] and rounds[-1][1] is model
    x = np.random.default_rng(9).random((500, WIDTH)).astype(np.float32)
    assert np.abs(rounds[1][1].predict(x) - (0.2 + 0.6 * x[:, 0] * x[:, 1])).mean() < 0.05  # self-play's values
    assert np.abs(model.predict(x) - (0.9 - 0.6 * x[:, 2])).mean() < 0.05  # then the search's
    seen = []
    again = training.train(ToySearch(), Params(), 2, SEARCHED, reversed_mapper, lambda *done: seen.append(done))
    total = SEARCHED.games + SEARCHED.search_rounds * SEARCHED.search_games
    assert seen[-1] == (total, total) and len(seen) == 4 + 2 * 6  # every chunk of every round counted
    assert again.to_bytes() == model.to_bytes()
    assert "search_rounds" not in SMALL.as_key() and SEARCHED.as_key()["search_playouts"] == 5
    with pytest.raises(ValueError, match="search_rounds needs"):
        training.train(Toy(), Params(), 2, SEARCHED)


class NoisyToy(Toy):
    """:class:`Toy` whose targets are outcomes: the smooth value plus noise, as a game's returns are."""

    def samples(self, params, players, model, n_games, rng):
        features, value, positions = super().samples(params, players, model, n_games, rng)
        return features, (value + rng.normal(0, 0.3, n_games)).astype(np.float32), positions


ANNEALED = training.Settings(**{**SMALL.__dict__, "games": 40_000, "epochs": 4, "anneal_epochs": 3})


def test_closing_passes_at_a_tenth_of_the_rate_come_last_and_enter_the_key(monkeypatch) -> None:
    calls, fit = [], training.fit

    def spy(net, features, targets, epochs, rate=training.LEARNING_RATE):
        calls.append((len(features), epochs, rate))
        return fit(net, features, targets, epochs, rate)

    monkeypatch.setattr(training, "fit", spy)
    rounds = []
    model = training.train(NoisyToy(), Params(), 2, ANNEALED, each_round=lambda n, m: rounds.append((n, m)))
    assert [n for n, _ in rounds] == [0, 1, 2] and rounds[-1][1] is model
    half, rate = ANNEALED.games // 2, training.LEARNING_RATE
    assert calls == [(half, 4, rate), (half, 4, rate), (ANNEALED.games, 3, rate / 10)]  # every round's samples
    x = np.random.default_rng(9).random((5_000, WIDTH)).astype(np.float32)

    def error(m: ValueModel) -> float:
        return float(np.abs(m.predict(x) - (0.2 + 0.6 * x[:, 0] * x[:, 1])).mean())

    assert error(model) < error(rounds[1][1])  # the full rate's last steps left the values noisy
    assert training.train(NoisyToy(), Params(), 2, ANNEALED, reversed_mapper).to_bytes() == model.to_bytes()
    assert "anneal_epochs" not in SMALL.as_key() and ANNEALED.as_key()["anneal_epochs"] == 3
    with pytest.raises(ValueError, match="anneal_epochs needs the network family"):
        training.fitter_for(training.Settings(family="ntuple", anneal_epochs=1), tuples=object())
