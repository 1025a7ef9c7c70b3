"""Skill from pairwise results: Bradley–Terry ratings, the skill chain and the luck share.

Everything here takes a table of pairwise results, one row per pair of policies (``policy``, ``opponent``,
``games``, ``points``: the games ``policy`` won against ``opponent``, a shared win counting half), so it works on
any game and any way of reducing a game to pairwise results (see :mod:`experiments.ladder`).

- **Ratings** are a Bradley–Terry fit, ``P(i beats j) = 1 / (1 + exp(θ_j - θ_i))``, by choix's iterative Luce
  spectral ranking (``choix.ilsr_pairwise_dense``), which accepts the half points of shared wins. A tiny
  regularisation (:data:`ALPHA`) keeps the fit finite when one policy wins every game of a pair. Ratings are
  reported on the Elo scale (``400 / ln 10`` times θ, so 400 points are 10:1 odds) relative to an anchor policy
  (``random``), which therefore has rating 0 and no interval.
- **Intervals** come from a parametric bootstrap over the pairwise win counts: each pair's wins are redrawn
  from a binomial with the pair's observed win rate and games, the ratings refitted, and the 2.5% and 97.5%
  percentiles of each rating taken (:data:`BOOTSTRAP_REPS` draws from a fixed seed, so they are reproducible).
  Pairs are drawn independently; with common random numbers they are in fact positively correlated, which
  makes these intervals a little conservative for rating differences.
- The **skill chain** (Lantz, Isaksen, Jaffe, Nealen and Togelius 2017, "Depth in strategic games") is the
  longest sequence of distinct policies, from the anchor, in which each policy beats the previous one by the
  stated margin: a win rate of at least :data:`CHAIN_MIN_RATE` whose 95% Wilson lower bound is above
  :data:`CHAIN_LOWER_ABOVE`. Its length (the number of links) measures how many distinct steps of skill a game
  rewards.
- The **luck share** is how often the weaker policy of a pair (by rating) wins, per pair and over all pairs
  (total points of the weaker over total games, with a Wilson interval): 0 when skill decides every game, 1/2
  when the results are a coin toss.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardlab.analysis import stats

ALPHA = 0.01
"""choix regularisation: a pseudo-rate added to every link of the spectral-ranking chain (negligible beside
thousands of games; keeps a pair won 100% to 0% from driving a rating to infinity)."""
ELO = 400 / math.log(10)
"""Elo points per unit of Bradley–Terry strength θ."""
BOOTSTRAP_REPS = 400
BOOTSTRAP_SEED = 0
CHAIN_MIN_RATE = 0.55
"""A link of the skill chain: the stronger policy wins at least this share of the pair's games ..."""
CHAIN_LOWER_ABOVE = 0.5
"""... and the 95% Wilson lower bound of that share is above this."""


