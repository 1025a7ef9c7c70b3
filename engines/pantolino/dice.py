"""Dice multisets as integer codes, and the exact per-turn dynamic programme over them.

Dice are identical, so a throw is a multiset over categories: the colours ``0..C-1`` and the joker ``C``.
A multiset with counts ``n_0..n_C`` has the code ``sum(n_c * (dice + 1) ** c)``; adding codes adds multisets,
so "kept dice + rerolled dice" is one integer addition. Every table here is built once per set of knobs.

Probabilities are exact integers: a roll of ``r`` dice has weight ``multinomial * prod(faces_c ** x_c) *
F ** (dice - r)`` in units of ``F ** dice`` (``F`` faces per die), so every table is a pure function of the
knobs, identical on every machine and whatever batch of positions it was computed in. Ties between keeps of
equal expected value go to the keep with more dice, then the smaller code.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import cached_property

import numpy as np
from numba import njit


class DiceTables:
    """Lookup tables for ``dice`` dice with ``colours`` colour faces and ``joker_faces`` joker faces each."""

    def __init__(self, dice: int, colours: int, joker_faces: int, rolls: int, token_values: tuple[int, ...]) -> None:
        """Enumerate every multiset of at most ``dice`` dice and the tables the engine and policies read."""
        self.dice, self.colours, self.joker_faces, self.rolls = dice, colours, joker_faces, rolls
        self.values = np.array(token_values, dtype=np.int64)
        self.n_values = len(token_values)
        self.categories = colours + 1
        self.joker = colours
        self.faces = colours + joker_faces
        radix = dice + 1
        self.weight = radix ** np.arange(self.categories, dtype=np.int64)  # code of one die per category
        face_category = np.r_[np.arange(colours), np.full(joker_faces, colours)]
        self.face_code = self.weight[face_category]  # code of one die per face

        multisets = [c for c in itertools.product(range(radix), repeat=self.categories) if sum(c) <= dice]
        counts = np.array(multisets, dtype=np.int64)
        codes = counts @ self.weight
        order = np.argsort(codes)
        self.counts, self.codes = counts[order], codes[order]  # every multiset of 0..dice dice
        self.sizes = self.counts.sum(axis=1)
        self.index_of_code = np.full(radix**self.categories, -1, dtype=np.int32)
        self.index_of_code[self.codes] = np.arange(len(self.codes))
        self.counts_by_code = np.zeros((radix**self.categories, self.categories), dtype=np.int8)
        self.counts_by_code[self.codes] = self.counts
        self.full = np.flatnonzero(self.sizes == dice)  # indices of complete throws
        self.full_position = np.full(len(self.codes), -1, dtype=np.int32)
        self.full_position[self.full] = np.arange(len(self.full))

    def roll_codes(self, faces: np.ndarray, n_rolled: np.ndarray) -> np.ndarray:
        """Code of the multiset of the first ``n_rolled[i]`` faces of row ``i`` of ``faces``."""
        used = np.arange(faces.shape[1]) < n_rolled[:, None]
        return (self.face_code[faces] * used).sum(axis=1)

    def size_of(self, codes: np.ndarray) -> np.ndarray:
        """Number of dice in each multiset code."""
        return self.counts_by_code[codes].sum(axis=1, dtype=np.int64)

    def effective_counts(self, codes: np.ndarray) -> np.ndarray:
        """Per colour, dice of that colour plus jokers: shape ``(len(codes), colours)``."""
        counts = self.counts_by_code[codes]
        return counts[:, : self.colours] + counts[:, self.joker : self.joker + 1]

    # --- values of claimable tokens ---------------------------------------------------------------------

    @cached_property
    def best_value(self) -> np.ndarray:
        """``best_value[mask, x]``: highest value in a colour's available-value ``mask`` that is at most ``x``."""
        masks = np.arange(1 << self.n_values)
        have = (masks[:, None] >> np.arange(self.n_values)) & 1  # (masks, values)
        fits = self.values[None, :] <= np.arange(self.dice + 1)[:, None]  # (x, values)
        return (have[:, None, :] * fits[None, :, :] * self.values).max(axis=2)

    @cached_property
    def highest_value(self) -> np.ndarray:
        """``highest_value[mask]``: highest value available in a colour (0 when none)."""
        masks = np.arange(1 << self.n_values)
        have = (masks[:, None] >> np.arange(self.n_values)) & 1
        return (have * self.values).max(axis=1)

    @cached_property
    def token_bit(self) -> np.ndarray:
        """``token_bit[c, j]``: the token id (bit position) of colour ``c``'s ``j``-th value.

        Tokens are numbered by preference: value first, then colour in reverse, so that among tokens of equal
        value the lowest colour has the highest id and "the best token in a set" is its highest bit.
        """
        c, j = np.arange(self.colours)[:, None], np.arange(self.n_values)[None, :]
        return j * self.colours + (self.colours - 1 - c)

    def colour_masks(self, signatures: np.ndarray) -> np.ndarray:
        """Split token bit sets into per-colour masks over value positions: ``(len(signatures), colours)``."""
        bits = (signatures[:, None, None] >> self.token_bit[None]) & 1
        return (bits << np.arange(self.n_values)).sum(axis=2)

    @cached_property
    def fit_mask(self) -> np.ndarray:
        """``fit_mask[f]``: bit set of the tokens complete throw ``f`` allows (value at most its colour count)."""
        eff = self.effective_counts(self.codes[self.full])  # (F, C)
        fits = self.values[None, None, :] <= eff[:, :, None]  # (F, C, V)
        return (fits.astype(np.int64) << self.token_bit[None]).sum(axis=(1, 2))

    @cached_property
    def best_count(self) -> np.ndarray:
        """``best_count[f]``: the largest same-colour count of complete throw ``f``, jokers included."""
        return self.effective_counts(self.codes[self.full]).max(axis=1)

    def final_values(self, signatures: np.ndarray) -> np.ndarray:
        """Value of the best claimable token for every complete throw: shape ``(len(signatures), full)``."""
        masks = self.colour_masks(signatures)  # (S, C)
        eff = self.effective_counts(self.codes[self.full])  # (F, C)
        return self.best_value[masks[:, None, :], eff[None, :, :]].max(axis=2).astype(np.int64)

    # --- the per-turn dynamic programme -----------------------------------------------------------------

    @cached_property
    def transition(self) -> np.ndarray:
        """``transition[k, f]``: weight (in units of ``F ** dice``) of throw ``f`` after keeping multiset ``k``."""
        full_counts = self.counts[self.full]
        face_count = np.r_[np.ones(self.colours, dtype=np.int64), self.joker_faces]
        factorial = np.array([math.factorial(i) for i in range(self.dice + 1)], dtype=np.int64)
        out = np.zeros((len(self.codes), len(self.full)), dtype=np.int64)
        for k, kept in enumerate(self.counts):
            rolled = full_counts - kept
            possible = (rolled >= 0).all(axis=1) & ((rolled == 0) | (face_count > 0)).all(axis=1)
            x = rolled[possible]
            ways = factorial[x.sum(axis=1)] // factorial[x].prod(axis=1)
            out[k, possible] = ways * (face_count**x).prod(axis=1) * self.faces ** (self.dice - x.sum(axis=1))
        return out

    @property
    def unit(self) -> int:
        """The transition weights of one roll sum to this (``F ** dice``)."""
        return self.faces**self.dice

    @cached_property
    def keep_options(self) -> np.ndarray:
        """``keep_options[f, j]``: index of the j-th sub-multiset of throw ``f`` in tie order, -1 padding.

        Tie order: more kept dice first, then the smaller code.
        """
        rows = []
        for f in self.full:
            subs = [
                self.index_of_code[int(np.dot(sub, self.weight))]
                for sub in itertools.product(*(range(c + 1) for c in self.counts[f]))
            ]
            rows.append(sorted(subs, key=lambda i: (-self.sizes[i], self.codes[i])))
        width = max(map(len, rows))
        return np.array([r + [-1] * (width - len(r)) for r in rows], dtype=np.int64)

    @cached_property
    def padded_keep_options(self) -> np.ndarray:
        """:attr:`keep_options` with each row's padding replaced by a repeat of its last option (no -1)."""
        options = self.keep_options
        last = np.take_along_axis(options, (options >= 0).sum(axis=1, keepdims=True) - 1, axis=1)
        return np.where(options >= 0, options, last)

    def best_keeps(self, expected: np.ndarray) -> np.ndarray:
        """For each signature row of ``expected`` (values per multiset), the best keep code per throw."""
        options = self.padded_keep_options
        choice = expected[:, options].argmax(axis=2)  # (S, F): the first option in tie order among the best
        return self.codes[options[np.arange(len(options)), choice]]

    def expect(self, value: np.ndarray, floats: bool) -> np.ndarray:
        """``value @ transition.T``, exactly.

        With ``floats`` the caller guarantees every entry and partial sum is a whole number below 2 ** 53, so
        floating point (and so BLAS) is exact in any order; otherwise the product is taken in (slower) integers.
        """
        if floats:
            return (value.astype(np.float64) @ self.transition.T.astype(np.float64)).astype(np.int64)
        return value @ self.transition.T

    def keep_tables(self, signatures: np.ndarray, horizon: int | None) -> np.ndarray:
        """Best keep codes, shape ``(len(signatures), rolls, full)``, indexed by rolls left (0 unused).

        ``horizon=None`` is the exact optimum over the rolls left; ``horizon=1`` looks one roll ahead only.
        """
        value = self.final_values(signatures)  # W_0 over complete throws
        out = np.zeros((len(signatures), self.rolls, len(self.full)), dtype=np.int64)
        # E_left holds whole numbers up to max(value) * unit ** left
        floats = int(self.values.max()) * self.unit ** (self.rolls - 1) < 2**53
        expected = self.expect(value, floats)  # E_1, units F ** dice; with horizon=1 every roll uses it
        for left in range(1, self.rolls):
            if left > 1 and horizon is None:
                expected = self.expect(value, floats)  # E_left, units F ** (dice * left)
            out[:, left] = self.best_keeps(expected)
            value = np.take_along_axis(expected, self.index_of_code[out[:, left]].astype(np.int64), axis=1)
        return out

    def final_distribution(self, keeps: np.ndarray) -> np.ndarray:
        """Exact weights of the last throw when keeps follow ``keeps`` (codes ``(S, rolls, full)``).

        Runs the Markov chain over throws: start from a roll of every die, then before each further roll move
        each throw's weight to its kept multiset and spread it by the transition weights. Each row sums to
        ``unit ** rolls``.
        """
        n_rows, n_kept = len(keeps), len(self.codes)
        dist = np.tile(self.transition[self.index_of_code[0]], (n_rows, 1))
        # Every product and partial sum is a whole number at most the row total, unit ** rolls: below 2 ** 53
        # floating point (and so BLAS) is exact in any order; above it, stay in (slower) integers.
        exact_in_floats = self.unit**self.rolls < 2**53
        slots = np.arange(n_rows)[:, None] * n_kept
        for roll in range(1, self.rolls):
            kept = slots + self.index_of_code[keeps[:, self.rolls - roll]]
            if exact_in_floats:
                mass = np.bincount(kept.ravel(), dist.ravel().astype(np.float64), n_rows * n_kept)
                dist = (mass.reshape(n_rows, n_kept) @ self.transition.astype(np.float64)).astype(np.int64)
            else:
                mass = np.zeros(n_rows * n_kept, dtype=np.int64)
                np.add.at(mass, kept.ravel(), dist.ravel())
                dist = mass.reshape(n_rows, n_kept) @ self.transition
        return dist

    def expected_turn_value(self, signature: int) -> Fraction:
        """Exact expected value of the token taken this turn under optimal keeps, for one signature."""
        value = self.final_values(np.array([signature], dtype=np.int64))
        for _ in range(1, self.rolls):
            expected = value @ self.transition.T
            value = expected[:, self.keep_options].max(axis=2, where=self.keep_options >= 0, initial=-1)
        start = self.transition[self.index_of_code[0]]
        return Fraction(int(value[0] @ start), self.unit**self.rolls)


