"""The exact best response to a value-playing policy in 2-player base Pantolino, and that policy's exploitability.

A policy that plays by a value of positions (``learned``: its model; ``win-optimal``: the solved table) decides
a turn from the values of where the turn can end: after each supply token it could take, and after taking
nothing. Here those values are tabulated once for every position of the solver's state space: ``W[S, d]`` is the
policy's value of supply ``S`` with lead ``d`` for the seat that has just moved (the model is asked about all
positions at once, in blocks). With them, the policy's keeps and token at every position are those of
:meth:`Solver.tabled_turn` (the per-turn programme maximising the expected value of where the turn ends, the
token the best valued one that fits); :class:`PolicySolver` plays it in the solver's ``win-optimal`` slot, so the
solver's backward induction gives its exact self-play value and the exact value of the best reply to it
(``optimise`` against it). The best response's gain over the policy's own share in each seat is the policy's
exploitability (seat-averaged: OpenSpiel's NashConv halved for a 2-player zero-sum game).

Every turn, the policy's and the best reply's, goes through the learned unit's own sparse keep programme
(:mod:`engines.pantolino.keepdp`: the same kernels, keeps tied within 1e-12 going to more dice, then the smaller
code, as in play and in the solver), so the tabulated policy keeps and takes as ``learned`` does, up to rounding
in the last bits (the shipped 2-player model's exact first-seat share in self-play, 64.92%, agrees with the 64.8%
and 65.4% of ``simulate exploit``'s 20,000 games a seat). It is about seven times faster than the solver's dense
products (the best response's levels of up to 5 tokens: 65 s of CPU with them, 9.4 s with the kernels; all of
``learned``'s exploitability, both solves and the model's values of 1.2 million positions: 123 s of CPU on a
loaded 2-core machine). The best response can be played (:func:`responder`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from boardlab.engines import core
from boardlab.engines.cachedir import cache_dir, cached_array, key_digest
from boardlab.engines.pantolino import keepdp, solver
from boardlab.engines.pantolino.rules import INFO, Params, token_value

FORMAT = 1  #: bump when the cached figures' meaning changes
#: the best reply's policy iteration against a model's values can cycle between keeps whose values differ by a few
#: 1e-13 (2-player base Pantolino against ``learned``: 4e-13 after 200 rounds); figures are quoted to 1e-4
TOLERANCE = 1e-11
BLOCK = 4096  #: supplies valued by the model at once (bounds memory: a block is about 90 positions each)
Valuer = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
"""``(supply bits, own boots, rival boots) -> value`` for the seat that has just moved, one per row."""


def check_supported(params: Params) -> None:
    """The solver's own limits, and no head start (a position's boots then follow from its supply and lead)."""
    solver.check_supported(params)
    if params.head_start:
        raise ValueError("head_start is not supported by the exact best response; give head_start=0")


def policy_table(params: Params, valuer: Valuer) -> np.ndarray:
    """``W[S, d + total]``: the policy's value after a move leaving supply ``S`` and the mover ``d`` boots ahead.

    Positions whose lead the supply cannot reach (wrong parity, beyond the boots taken) are NaN.
    """
    check_supported(params)
    tokens = params.n_tokens
    value = token_value(params)
    total = int(value.sum())
    bits = np.arange(1 << tokens, dtype=np.int64)
    left = (((bits[:, None] >> np.arange(tokens)) & 1) * value).sum(axis=1)
    taken = total - left
    d_axis = np.arange(-total, total + 1)
    out = np.full((len(bits), len(d_axis)), np.nan)
    for lo in range(0, len(bits), BLOCK):
        block = bits[lo : lo + BLOCK]
        ok = (np.abs(d_axis)[None] <= taken[block, None]) & ((d_axis[None] + taken[block, None]) % 2 == 0)
        s_idx, d_idx = np.nonzero(ok)
        supply, d = block[s_idx], d_axis[d_idx]
        own, rival = (taken[supply] + d) // 2, (taken[supply] - d) // 2
        out[supply, d_idx] = valuer(supply, own, rival)
    return out


def learned_valuer(params: Params, impl: object, players: int = 2) -> Valuer:
    """How ``learned`` (its implementation ``impl``) values a position for the seat that has just moved.

    The model's value where the game is open, and the certain result where it is decided, as its unit does.
    """
    from boardlab.engines.pantolino import learned

    impl.prepare(players)
    model = impl.models[players]

    def values(supply: np.ndarray, own: np.ndarray, rival: np.ndarray) -> np.ndarray:
        flags = ((supply[:, None] >> np.arange(params.n_tokens)) & 1).astype(bool)
        view = learned.View(flags, np.stack([own, rival], axis=1), None, None)
        shares = model.predict_all(learned.features_of(params, view))[:, 0].astype(np.float64)
        certain = learned.decided(params, view)
        return np.where(certain >= 0, certain, shares)

    return values


def equilibrium_valuer(params: Params) -> Valuer:
    """How ``win-optimal`` values a position for the seat that has just moved: one less the opponent's value."""
    table = solver.cached_values(params)[0]
    offset = int(token_value(params).sum())
    return lambda supply, own, rival: 1.0 - table[supply, offset - (own - rival)]