def win_matrix(pairs: Any, policies: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(wins, games)`` matrices: ``wins[i, j]`` points of ``policies[i]`` against ``policies[j]``."""
    index = {p: i for i, p in enumerate(policies)}
    wins = np.zeros((len(policies), len(policies)))
    games = np.zeros_like(wins)
    for row in pairs.itertuples(index=False):
        i, j = index[row.policy], index[row.opponent]
        wins[i, j] += row.points
        wins[j, i] += row.games - row.points
        games[i, j] += row.games
        games[j, i] += row.games
    return wins, games


def fit_strengths(wins: np.ndarray, alpha: float = ALPHA) -> np.ndarray:
    """Bradley–Terry strengths θ (natural-log odds scale, mean 0) from a matrix of (possibly half) wins."""
    import choix

    return np.asarray(choix.ilsr_pairwise_dense(np.asarray(wins, dtype=np.float64), alpha=alpha, max_iter=500))


def fit_ratings(
    pairs: Any,
    policies: Sequence[str],
    anchor: str | None = None,
    reps: int = BOOTSTRAP_REPS,
    seed: int = BOOTSTRAP_SEED,
) -> Any:
    """One row per policy: Elo rating relative to ``anchor`` (default: the first policy) with a 95% interval.

    Columns: ``policy``, ``rating``, ``rating_lo``, ``rating_hi`` (Elo), ``theta`` (Bradley–Terry strength,
    mean 0), ``games`` and ``score`` (share of points over all its games).
    """
    import pandas as pd

    anchor = policies[0] if anchor is None else anchor
    a = list(policies).index(anchor)
    wins, games = win_matrix(pairs, policies)
    theta = fit_strengths(wins)
    rng = np.random.default_rng(seed)
    upper = np.triu(games > 0, k=1)
    rate = np.divide(wins, games, out=np.zeros_like(wins), where=games > 0)
    draws = np.empty((reps, len(policies)))
    for r in range(reps):
        k = np.zeros_like(wins)
        k[upper] = rng.binomial(games[upper].astype(np.int64), rate[upper])
        draw = k + (games - k.T) * upper.T  # the lower triangle: the opponent won the rest
        t = fit_strengths(draw)
        draws[r] = t - t[a]
    rating = ELO * (theta - theta[a])
    low, high = np.percentile(ELO * draws, [2.5, 97.5], axis=0)
    played = games.sum(axis=1)
    return pd.DataFrame(
        {
            "policy": list(policies),
            "rating": rating,
            "rating_lo": np.minimum(low, rating),
            "rating_hi": np.maximum(high, rating),
            "theta": theta,
            "games": played.astype(np.int64),
            "score": np.divide(wins.sum(axis=1), played, out=np.full(len(policies), np.nan), where=played > 0),
        }
    )


def pair_rates(pairs: Any) -> Any:
    """``pairs`` with ``win_rate`` of ``policy`` against ``opponent`` and its 95% Wilson interval."""
    out = pairs.copy()
    out["win_rate"] = out["points"] / out["games"]
    low, high = stats.wilson(out["points"].to_numpy(), out["games"].to_numpy())
    out["win_lo"], out["win_hi"] = low, high
    return out


@dataclass(frozen=True)
class Link:
    """One step of the skill chain: ``stronger`` beats ``weaker`` in ``rate`` of their games."""

    weaker: str
    stronger: str
    rate: float
    low: float
    high: float
    games: int


def beats(
    pairs: Any, min_rate: float = CHAIN_MIN_RATE, lower_above: float = CHAIN_LOWER_ABOVE
) -> dict[str, list[Link]]:
    """For each policy, the links to the policies that beat it by the margin."""
    rated = pair_rates(pairs)
    out: dict[str, list[Link]] = {}
    for r in rated.itertuples(index=False):
        for weak, strong, rate, low, high in (
            (r.opponent, r.policy, r.win_rate, r.win_lo, r.win_hi),
            (r.policy, r.opponent, 1 - r.win_rate, 1 - r.win_hi, 1 - r.win_lo),
        ):
            if rate >= min_rate and low > lower_above:
                out.setdefault(weak, []).append(Link(weak, strong, float(rate), float(low), float(high), int(r.games)))
    return out


def skill_chain(
    pairs: Any,
    start: str,
    rating: dict[str, float] | None = None,
    min_rate: float = CHAIN_MIN_RATE,
    lower_above: float = CHAIN_LOWER_ABOVE,
) -> list[Link]:
    """The longest chain of distinct policies from ``start``, each beating the previous by the margin.

    Among chains of equal length the one ending at the highest ``rating`` is chosen (then the first found, in
    the order of ``pairs``), so the result is deterministic. A search over simple paths: fine for the dozen
    policies of a ladder (the graph of clear wins is nearly always acyclic).
    """
    graph = beats(pairs, min_rate, lower_above)
    rating = rating or {}
    best: list[Link] = []

    def better(chain: list[Link]) -> bool:
        if len(chain) != len(best):
            return len(chain) > len(best)
        return rating.get(chain[-1].stronger, 0.0) > rating.get(best[-1].stronger, 0.0)

    def extend(chain: list[Link], seen: set[str]) -> None:
        nonlocal best
        if chain and better(chain):
            best = list(chain)
        last = chain[-1].stronger if chain else start
        for link in graph.get(last, []):
            if link.stronger not in seen:
                chain.append(link)
                seen.add(link.stronger)
                extend(chain, seen)
                seen.discard(link.stronger)
                chain.pop()

    extend([], {start})
    return best


def luck_share(pairs: Any, rating: dict[str, float]) -> tuple[Any, tuple[float, float, float]]:
    """Per pair, the weaker policy (lower rating) and its win rate; over all pairs, its share with an interval.

    Returns ``(per_pair, (share, low, high))``: ``per_pair`` is ``pairs`` with ``weaker`` and ``weaker_win_rate``
    (and its Wilson interval) added; the overall share is the weaker policies' points over all games.
    """
    out = pair_rates(pairs)
    first_weaker = np.array([rating[p] < rating[o] for p, o in zip(out["policy"], out["opponent"], strict=True)])
    weaker_points = np.where(first_weaker, out["points"], out["games"] - out["points"])
    out["weaker"] = np.where(first_weaker, out["policy"], out["opponent"])
    out["weaker_win_rate"] = weaker_points / out["games"]
    low, high = stats.wilson(weaker_points, out["games"].to_numpy())
    out["weaker_lo"], out["weaker_hi"] = low, high
    total, n = float(weaker_points.sum()), float(out["games"].sum())
    all_low, all_high = stats.wilson(total, n)
    return out, (total / n, float(all_low), float(all_high))
