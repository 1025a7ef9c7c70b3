"""Mergeable per-chunk summaries of game outcomes: counts, integer sums and histograms.

A chunk of games is reduced to a :class:`Summary` before it leaves its worker. Every field is an integer
count, sum or histogram, so merging is exact and the merged result does not depend on the order in which
chunks finish. Memory is bounded by the number of seats and histogram bins, never by the number of games.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from boardlab.analysis import stats


def _add_hist(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sum two histograms along their last axis, padding the shorter one."""
    width = max(a.shape[-1], b.shape[-1])
    pad = [(0, 0)] * (a.ndim - 1)
    return np.pad(a, [*pad, (0, width - a.shape[-1])]) + np.pad(b, [*pad, (0, width - b.shape[-1])])


def _hist(values: np.ndarray, bins: int = 0) -> np.ndarray:
    """Histogram of non-negative integers (negative values are clipped to bin 0), at least ``bins`` wide."""
    return np.bincount(np.maximum(values.astype(np.int64), 0), minlength=bins)


@dataclass
class Summary:
    """Counts and sums over a set of games with the same seats."""

    n_games: int
    wins: np.ndarray  # (P,) games won alone
    shared_wins: np.ndarray  # (P,) games won jointly with others
    score_sum: np.ndarray  # (P,)
    score_sq: np.ndarray  # (P,)
    score_hist: np.ndarray  # (P, bins) games by score
    turns_hist: np.ndarray  # (bins,) games by length in turns
    sums: dict[str, np.ndarray] = field(default_factory=dict)  # metric -> sum over games (per seat / bin)
    squares: dict[str, np.ndarray] = field(default_factory=dict)  # metric -> sum of squares (game/seat kinds)
    counts: dict[str, np.ndarray] = field(default_factory=dict)  # float metric -> values that are not NaN

    @classmethod
    def from_outcome(
        cls, outcome: Mapping[str, np.ndarray], metrics: Mapping[str, object], cooperative: bool = False
    ) -> Summary:
        """Reduce per-game columns (a game's ``play`` output) to a summary.

        Besides the game's own ``metrics``, the sums the game metrics need (:func:`analysis.game_metrics.accumulate`)
        are kept under the ``game:`` prefix.
        """
        from boardlab.analysis import game_metrics

        score = outcome["score"].astype(np.int64)
        winners = outcome["winners"]
        alone = outcome["winner"] >= 0
        players = score.shape[1]
        sums, squares, counts = {}, {}, {}
        for name, metric in metrics.items():
            values = np.asarray(outcome[name])
            if values.dtype.kind == "f":  # float metrics may be NaN where undefined; they are summed in order
                sums[name] = np.nansum(values, axis=0)
                counts[name] = (~np.isnan(values)).sum(axis=0)
                squares[name] = np.nansum(values * values, axis=0)
                continue
            values = values.astype(np.int64)
            sums[name] = values.sum(axis=0)
            if metric.kind != "counts":
                squares[name] = (values * values).sum(axis=0)
        for name, (total, total_sq) in game_metrics.accumulate(outcome, cooperative).items():
            sums[game_metrics.PREFIX + name], squares[game_metrics.PREFIX + name] = total, total_sq
        return cls(
            n_games=len(score),
            wins=(winners & alone[:, None]).sum(axis=0),
            shared_wins=(winners & ~alone[:, None]).sum(axis=0),
            score_sum=score.sum(axis=0),
            score_sq=(score * score).sum(axis=0),
            score_hist=np.stack([_hist(score[:, p], int(score.max(initial=0)) + 1) for p in range(players)]),
            turns_hist=_hist(outcome["turns"]),
            sums=sums,
            squares=squares,
            counts=counts,
        )

    def merge(self, other: Summary) -> Summary:
        """The summary of both sets of games."""
        return Summary(
            n_games=self.n_games + other.n_games,
            wins=self.wins + other.wins,
            shared_wins=self.shared_wins + other.shared_wins,
            score_sum=self.score_sum + other.score_sum,
            score_sq=self.score_sq + other.score_sq,
            score_hist=_add_hist(self.score_hist, other.score_hist),
            turns_hist=_add_hist(self.turns_hist, other.turns_hist),
            sums={k: self.sums[k] + other.sums[k] for k in self.sums},
            squares={k: self.squares[k] + other.squares[k] for k in self.squares},
            counts={k: self.counts[k] + other.counts[k] for k in self.counts},
        )

    # --- persistence (checkpoints) ------------------------------------------------------------------------

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Flat name -> array mapping for ``np.savez``."""
        out = {
            "n_games": np.array(self.n_games),
            "wins": self.wins,
            "shared_wins": self.shared_wins,
            "score_sum": self.score_sum,
            "score_sq": self.score_sq,
            "score_hist": self.score_hist,
            "turns_hist": self.turns_hist,
        }
        out.update({f"sum:{k}": v for k, v in self.sums.items()})
        out.update({f"sq:{k}": v for k, v in self.squares.items()})
        out.update({f"count:{k}": v for k, v in self.counts.items()})
        return out

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> Summary:
        """Inverse of :meth:`to_arrays`."""
        return cls(
            n_games=int(arrays["n_games"]),
            wins=arrays["wins"],
            shared_wins=arrays["shared_wins"],
            score_sum=arrays["score_sum"],
            score_sq=arrays["score_sq"],
            score_hist=arrays["score_hist"],
            turns_hist=arrays["turns_hist"],
            sums={k[4:]: arrays[k] for k in arrays if k.startswith("sum:")},
            squares={k[3:]: arrays[k] for k in arrays if k.startswith("sq:")},
            counts={k[6:]: arrays[k] for k in arrays if k.startswith("count:")},
        )

    # --- derived numbers ------------------------------------------------------------------------------------

    @property
    def players(self) -> int:
        """Number of seats."""
        return len(self.wins)

    def win_rate(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per seat: rate of sole wins and its 95% Wilson interval."""
        low, high = stats.wilson(self.wins, self.n_games)
        return self.wins / max(self.n_games, 1), low, high

    def mean_score(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per seat: mean score and its 95% interval."""
        return stats.mean_interval(self.score_sum, self.score_sq, self.n_games)

    def mean_turns(self) -> tuple[float, float, float]:
        """Mean game length in turns and its 95% interval."""
        t = np.arange(len(self.turns_hist))
        mean, low, high = stats.mean_interval(
            (t * self.turns_hist).sum(), (t * t * self.turns_hist).sum(), self.n_games
        )
        return float(mean), float(low), float(high)

    def mean_rounds(self, turns_are_rounds: bool = False) -> tuple[float, float, float]:
        """Mean game length in rounds and its 95% interval.

        A game of ``t`` seats' turns lasts ``ceil(t / players)`` rounds (its last round may be cut short), unless
        the game counts rounds as its turns (``turns_are_rounds``).
        """
        per = 1 if turns_are_rounds else self.players
        t = np.arange(len(self.turns_hist))
        rounds = -(-t // per)
        mean, low, high = stats.mean_interval(
            (rounds * self.turns_hist).sum(), (rounds * rounds * self.turns_hist).sum(), self.n_games
        )
        return float(mean), float(low), float(high)

    def metric_mean(self, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Mean of a game or seat metric per game (per defined value for float metrics), with its 95% interval."""
        return stats.mean_interval(self.sums[name], self.squares[name], self.counts.get(name, self.n_games))

    def counts_fractions(self, name: str) -> np.ndarray:
        """A counts metric as fractions of its total (e.g. turns by best count)."""
        total = self.sums[name].sum()
        return self.sums[name] / total if total else self.sums[name].astype(np.float64)
