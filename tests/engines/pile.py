"""A tiny game for the learned core's tests: take one or two stones from a pile; whoever takes the last wins.

Candidate ``c`` takes ``c + 1`` stones. A pile of ``3k`` left to the opponent is lost for them, so the
:func:`perfect` model knows the game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from boardlab.engines import core
from boardlab.engines.learned.model import ValueModel


@dataclass
class Pile:
    """A decision point of the tiny game: candidate ``c`` takes ``c + 1`` (two only from a pile of two or more)."""

    pile: np.ndarray  # (B,) int64
    seat: np.ndarray  # (B,) int64: the mover
    players: int = 2
    cooperative: bool = False

    def legal(self) -> np.ndarray:
        return np.stack([self.pile >= 1, self.pile >= 2], axis=1)

    def take(self, rows: np.ndarray) -> Pile:
        return Pile(self.pile[rows].copy(), self.seat[rows].copy())

    def apply(self, actions: np.ndarray) -> None:
        self.pile = self.pile - actions - 1
        self.seat = np.where(self.pile > 0, 1 - self.seat, self.seat)  # the last taker stays the "mover"

    def features(self, viewer: np.ndarray | None = None) -> np.ndarray:
        viewer = self.seat if viewer is None else viewer
        mine = self.seat == viewer
        return np.stack([self.pile / 10, self.pile % 3 == 0, mine, (self.pile == 0) & mine], axis=1).astype(np.float32)


class Taker:
    """A seat: every decision through ``decide``; its own choice (``propose``) takes one."""

    def __init__(self, decide: Callable) -> None:
        self.decide = decide


@dataclass(frozen=True)
class PileTable:
    """Seats and plays the tiny game in lock-step: piles of 1..10, seat 0 first."""

    def seat(self, params: core.Params, players: int, decide: Callable) -> Taker:
        return Taker(decide)

    def play(self, params: core.Params, seats: Sequence[Taker], n_games: int, source: core.Source) -> core.Outcome:
        games = np.arange(n_games)
        point = Pile(source.draw(games, 10)[:, 0] + 1, np.zeros(n_games, dtype=np.int64))
        winners = np.zeros((n_games, 2), dtype=bool)
        live = games
        while len(live):
            now = point.take(live)
            chosen = seats[0].decide(now, live, partial(np.zeros, len(live), dtype=np.int64))  # proposes: take one
            now.apply(chosen)
            point.pile[live], point.seat[live] = now.pile, now.seat
            done = now.pile == 0
            winners[live[done], now.seat[done]] = True
            live = live[~done]
        return {"winners": winners}


def width(params: core.Params, players: int) -> int:
    return 4


def perfect(n_features: int = 4) -> ValueModel:
    """Values a position won (the viewer took the last) 1, a pile of 3k left to the opponent high, others low."""
    w0 = np.zeros((n_features, 2), np.float32)
    w0[1, 0], w0[3, 1] = 0.5, 1.0
    return ValueModel((w0, np.ones((2, 1), np.float32)), (np.zeros(2, np.float32), np.full(1, 0.25, np.float32)))
