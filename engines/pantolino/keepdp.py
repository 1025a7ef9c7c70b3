"""Compiled (numba) per-turn dynamic programme over dice keeps, for terminal values given per game.

The learned player values the position after each token it could take (and after taking nothing); the best keep
before each reroll is then the one that maximises the expected terminal value over the rolls left, exactly as in
:meth:`engines.pantolino.solver.Solver.optimise_turn`. numpy would do this as a dense ``(keeps x throws)`` matrix
product per roll and a gather over every throw's keep options; the transition matrix is mostly zeros (keeping
``k`` dice leaves ``dice - k`` to roll: 1,365 non-zero entries of 26,460 with four dice and six faces) and only the
options of the throw on the table matter at each decision, so a loop per position does a twentieth of the work
(``benchmarks/bench.py``'s learned line). Values per throw are computed once per distinct position of a turn
(:func:`advance`); each game then only scores the keep options of its own throw (:func:`pick`). Ties within
:data:`NEAR` go to the first keep in :attr:`~engines.pantolino.dice.DiceTables.keep_options` order (more dice,
then the smaller code).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numba import njit

from boardlab.engines.pantolino.dice import DiceTables

NEAR = 1e-12  #: keeps (and tokens) whose values are this close count as tied, as in the exact solver


@dataclass(frozen=True)
class Sparse:
    """The dice tables in the flat arrays the kernels read."""

    start: np.ndarray  # (K + 1,) int64: row k of the transition is entries start[k]:start[k + 1]
    throw: np.ndarray  # (nnz,) int64: the complete throw (index into the full throws) of each entry
    chance: np.ndarray  # (nnz,) float64: its probability
    options: np.ndarray  # (F, J) int64: keep options of each throw (indices of multisets), -1 padding
    eff: np.ndarray  # (F, C) int64: each colour's count in each throw, jokers included
    first_roll: int  # index of the empty multiset: the first roll of every die

    @cached_property
    def option_lists(self) -> tuple[np.ndarray, np.ndarray]:
        """``(bounds (F + 1,), keeps)``: throw f's keep options are ``keeps[bounds[f]:bounds[f + 1]]``, no padding."""
        present = self.options >= 0
        return np.r_[0, np.cumsum(present.sum(axis=1))], self.options[present]

    @classmethod
    def of(cls, tables: DiceTables) -> Sparse:
        """Flatten ``tables``' transition (exact integer weights, divided by the unit once)."""
        rows, cols = np.nonzero(tables.transition)
        chance = tables.transition[rows, cols] / float(tables.unit)
        start = np.searchsorted(rows, np.arange(len(tables.codes) + 1))
        eff = tables.effective_counts(tables.codes[tables.full]).astype(np.int64)
        return cls(start, cols.astype(np.int64), chance, tables.keep_options, eff, int(tables.index_of_code[0]))


def restricted_options(options: np.ndarray, allowed: list[np.ndarray]) -> np.ndarray:
    """``options`` (``(F, J)``, -1 padding) with the options some mask of ``allowed`` forbids set to -1.

    A throw left with no option keeps all of its own (a forced keep); the order of the rest is unchanged, so ties
    break as in the full programme.
    """
    keep = np.logical_and.reduce(allowed) & (options >= 0)
    keep[~keep.any(axis=1)] = options[~keep.any(axis=1)] >= 0
    return np.where(keep, options, -1)


def terminal_values(take: np.ndarray, stay: np.ndarray, colour: np.ndarray, value: np.ndarray, eff: np.ndarray):
    """``(B, F)``: each last throw's value, the best fitting token's (``take``, -inf where absent) or ``stay``."""
    return _terminal(take, stay, colour, value, eff)


@njit(cache=True, nogil=True)
def _terminal(take, stay, colour, value, eff):  # pragma: no cover - compiled
    n, t = take.shape
    f_count, c_count = eff.shape
    top = eff.max()
    out = np.empty((n, f_count))
    best = np.empty((c_count, top + 1))
    for b in range(n):
        best[:] = -np.inf
        for j in range(t):
            v = take[b, j]
            c = colour[j]
            for x in range(value[j], top + 1):
                if v > best[c, x]:
                    best[c, x] = v
        for f in range(f_count):
            m = -np.inf
            for c in range(c_count):
                w = best[c, eff[f, c]]
                if w > m:
                    m = w
            out[b, f] = stay[b] if m == -np.inf else m
    return out


def terminal_companions(
    take: np.ndarray, stay: np.ndarray, companions: np.ndarray, colour: np.ndarray, value: np.ndarray, eff: np.ndarray
) -> np.ndarray:
    """``(B, F, K)``: each last throw's companion values at the token :func:`terminal_values` picks.

    ``companions`` is ``(B, T + 1, K)``, per token and then for taking nothing; the token is the best fitting one
    by ``take`` (the first of tied ones), or nothing where none fits.
    """
    return _terminal_companions(take, stay, companions, colour, value, eff)


