"""The value network's layer as a compiled loop whose float32 sums run in one fixed order on every CPU.

A BLAS matrix product picks its kernel by the CPU (OpenBLAS: Haswell, SkylakeX, ...) and sums in that kernel's
order, so the same model gives values that differ in the last bits from machine to machine; where two candidates
are valued almost alike, the choice, and so the game, then depends on the machine (measured: a Paleolino run of
two learned seats gave other games under OpenBLAS's SkylakeX kernel than under its Haswell one). Here each output
is the sum of its products taken over the inputs in their order, one multiplication and one addition at a time
(numba leaves fast-math off, so no reordering and no fused multiply-add), then the bias: a seed plays the same
games on every machine, a Dask cluster's workers included. Four rows share each weight row's loads, and inputs
that are zero in all four are skipped: adding a zero product leaves a sum as it is (a sum that starts at +0 never
becomes -0), so skipping changes no bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def layer(inputs: np.ndarray, weights: np.ndarray, biases: np.ndarray, relu: bool) -> np.ndarray:
    """``(N, outputs)`` float32: ``inputs @ weights + biases`` summed over the inputs in order, then ReLU if asked."""
    rows, n_in = inputs.shape
    n_out = weights.shape[1]
    out = np.zeros((rows, n_out), dtype=np.float32)
    blocked = rows - rows % 4
    for i in range(0, blocked, 4):
        a0, a1, a2, a3 = out[i], out[i + 1], out[i + 2], out[i + 3]
        for k in range(n_in):
            x0, x1, x2, x3 = inputs[i, k], inputs[i + 1, k], inputs[i + 2, k], inputs[i + 3, k]
            if x0 == 0.0 and x1 == 0.0 and x2 == 0.0 and x3 == 0.0:
                continue
            w = weights[k]
            for j in range(n_out):
                a0[j] += x0 * w[j]
                a1[j] += x1 * w[j]
                a2[j] += x2 * w[j]
                a3[j] += x3 * w[j]
    for i in range(blocked, rows):
        a = out[i]
        for k in range(n_in):
            x = inputs[i, k]
            if x == 0.0:
                continue
            w = weights[k]
            for j in range(n_out):
                a[j] += x * w[j]
    for i in range(rows):
        for j in range(n_out):
            value = out[i, j] + biases[j]
            out[i, j] = max(value, np.float32(0.0)) if relu else value
    return out
