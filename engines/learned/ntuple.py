"""An n-tuple network: a value model that is a sum of lookup-table weights, fitted as a sparse linear model.

A game declares its tuples over its own feature columns (:class:`Spec`). An :class:`Input` turns a few columns
into a small integer code (a weighted sum, rounded and clipped: a lead in boots, a bit set of tokens, a count); a
tuple is a few inputs, and its code in mixed radix picks one cell of a table. Tuples of one :class:`Group` share
their table (symmetric parts of a position, such as the colours of a game whose colours are alike, learn
together). The value is a bias plus the sum of every tuple's cell, clipped to [0, 1]; with ``K`` outputs a cell
holds ``K`` weights. Such a model draws sharp steps (each cell is free) where a small network stays smooth, and it
costs one matrix product and a gather per position.

It is linear in the tuples' one-hot indicators, so :func:`fit` is ridge regression solved exactly: the penalised
normal equations (an unpenalised intercept added) are sparse, symmetric and positive definite, and SciPy's sparse LU
factors them once per feature matrix (:class:`LeastSquares`), after which every new target vector costs one pair
of triangular solves: the backups' refits of one round's positions share the factors. Deterministic (SuperLU is
serial), no epochs. Serialised like :mod:`engines.learned.model`: ``.npz`` bytes with
the format, one table per group and the bias, checked on load against the spec the game declares.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from boardlab.engines.learned.model import npz_arrays, npz_bytes

#: bump when the serialised layout or the meaning of the tables changes: old files are refused (2: the exact solve,
#: where 1 was scikit-learn's iterative ``Ridge``)
FORMAT = 2
FAMILY = "ntuple"  #: the name training settings use for this family
MAX_CELLS = 1 << 24  #: every cell number is a whole float32 below it, so cells are found exactly in float32


@dataclass(frozen=True)
class Input:
    """One code of a tuple: ``clip(round(features[:, columns] @ weights + offset), 0, size - 1)``."""

    columns: tuple[int, ...]
    weights: tuple[float, ...]
    offset: float
    size: int


@dataclass(frozen=True)
class Group:
    """Tuples sharing one table: each member is a tuple of inputs, every member's inputs of the same sizes."""

    members: tuple[tuple[Input, ...], ...]

    @property
    def sizes(self) -> tuple[int, ...]:
        """Each input's number of codes (the table's shape)."""
        return tuple(i.size for i in self.members[0])

    @property
    def cells(self) -> int:
        """Cells of the table."""
        return int(np.prod(self.sizes))


