"""The value network's layer: every output summed in one fixed order, whatever the batch and the CPU."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from boardlab.engines.learned.dense import layer


def in_order(inputs: np.ndarray, weights: np.ndarray, biases: np.ndarray, relu: bool) -> np.ndarray:
    """The layer by numpy's elementwise float32 operations (each correctly rounded), one input after another."""
    acc = np.zeros((inputs.shape[0], weights.shape[1]), dtype=np.float32)
    for k in range(inputs.shape[1]):
        acc = acc + inputs[:, k : k + 1] * weights[k]
    acc = acc + biases
    return np.maximum(acc, np.float32(0.0)) if relu else acc


def case(seed: int, rows: int, n_in: int, n_out: int, zeros: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    inputs = rng.standard_normal((rows, n_in)).astype(np.float32)
    inputs[rng.random((rows, n_in)) < zeros] = 0.0
    weights = rng.standard_normal((n_in, n_out)).astype(np.float32)
    return inputs, weights, rng.standard_normal(n_out).astype(np.float32)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    rows=st.integers(0, 23),
    n_in=st.integers(1, 40),
    n_out=st.integers(1, 20),
    zeros=st.sampled_from([0.0, 0.5, 0.95]),
    relu=st.booleans(),
)
def test_every_output_is_its_products_summed_in_input_order_to_the_bit(seed, rows, n_in, n_out, zeros, relu) -> None:
    inputs, weights, biases = case(seed, rows, n_in, n_out, zeros)
    out = layer(inputs, weights, biases, relu)
    assert out.dtype == np.float32 and out.shape == (rows, n_out)
    assert np.array_equal(out, in_order(inputs, weights, biases, relu))


def test_a_row_is_valued_alike_wherever_it_stands_in_the_batch() -> None:
    """Identical positions get identical values (a BLAS product may round a row by where it falls in its tiles)."""
    inputs, weights, biases = case(3, 257, 67, 64, 0.5)
    inputs[100:140] = inputs[7]  # one position, forty times, across blocks of four and the remainder
    out = layer(inputs, weights, biases, True)
    assert (out[100:140] == out[7]).all()
    order = np.random.default_rng(4).permutation(len(inputs))
    assert np.array_equal(layer(inputs[order], weights, biases, True), out[order])
    assert np.array_equal(layer(inputs[:5], weights, biases, True), out[:5])


def test_the_layer_agrees_with_a_float64_product_to_float32_rounding() -> None:
    inputs, weights, biases = case(5, 1000, 99, 64, 0.3)
    exact = inputs.astype(np.float64) @ weights.astype(np.float64) + biases
    scale = np.abs(inputs).astype(np.float64) @ np.abs(weights).astype(np.float64) + np.abs(biases)
    assert (np.abs(layer(inputs, weights, biases, False) - exact) <= 1e-5 * scale).all()