class PolicySolver(solver.Solver):
    """The solver with the ``win-optimal`` slot played by a tabulated value policy ``W`` (:func:`policy_table`).

    Every turn's keeps are optimised or followed over the sparse transition by the learned unit's compiled
    kernels (:mod:`engines.pantolino.keepdp`) instead of the solver's dense products: the same programme and tie
    order (more dice, then the smaller code, within :data:`solver.NEAR`), a twentieth of the work.
    """

    def __init__(self, params: Params, rules: tuple[str, ...], table: np.ndarray, tiebreak: float = 0.0) -> None:
        """``rules`` name the tabulated policy as :data:`solver.TABLED`; ``tiebreak`` per boot on a token's value."""
        super().__init__(params, rules)
        self.policy, self.tiebreak = table, tiebreak
        self.tolerance = TOLERANCE
        self.sparse = keepdp.Sparse.of(self.tables)

    def follow(self, w: np.ndarray, companion: np.ndarray) -> np.ndarray:
        """Expected ``w`` and ``companion`` (each ``(rows, F)``, per last throw) under the keeps that maximise ``w``.

        Returns ``(rows, 2)``: their values from the turn's first roll.
        """
        sparse = self.sparse
        return _turn(
            w,
            companion,
            sparse.start,
            sparse.throw,
            sparse.chance,
            sparse.options,
            sparse.first_roll,
            self.tables.rolls,
        )

    def optimise_turn(self, fit: np.ndarray, stay: np.ndarray) -> tuple[np.ndarray, np.ndarray, None]:
        """:meth:`solver.Solver.optimise_turn`'s value and chance of fitting nothing (the keeps are not kept)."""
        nothing = np.isneginf(fit)
        value = np.where(nothing, stay[:, None], fit)
        out = self.follow(value, nothing.astype(np.float64))
        return out[:, 0], out[:, 1], None

    def policy_take(self, supply: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The policy's values of taking each token ``(rows, T)`` (-inf where absent) and of taking nothing."""
        tokens = np.arange(self.n_tokens)
        present = ((supply[:, None] >> tokens) & 1).astype(bool)
        after = supply[:, None] & ~(np.int64(1) << tokens)
        column = np.clip(self.offset + d[:, None] + self.value, 0, 2 * self.total)
        take = np.where(present, self.policy[after, column] + self.tiebreak * self.value, -np.inf)
        return take, self.policy[supply, self.offset + d]

    def tabled_turn(self, supply: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The tabulated policy's turn: its value of each last throw and its token per last throw, ``(rows, F)``.

        Its keeps maximise the first (:meth:`follow_turn` takes it in place of the keeps).
        """
        take, stay = self.policy_take(supply, d)
        terminal = keepdp.terminal_values(take, stay, self.colour, self.value, self.sparse.eff)
        return terminal, solver.pick_token(take[:, None, :], self.fits[None])

    def follow_turn(self, keeps: np.ndarray, last: np.ndarray) -> np.ndarray:
        """Expected value of ``last`` ``(rows, F)`` when the policy keeps to maximise ``keeps`` (its throw values)."""
        return self.follow(keeps, last)[:, 1]


@njit(cache=True, nogil=True)
def _turn(w, companion, start, throw, chance, options, first, rolls):  # pragma: no cover - compiled
    """:meth:`PolicySolver.follow`: ``keepdp.advance`` and ``advance_companions`` per roll, then the first roll."""
    n, f_count = w.shape
    k_count = len(start) - 1
    out = np.empty((n, 2))
    ew, ec = np.empty(k_count), np.empty(k_count)
    for b in range(n):
        vw, vc = w[b].copy(), companion[b].copy()
        for _ in range(1, rolls):
            for k in range(k_count):
                ew[k] = keepdp._expect(vw, k, start, throw, chance)
                ec[k] = keepdp._expect(vc, k, start, throw, chance)
            for f in range(f_count):  # w as keepdp.advance gives it (the best value), so keeps tie as in play
                k, vw[f] = keepdp._best_option(f, ew, options)
                vc[f] = ec[k]
        out[b, 0] = keepdp._expect(vw, first, start, throw, chance)
        out[b, 1] = keepdp._expect(vc, first, start, throw, chance)
    return out


@dataclass(frozen=True)
class Exploitability:
    """Exact shares from the start: the policy against itself, and the best response against it, by seat."""

    own: tuple[float, float]  #: the policy's share in seat 0 and seat 1 when it plays both
    best: tuple[float, float]  #: the best response's share in seat 0 and seat 1 against the policy

    @property
    def gains(self) -> tuple[float, float]:
        """The best response's gain over the policy's own share, seat by seat."""
        return (self.best[0] - self.own[0], self.best[1] - self.own[1])

    @property
    def exploitability(self) -> float:
        """The seat-averaged gain."""
        return (self.gains[0] + self.gains[1]) / 2

    def as_dict(self) -> dict[str, object]:
        """JSON-friendly fields."""
        return {
            "own": list(self.own),
            "best": list(self.best),
            "gains": list(self.gains),
            "exploitability": self.exploitability,
        }


def best_response(params: Params, table: np.ndarray, tiebreak: float = 0.0) -> np.ndarray:
    """Values ``(2, supplies, differences)`` of the best reply (``[0]``) and the policy (``[1]``) facing each other.

    Entry ``[m, S, d + total]`` is the chance of the one to move (:meth:`solver.Solver.solve`'s layout).
    """
    return PolicySolver(params, (solver.OPTIMISE, solver.TABLED), table, tiebreak).solve()


def exploitability(
    params: Params, table: np.ndarray, tiebreak: float = 0.0, pair: np.ndarray | None = None
) -> Exploitability:
    """The exact :class:`Exploitability` of the policy tabulated in ``table`` (two backward inductions).

    ``pair``: the :func:`best_response` values when already solved.
    """
    check_supported(params)
    full, offset = (1 << params.n_tokens) - 1, int(token_value(params).sum())
    own = PolicySolver(params, (solver.TABLED,), table, tiebreak).solve()[0, full, offset]
    start = (best_response(params, table, tiebreak) if pair is None else pair)[:, full, offset]
    return Exploitability((float(own), float(1.0 - own)), (float(start[0]), float(1.0 - start[1])))


def responder(params: Params, pair: np.ndarray) -> object:
    """A player of the exact best response whose :func:`best_response` values are ``pair``.

    It is ``win-optimal``'s turn with the policy's values in place of the equilibrium's: keeps and token maximise
    one less the policy's chance as the next mover, exactly as the best reply of the solve plays.
    """
    from boardlab.engines.pantolino.policies import WinOptimal

    player = WinOptimal(params)
    player.solver.table = pair[1:2]  # the cached equilibrium is never read
    return player


def exploitability_path(params: Params, impl: object) -> Path:
    """The cache file of ``learned``'s exact exploitability for these knobs and its model (implementation ``impl``)."""
    knobs = {"knobs": params.as_dict(), "model": impl.fingerprint(2), "format": FORMAT, "engine": INFO.version}
    return cache_dir() / f"pantolino-exploitability-{key_digest(knobs)}.npy"


def learned_impl(params: Params) -> object:
    """``learned``'s implementation for these knobs (its shipped or cached model)."""
    from boardlab.engines.pantolino.policies import POLICIES

    return core.instantiate(POLICIES["learned"], params)


def learned_exploitability(params: Params, impl: object | None = None) -> Exploitability:
    """``learned``'s exact exploitability for these knobs (its shipped or cached model; ``impl`` to give one).

    Computed once per model and knobs and cached (the four shares), like the solver's tables.
    """
    impl = learned_impl(params) if impl is None else impl

    def compute() -> np.ndarray:
        exact = exploitability(params, policy_table(params, learned_valuer(params, impl)), impl.boots_tiebreak)
        return np.array([*exact.own, *exact.best])

    def check(array: np.ndarray) -> str | None:
        ok = array.shape == (4,) and array.dtype == np.float64 and bool(((array >= 0) & (array <= 1)).all())
        return None if ok else "not four shares"

    shares = cached_array(exploitability_path(params, impl), compute, check, "exact exploitability cache")
    return Exploitability((float(shares[0]), float(shares[1])), (float(shares[2]), float(shares[3])))
