"""Every legal move's chance to win for the deciding seat: paired playouts, or exact where the game can say.

Each legal candidate of a one-row decision point is applied to copies of the position that are played to the
end with the strong player in every seat, on the same random streams for every candidate (common random
numbers, as the expert's search plays them): playout ``i`` of every candidate sees the same redraw of what the
seat cannot see and the same dice. A move's chance is its mean share of the win, with a 95% normal interval;
the difference of two moves is taken stream by stream, which makes it far tighter than either chance.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from boardlab.analysis.stats import paired_shares
from boardlab.engines.core import StreamSource, mix64
from boardlab.engines.expert import seat_reward

Z95 = 1.959964  #: two-sided 95% normal quantile
HINT_SALT = np.uint64(0x2545F4914F6CDD1D)  #: keeps hint streams apart from the expert's own streams


@dataclass(frozen=True)
class Estimate:
    """Chances to win of a decision's legal moves: ``rewards[k, i]``, move ``moves[k]`` on stream ``i``.

    ``exact`` holds every candidate's exact chance where the game computes it (then no interval is needed).
    """

    moves: np.ndarray
    rewards: np.ndarray
    exact: np.ndarray | None = None

    def _row(self, move: int) -> np.ndarray:
        return self.rewards[int(np.flatnonzero(self.moves == move)[0])]

    def chance(self, move: int) -> tuple[float, float]:
        """A move's chance to win and the half-width of its 95% interval (0 when exact)."""
        if self.exact is not None:
            return float(self.exact[move]), 0.0
        values = self._row(move)
        return float(values.mean()), half_width(values)

    def estimated(self, move: int) -> tuple[float, float]:
        """A move's chance to win from the playouts alone, and its half-width."""
        values = self._row(move)
        return float(values.mean()), half_width(values)

    def gain_interval(self, better: int, worse: int) -> tuple[float, float, float]:
        """How much more often ``better`` wins than ``worse``, paired, with its 95% interval inside [-1, 1].

        ``(difference, low, high)`` by :func:`analysis.stats.paired_shares` (Newcombe's hybrid score).
        """
        return paired_shares(self._row(better), self._row(worse))

    def gain(self, better: int, worse: int) -> tuple[float, float]:
        """How much more often ``better`` wins than ``worse``, paired stream by stream, and the half-width."""
        difference = self._row(better) - self._row(worse)
        return float(difference.mean()), half_width(difference)


def half_width(values: np.ndarray) -> float:
    """The half-width of the 95% normal interval of the mean of ``values``."""
    if len(values) < 2:
        return float("inf")
    return float(Z95 * values.std(ddof=1) / np.sqrt(len(values)))


def searchable(point: Any) -> bool:
    """Whether a decision can be valued by playouts (a game's decision point; not, e.g., a Panots placement)."""
    return getattr(point, "searchable", True)


def exact(point: Any, seating: Any) -> np.ndarray | None:
    """Every candidate's exact chance to win at row 0 of ``point``, where the game's seats can say."""
    exact_of = getattr(seating, "exact_values", None)
    return None if exact_of is None else exact_of(point)


def evaluate(point: Any, policy: str, playouts: int, seating: Any = None) -> Estimate:
    """Every legal move of row 0 of ``point``, played out ``playouts`` times each by ``policy`` in every seat.

    ``seating`` (the game's seats) adds exact values where it offers them (see :func:`exact`).
    """
    moves = np.flatnonzero(point.legal()[0])
    n = len(moves)
    rows = np.zeros(n * playouts, dtype=np.int64)
    actions = np.repeat(moves, playouts)
    stream = np.tile(np.arange(playouts, dtype=np.uint64), n)
    source = StreamSource(mix64(point.key[rows] ^ HINT_SALT ^ mix64(stream)))
    copies = point.take(rows)
    copies.determinise(source)
    copies.apply(actions)
    winners, _ = copies.play_out([policy] * point.players, source)
    reward = seat_reward(winners, point.seat[rows], point.cooperative).reshape(n, playouts)
    return Estimate(moves, reward, None if seating is None else exact(point, seating))