@dataclass(frozen=True)
class Spec:
    """The tuples of a model over ``n_features`` feature columns."""

    groups: tuple[Group, ...]
    n_features: int

    def __post_init__(self) -> None:
        """Refuse members of unequal sizes, empty groups, or columns beyond the features."""
        for group in self.groups:
            if not group.members or any(tuple(i.size for i in m) != group.sizes for m in group.members):
                raise ValueError("every member of an n-tuple group needs inputs of the same sizes")
            for member in group.members:
                for i in member:
                    if (
                        i.size < 1
                        or len(i.columns) != len(i.weights)
                        or not all(0 <= c < self.n_features for c in i.columns)
                    ):
                        raise ValueError(f"n-tuple input {i} does not read {self.n_features} features")
        if self.cells > MAX_CELLS:
            raise ValueError(f"n-tuple tables of {self.cells} cells exceed {MAX_CELLS} (cells are found in float32)")

    @property
    def cells(self) -> int:
        """Weights per output in all tables."""
        return sum(g.cells for g in self.groups)

    def digest(self) -> str:
        """A short, stable digest of the tuples (part of a model's cache key)."""
        text = json.dumps([[[vars(i) for i in m] for m in g.members] for g in self.groups] + [self.n_features])
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @cached_property
    def members(self) -> tuple[tuple[int, tuple[Input, ...]], ...]:
        """Every tuple, with the start of its group's table in the concatenated tables."""
        out, start = [], 0
        for group in self.groups:
            out += [(start, member) for member in group.members]
            start += group.cells
        return tuple(out)

    @cached_property
    def plan(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(mix (F, I), offsets (I,), highest (I,), strides (I, M), starts (M,))`` over all inputs and tuples."""
        inputs = [i for _, member in self.members for i in member]
        mix = np.zeros((self.n_features, len(inputs)), np.float32)
        for k, i in enumerate(inputs):
            mix[list(i.columns), k] = i.weights
        strides = np.zeros((len(inputs), len(self.members)), np.float32)
        k = 0
        for m, (_, member) in enumerate(self.members):
            stride = 1
            for j in reversed(range(len(member))):
                strides[k + j, m] = stride
                stride *= member[j].size
            k += len(member)
        offsets = np.array([i.offset for i in inputs], np.float32)
        highest = np.array([i.size - 1 for i in inputs], np.float32)
        return mix, offsets, highest, strides, np.array([start for start, _ in self.members], np.float32)

    def indices(self, features: np.ndarray) -> np.ndarray:
        """``(N, tuples)``: each tuple's cell in the concatenated tables, for each row of ``features``."""
        mix, offsets, highest, strides, starts = self.plan
        codes = np.asarray(features, np.float32) @ mix
        codes += offsets
        np.rint(codes, out=codes)
        np.clip(codes, 0, highest, out=codes)
        cells = codes @ strides  # whole numbers below 2^24 (see __post_init__): exact in float32
        cells += starts
        return cells.astype(np.int64)

    def one_hot(self, features: np.ndarray) -> object:
        """The tuples' indicators as a sparse ``(N, cells)`` matrix (scipy CSR; a shared cell counts each tuple)."""
        from scipy import sparse

        index = self.indices(features)
        n, m = index.shape
        indptr = np.arange(0, n * m + 1, m)
        matrix = sparse.csr_matrix((np.ones(n * m, np.float64), index.ravel(), indptr), shape=(n, self.cells))
        matrix.sum_duplicates()
        return matrix


@dataclass(frozen=True)
class TupleModel:
    """The tables (one per group, ``(cells, outputs)`` float32) and the bias ``(outputs,)`` of a :class:`Spec`."""

    spec: Spec
    tables: tuple[np.ndarray, ...]
    bias: np.ndarray

    @property
    def n_features(self) -> int:
        """Inputs the model expects."""
        return self.spec.n_features

    @property
    def n_outputs(self) -> int:
        """Values per position: 1 (the viewer's share) or one per seat."""
        return self.bias.shape[0]

    @cached_property
    def flat(self) -> np.ndarray:
        """All tables, concatenated: ``(cells, outputs)``."""
        return np.concatenate(self.tables)

    def predict(self, features: np.ndarray) -> np.ndarray:
        """The viewer's predicted share of the win for each row of ``features``: ``(N,)``."""
        return self.predict_all(features)[:, 0]

    def predict_all(self, features: np.ndarray) -> np.ndarray:
        """Every output for each row of ``features``: ``(N, n_outputs)`` in [0, 1]."""
        values = self.flat[self.spec.indices(features)].sum(axis=1)
        values += self.bias
        return np.clip(values, 0.0, 1.0)

    def to_bytes(self) -> bytes:
        """The model as ``.npz`` bytes (deterministic: no timestamps; compressed, as unvisited cells stay 0)."""
        arrays = {f"t{i}": t for i, t in enumerate(self.tables)} | {"bias": self.bias}
        return npz_bytes(arrays, FORMAT, compressed=True)

    @classmethod
    def from_bytes(cls, data: bytes, spec: Spec, n_outputs: int = 1) -> TupleModel:
        """Read :meth:`to_bytes` output for ``spec``, checking the format, the tables' shapes and their values.

        Raises:
            ValueError: naming what is wrong with the data.
        """
        arrays = npz_arrays(data, FORMAT, "n-tuple model")
        bias = arrays.pop("bias", None)
        if bias is None or bias.shape != (n_outputs,):
            raise ValueError(f"n-tuple model does not end in {n_outputs} output(s)")
        if sorted(arrays) != sorted(f"t{i}" for i in range(len(spec.groups))):
            raise ValueError(f"n-tuple model does not hold {len(spec.groups)} tables")
        tables = tuple(arrays[f"t{i}"].astype(np.float32) for i in range(len(spec.groups)))
        for table, group in zip(tables, spec.groups, strict=True):
            if table.shape != (group.cells, n_outputs):
                raise ValueError(f"n-tuple table of shape {table.shape} is not ({group.cells}, {n_outputs})")
        if not all(np.isfinite(a).all() for a in (*tables, bias)):
            raise ValueError("n-tuple model has non-finite weights")
        return cls(spec, tables, bias.astype(np.float32))


def fit(spec: Spec, features: np.ndarray, targets: np.ndarray, alpha: float) -> TupleModel:
    """Least squares with an L2 penalty ``alpha`` on the weights (not the bias); ``targets`` ``(N,)`` or ``(N, K)``."""
    return LeastSquares(spec, features, alpha).fit(targets)


class LeastSquares:
    """The ridge problem of one feature matrix, factored once; :meth:`fit` solves it for any targets.

    With ``X`` the ``(N, cells)`` indicators and ``1`` a column of ones, the weights ``w`` and bias ``b`` minimise
    ``|y - X w - b|^2 + alpha |w|^2``: ``[[X'X + alpha I, X'1], [1'X, N]] [w; b] = [X'y; 1'y]``.
    """

    def __init__(self, spec: Spec, features: np.ndarray, alpha: float) -> None:
        """Build and factor the normal equations of ``features`` (``alpha`` > 0 keeps them non-singular)."""
        from scipy import sparse
        from scipy.sparse.linalg import splu

        if not alpha > 0:
            raise ValueError(f"the n-tuple fit's penalty must be positive, not {alpha}")
        self.spec = spec
        self.features = features  #: the matrix factored (a caller may check it is the one it has)
        ones = np.ones((len(features), 1))
        design = sparse.hstack([spec.one_hot(features), sparse.csr_matrix(ones)], format="csr")
        penalty = sparse.diags(np.r_[np.full(spec.cells, float(alpha)), 0.0])
        self.design = design
        self.factors = splu((design.T @ design + penalty).tocsc())

    def fit(self, targets: np.ndarray) -> TupleModel:
        """The model whose tables and bias solve the problem for ``targets`` (``(N,)`` or ``(N, K)``)."""
        y = np.asarray(targets, np.float64).reshape(len(targets), -1)
        solution = self.factors.solve(np.asarray(self.design.T @ y))
        weights = solution[:-1].astype(np.float32)
        bounds = np.cumsum([0] + [g.cells for g in self.spec.groups])
        tables = tuple(np.ascontiguousarray(weights[a:b]) for a, b in itertools.pairwise(bounds))
        return TupleModel(self.spec, tables, solution[-1].astype(np.float32))