@njit(cache=True, nogil=True)
def _terminal_companions(take, stay, companions, colour, value, eff):  # pragma: no cover - compiled
    n, t = take.shape
    f_count, c_count = eff.shape
    top = eff.max()
    out = np.empty((n, f_count, companions.shape[2]))
    best = np.empty((c_count, top + 1))
    which = np.empty((c_count, top + 1), np.int64)
    for b in range(n):
        best[:] = -np.inf
        which[:] = t
        for j in range(t):
            v = take[b, j]
            c = colour[j]
            for x in range(value[j], top + 1):
                if v > best[c, x]:
                    best[c, x] = v
                    which[c, x] = j
        for f in range(f_count):
            m = -np.inf
            pick = t
            for c in range(c_count):
                w = best[c, eff[f, c]]
                if w > m:
                    m = w
                    pick = which[c, eff[f, c]]
            for i in range(companions.shape[2]):
                out[b, f, i] = companions[b, pick, i]
    return out


def advance(w: np.ndarray, sparse: Sparse) -> np.ndarray:
    """Values of every throw with one more roll left, from ``w`` (values with one roll fewer): ``(U, F)``."""
    return _advance(w, sparse.start, sparse.throw, sparse.chance, *sparse.option_lists)


def advance_companions(w: np.ndarray, companions: np.ndarray, sparse: Sparse) -> np.ndarray:
    """:func:`advance` for values the mover does not maximise: ``(U, F, K)`` with one more roll left.

    ``companions`` (``(U, F, K)``, one roll fewer) are followed through the keeps that maximise ``w`` (the
    mover's values with one roll fewer), ties as :func:`pick` breaks them.
    """
    return _advance_companions(w, companions, sparse.start, sparse.throw, sparse.chance, sparse.options)


def pick(w: np.ndarray, rows: np.ndarray, throw: np.ndarray, sparse: Sparse) -> np.ndarray:
    """Best keep (index of a multiset) of each game's ``throw`` when its rerolls end in values ``w[rows]``."""
    return _pick(w, rows, throw, sparse.start, sparse.throw, sparse.chance, sparse.options)


def first_roll(w: np.ndarray, sparse: Sparse) -> np.ndarray:
    """Each row's expected value of a turn's first roll (every die) when throws are worth ``w``: ``(U,)``.

    With ``w`` the values with ``rolls - 1`` rolls left (``advance`` applied that often to the terminal values),
    this is the whole turn's value under the best keeps. Companion values ``(U, F, K)`` give ``(U, K)``.
    """
    lo, hi = sparse.start[sparse.first_roll], sparse.start[sparse.first_roll + 1]
    if w.ndim == 3:
        return np.einsum("ufk,f->uk", w[:, sparse.throw[lo:hi]], sparse.chance[lo:hi])
    return w[:, sparse.throw[lo:hi]] @ sparse.chance[lo:hi]


@njit(cache=True, nogil=True)
def _expect(w, k, start, throw, chance):  # pragma: no cover - compiled
    s = 0.0
    for e in range(start[k], start[k + 1]):
        s += chance[e] * w[throw[e]]
    return s


@njit(cache=True, nogil=True)
def _best_option(row, expected, options):  # pragma: no cover - compiled
    best = -np.inf
    for j in range(options.shape[1]):
        k = options[row, j]
        if k >= 0 and expected[k] > best:
            best = expected[k]
    for j in range(options.shape[1]):
        k = options[row, j]
        if k >= 0 and expected[k] >= best - NEAR:
            return k, best
    return -1, best


@njit(cache=True, nogil=True)
def _advance(w, start, throw, chance, bounds, keeps):  # pragma: no cover - compiled
    n, f_count = w.shape
    k_count = len(start) - 1
    out = np.empty((n, f_count))
    expected = np.empty(k_count)
    for b in range(n):
        for k in range(k_count):
            expected[k] = _expect(w[b], k, start, throw, chance)
        for f in range(f_count):  # the best option's value (no branch: which option wins a tie does not matter)
            best = -np.inf
            for i in range(bounds[f], bounds[f + 1]):
                best = max(best, expected[keeps[i]])
            out[b, f] = best
    return out


@njit(cache=True, nogil=True)
def _advance_companions(w, companions, start, throw, chance, options):  # pragma: no cover - compiled
    n, f_count, c_count = companions.shape
    k_count = len(start) - 1
    out = np.empty((n, f_count, c_count))
    expected = np.empty(k_count)
    followed = np.empty((k_count, c_count))
    for b in range(n):
        for k in range(k_count):
            expected[k] = _expect(w[b], k, start, throw, chance)
            for i in range(c_count):
                followed[k, i] = 0.0
            for e in range(start[k], start[k + 1]):
                for i in range(c_count):
                    followed[k, i] += chance[e] * companions[b, throw[e], i]
        for f in range(f_count):
            k = _best_option(f, expected, options)[0]
            for i in range(c_count):
                out[b, f, i] = followed[k, i]
    return out


@njit(cache=True, nogil=True)
def _pick(w, rows, throw_now, start, throw, chance, options):  # pragma: no cover - compiled
    n = len(rows)
    out = np.empty(n, np.int64)
    expected = np.empty(len(start) - 1)
    for b in range(n):
        f = throw_now[b]
        for j in range(options.shape[1]):
            k = options[f, j]
            if k >= 0:
                expected[k] = _expect(w[rows[b]], k, start, throw, chance)
        out[b] = _best_option(f, expected, options)[0]
    return out
