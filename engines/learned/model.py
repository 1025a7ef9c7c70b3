"""The value model: a small fully connected network whose play-time inference is batched numpy.

It maps a position's features, as the deciding seat sees them, to that seat's predicted share of the win (a
shared win among ``k`` counts ``1/k``), or, with one output per seat, to every seat's share, seats counted from
the viewer (output 0 is the viewer's own). Weights are fitted by scikit-learn (:mod:`engines.learned.training`);
here they are only evaluated and serialised. Inference runs in float32 (a value model's own error is far above
float32 rounding, and half-width arrays halve the memory traffic) through :func:`engines.learned.dense.layer`,
whose sums run in the same order on every CPU, so a position gets the same value on every machine.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
import zlib
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from boardlab.engines.learned.dense import layer

NEGLIGIBLE = 1e-20  #: weights smaller than this are zero at inference (:attr:`ValueModel.inference_layers`)
FORMAT = 1  #: bump when the serialised layout or the meaning of the weights changes: old files are refused


@dataclass(frozen=True)
class ValueModel:
    """Layers ``(weights, bias)``: ReLU between them, the identity at the end, the output clipped to [0, 1]."""

    weights: tuple[np.ndarray, ...]  # layer i: (inputs, outputs) float32
    biases: tuple[np.ndarray, ...]  # layer i: (outputs,) float32

    @property
    def n_features(self) -> int:
        """Inputs the model expects."""
        return self.weights[0].shape[0]

    @property
    def n_outputs(self) -> int:
        """Values per position: 1 (the viewer's share) or one per seat."""
        return self.weights[-1].shape[1]

    def predict(self, features: np.ndarray) -> np.ndarray:
        """The viewer's predicted share of the win for each row of ``features`` (``(N, n_features)``): ``(N,)``."""
        return self.predict_all(features)[:, 0]

    def predict_all(self, features: np.ndarray) -> np.ndarray:
        """Every output for each row of ``features``: ``(N, n_outputs)`` in [0, 1]."""
        h = np.ascontiguousarray(features, dtype=np.float32)
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(self.inference_layers):
            h = layer(h, w, b, i < last)
        return np.clip(h, 0.0, 1.0)

    @cached_property
    def inference_layers(self) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        """The layers as inference reads them: C-ordered float32, weights below :data:`NEGLIGIBLE` set to zero.

        Fitting drives the weights of inputs it found useless towards zero and leaves many of them below float32's
        smallest normal number, or so near it that their products are below it; a CPU multiplies such numbers many
        times slower (in the shipped networks, hundreds a model made inference 78% of a Cargolino game's time). A
        weight below 1e-20 moves no value: a value's float32 step is about 1e-8.
        """
        return tuple((flushed(w), flushed(b)) for w, b in zip(self.weights, self.biases, strict=True))

    def to_bytes(self) -> bytes:
        """The model as ``.npz`` bytes (deterministic: no timestamps, arrays in layer order)."""
        arrays = {f"w{i}": w for i, w in enumerate(self.weights)} | {f"b{i}": b for i, b in enumerate(self.biases)}
        return npz_bytes(arrays, FORMAT)

    @classmethod
    def from_bytes(cls, data: bytes, n_features: int, n_outputs: int = 1) -> ValueModel:
        """Read :meth:`to_bytes` output, checking format, shapes (``n_features`` in, ``n_outputs`` out), values.

        Raises:
            ValueError: naming what is wrong with the data.
        """
        arrays = npz_arrays(data, FORMAT, "model")
        layers = len(arrays) // 2
        try:
            weights = tuple(arrays[f"w{i}"].astype(np.float32) for i in range(layers))
            biases = tuple(arrays[f"b{i}"].astype(np.float32) for i in range(layers))
        except KeyError as error:
            raise ValueError(f"model file lacks layer {error}") from None
        inputs = n_features
        for w, b in zip(weights, biases, strict=True):
            if w.ndim != 2 or w.shape[0] != inputs or b.shape != (w.shape[1],):
                raise ValueError(f"model layer of shape {w.shape} does not take {inputs} inputs")
            inputs = w.shape[1]
        if inputs != n_outputs or not layers:
            raise ValueError(f"model does not end in {n_outputs} output(s)")
        if not all(np.isfinite(a).all() for a in (*weights, *biases)):
            raise ValueError("model has non-finite weights")
        return cls(weights, biases)


def flushed(array: np.ndarray) -> np.ndarray:
    """``array`` as a C-ordered float32 copy with its numbers below :data:`NEGLIGIBLE` in size set to zero."""
    out = np.array(array, dtype=np.float32, order="C")
    out[np.abs(out) < NEGLIGIBLE] = 0.0
    return out


def npz_bytes(arrays: dict[str, np.ndarray], format_number: int, compressed: bool = False) -> bytes:
    """``arrays`` and then the format number as ``.npz`` bytes (deterministic: no timestamps, arrays in order)."""
    buffer = io.BytesIO()
    save = np.savez_compressed if compressed else np.savez
    save(buffer, **arrays, format=np.array([format_number], dtype=np.int64))
    return buffer.getvalue()


def npz_arrays(data: bytes, format_number: int, what: str) -> dict[str, np.ndarray]:
    """The arrays of :func:`npz_bytes` output, the format number taken out and checked.

    Raises:
        ValueError: ``data`` is not an ``.npz`` file, or its format is not ``format_number`` (``what`` names it).
    """
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in npz.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as error:
        raise ValueError(f"not a model file ({error})") from None
    if arrays.pop("format", np.zeros(1)).tolist() != [format_number]:
        raise ValueError(f"{what} format is not {format_number}")
    return arrays


def checksum(data: bytes) -> str:
    """SHA-256 of a model's bytes, as stored beside it."""
    return hashlib.sha256(data).hexdigest()
