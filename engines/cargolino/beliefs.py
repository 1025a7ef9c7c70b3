"""Hidden ownership as hypotheses: every way to deal the snail tokens, and a Bayesian belief over them.

A hypothesis is a full deal: ``owners[h, s]`` is the seat holding snail ``s`` (-1 unowned), ``seatmask[h, p]``
the 6-bit set of snails seat ``p`` holds. A seat knows its own tokens, so its belief runs over the hypotheses
that agree with them: ``cons[d, m]`` lists them for seat ``d`` holding the snail set ``m`` (same count for every
valid ``m``). Beliefs are ``(rows, H)`` float64 arrays, one row per game.

Model of the other players (the likelihood of an observed move): a player moves a snail chosen at random
among those the remaining dice allow, its own snails weighted ``own`` and the others ``other`` (by default
``OWN_WEIGHT / OTHER_WEIGHT = 1/4``). So a move of snail ``s`` by seat ``m`` with legal snails ``L`` has likelihood
``w(s) / (other |L| - (other - own) k)`` with ``w(s) = own`` if ``m`` owns ``s`` under the hypothesis (else
``other``) and ``k`` the legal snails ``m`` owns under it.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

N_SNAILS = 6
OWN_WEIGHT, OTHER_WEIGHT = 1, 4  # relative chance the modelled player moves one of its own snails
BIT = np.int64(1) << np.arange(N_SNAILS, dtype=np.int64)
POPCOUNT = np.array([bin(m).count("1") for m in range(64)], dtype=np.int64)
MASK_BITS = ((np.arange(64)[:, None] >> np.arange(N_SNAILS)) & 1).astype(np.float64)  # (64, 6)


def all_deals(players: int, each: int) -> list[tuple[int, ...]]:
    """Every deal of ``each`` tokens per player, as owner tuples over the six snails, in sorted order."""
    base = [p for p in range(players) for _ in range(each)] + [-1] * (N_SNAILS - players * each)
    return sorted(set(itertools.permutations(base)))


@dataclass(frozen=True)
class Hypotheses:
    """Deal tables for one player count."""

    players: int
    each: int  # tokens per player
    owners: np.ndarray  # (Hf, 6) int8: seat holding each snail, -1 unowned
    seatmask: np.ndarray  # (Hf, P) int64: snail set of each seat
    flat_seatmask: np.ndarray  # (Hf * P,) int64: seatmask raveled, index h * P + p
    cons: np.ndarray  # (P, 64, H) int64: hypotheses consistent with seat d holding set m

    @property
    def size(self) -> int:
        """Hypotheses a seat keeps beliefs over."""
        return self.cons.shape[2]


@lru_cache(maxsize=16)
def hypotheses(players: int, each: int) -> Hypotheses:
    """Build (once per player count and tokens per player) the deal tables."""
    owners = np.array(all_deals(players, each), dtype=np.int8)
    seatmask = np.stack([((owners == p) * BIT).sum(axis=1) for p in range(players)], axis=1).astype(np.int64)
    n_cons = len(owners) // len({int(m) for m in seatmask[:, 0]})
    cons = np.zeros((players, 64, n_cons), dtype=np.int64)
    for d in range(players):
        for m in np.unique(seatmask[:, d]):
            cons[d, m] = np.flatnonzero(seatmask[:, d] == m)
    return Hypotheses(players, each, owners, seatmask, seatmask.ravel(), cons)


def observe(
    belief: np.ndarray,
    hyp: np.ndarray,
    hyps: Hypotheses,
    mover: np.ndarray,
    snail: np.ndarray,
    legal: np.ndarray,
    weights: tuple[float, float] = (OWN_WEIGHT, OTHER_WEIGHT),
) -> np.ndarray:
    """Bayes update of ``belief`` rows for the move of ``snail`` by ``mover`` with legal snail sets ``legal``.

    ``hyp`` gives each belief column's hypothesis index; ``weights`` the model's ``(own, other)``. Returns the
    new (normalised) belief.
    """
    own_w, other_w = weights
    held = hyps.flat_seatmask[hyp * hyps.players + mover[:, None]]  # (r, H) snails the mover holds
    chosen_own = ((held >> snail[:, None]) & 1).astype(bool)
    weight = np.where(chosen_own, own_w, other_w)
    own_legal = POPCOUNT[held & legal[:, None]]
    total = other_w * POPCOUNT[legal][:, None] - (other_w - own_w) * own_legal
    belief = belief * (weight / total)
    return belief / belief.sum(axis=1, keepdims=True)


def expected_shells(belief: np.ndarray, hyp: np.ndarray, hyps: Hypotheses, values: np.ndarray) -> np.ndarray:
    """Expected shells of every seat this race, ``(r, P)``, given snail values ``(r, 6)``."""
    sums = values.astype(np.float64) @ MASK_BITS.T  # (r, 64): value of each snail set
    out = np.empty((len(belief), hyps.players))
    for p in range(hyps.players):
        held = hyps.flat_seatmask[hyp * hyps.players + p]
        out[:, p] = (belief * np.take_along_axis(sums, held, axis=1)).sum(axis=1)
    return out


def snail_probability(belief: np.ndarray, sets: np.ndarray) -> np.ndarray:
    """Probability that each snail is in the per-hypothesis snail set ``sets`` ``(r, H)``: ``(r, 6)``."""
    return np.stack([(belief * ((sets >> s) & 1)).sum(axis=1) for s in range(N_SNAILS)], axis=1)


def true_owner_probability(belief: np.ndarray, hyp: np.ndarray, hyps: Hypotheses, owner: np.ndarray) -> np.ndarray:
    """Probability the belief gives each snail's true owner (-1 = unowned): ``(r, 6)``."""
    match = hyps.owners[hyp] == owner[:, None, :]  # (r, H, 6)
    return np.einsum("rh,rhs->rs", belief, match.astype(np.float64))


def true_column(hyps: Hypotheses, hyp: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """Column of each row's true deal among its belief columns ``hyp`` ``(r, H)``, given the owners ``(r, 6)``."""
    return (hyps.owners[hyp] == owner[:, None, :]).all(axis=2).argmax(axis=1)


def sample_column(belief: np.ndarray, u: np.ndarray) -> np.ndarray:
    """A belief column per row drawn with probability ``belief`` from uniforms ``u`` ``(r,)`` (inverse CDF)."""
    cum = np.cumsum(belief, axis=1)
    return np.minimum((cum < u[:, None] * cum[:, -1:]).sum(axis=1), belief.shape[1] - 1)