class ThrowSampler:
    """Draws a turn's last throw whole, from its exact distribution, for policies whose keeps depend on a key.

    ``keeps_for_keys(keys)`` gives the policy's keep codes ``(len(keys), rolls, full)`` for each key. Each key's
    distribution is stored as a Walker alias table, so a draw costs one uniform: ``u * full`` picks a column,
    its fractional part decides between the column and its alias. With ``prebuild`` every key's table is built
    at once (one batched pass is far cheaper than many small ones); otherwise each key's on first use.
    """

    def __init__(self, tables: DiceTables, n_keys: int, keeps_for_keys, prebuild: bool) -> None:
        """Prepare room for ``n_keys`` keys, and fill it all if ``prebuild``."""
        self.tables, self.keeps_for_keys = tables, keeps_for_keys
        self.n_throws = len(tables.full)
        self.threshold = np.ones((n_keys, self.n_throws))
        self.alias = np.zeros((n_keys, self.n_throws), dtype=np.int32)  # at most 3003 throws (6 dice, 8 colours)
        self.ready = np.zeros(n_keys, dtype=bool)
        if prebuild:
            self.build(np.arange(n_keys))

    def distribution(self, keys: np.ndarray) -> np.ndarray:
        """Exact last-throw weights for each key: ``(len(keys), full)``, each row summing to ``unit ** rolls``."""
        return self.tables.final_distribution(self.keeps_for_keys(keys))

    def build(self, keys: np.ndarray) -> None:
        """Compute and store the alias tables of distinct ``keys``."""
        self.threshold[keys], self.alias[keys] = alias_tables(self.distribution(keys))
        self.ready[keys] = True

    def sample(self, keys: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
        """Index of the last throw for each game, from one uniform in ``[0, 1)`` each."""
        if not self.ready.all():
            missing = np.unique(keys[~self.ready[keys]])
            if len(missing):
                self.build(missing)
        scaled = uniforms * self.n_throws
        column = np.minimum(scaled.astype(np.int64), self.n_throws - 1)
        flat = keys * self.n_throws + column
        return np.where(scaled - column < self.threshold.ravel()[flat], column, self.alias.ravel()[flat])


def alias_tables(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Walker alias tables for each row of integer ``weights`` (Vose's method; a compiled loop over the rows).

    Column ``i`` keeps itself with probability ``threshold[i]``, else it gives ``alias[i]``. Weights are scaled
    by the number of columns so that a full column holds exactly the row total. Each row keeps a stack of
    under-full and one of over-full columns; every step pairs the top under-full column with the top over-full
    one, which gives it the rest of its room and moves to the under-full stack once it drops below full. All
    arithmetic is in integers, so the tables do not depend on which rows are built together.
    """
    total = weights.sum(axis=1).astype(np.int64)
    scaled = weights.astype(np.int64) * weights.shape[1]
    under = scaled < total[:, None]
    order = np.argsort(~under, axis=1, kind="stable")  # under-full columns first, each group by index
    threshold, alias = _vose(scaled, total, order, under.sum(axis=1))
    return np.minimum(threshold, 1.0), alias


@njit(cache=True)
def _vose(scaled, total, order, n_under_start):  # pragma: no cover - compiled
    """:func:`alias_tables`' pairing, row by row (``scaled`` is used up)."""
    rows, n = scaled.shape
    threshold = np.ones((rows, n))
    alias = np.empty((rows, n), dtype=np.int64)
    under = np.empty(n, dtype=np.int64)  # entries [0, n_under) are the under-full stack, top last
    over = np.empty(n, dtype=np.int64)  # entries [0, n_over) are the over-full stack, top last
    for r in range(rows):
        for i in range(n):
            alias[r, i] = i
            under[i] = order[r, i]
            over[i] = order[r, n - 1 - i]
        n_under = n_under_start[r]
        n_over = n - n_under
        while n_under > 0 and n_over > 0:
            n_under -= 1
            small, large = under[n_under], over[n_over - 1]
            threshold[r, small] = scaled[r, small] / total[r]
            alias[r, small] = large
            scaled[r, large] -= total[r] - scaled[r, small]
            if scaled[r, large] < total[r]:
                n_over -= 1
                under[n_under] = large
                n_under += 1
    return threshold, alias
