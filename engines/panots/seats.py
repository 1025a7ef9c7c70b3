"""Panots seated one grab at a time: every grab of a seat goes through a ``decide`` hook.

As in :mod:`engines.pantolino.seats`. The grab is Panots's decision point; where a grabbed card is laid and
what a stuck seat takes instead follow the seat's policy (a person's: the rollout policy, as the expert's do).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardlab.engines import core
from boardlab.engines.expert import Budget
from boardlab.engines.panots.decisions import ROLLOUT, Point
from boardlab.engines.panots.policies import POLICIES
from boardlab.engines.panots.rules import Params, State, View, play_with

Decide = Callable[[Any, np.ndarray, Callable[[], np.ndarray]], np.ndarray]
#: hints' playouts per legal move by table size (ours: hints within 5 s; the planner plays ~30 seven-player games/s)
HINT_PLAYOUTS: Budget = {1: 200, 2: 128, 3: 80, 4: 48, 6: 12}


def hint_policy(params: Params, players: int) -> str:
    """The default strong player of hints and reviews: the expert's rollout policy."""
    return ROLLOUT


def instances(params: Params, names: Sequence[str], players: int) -> list[object]:
    """One implementation per seat name, shared by seats of the same name (as a run builds them)."""
    return core.policy_instances(POLICIES, list(names), params)


@dataclass(slots=True)
class Placement:
    """Where grabbed cards are laid, for a batch of games: candidate ``j`` is the ``j``-th legal placement.

    Placements are in the engine's ``(direction, row, column)`` order; ``ats`` holds each candidate's placement
    code (``d * GRID * GRID + cell``, -1 padding). Not a decision point: it has no look-ahead.
    """

    params: Params
    state: State  # rows own their arrays
    seat: np.ndarray  # (B,) the seat laying a card
    card: np.ndarray  # (B,) the card's id
    ats: np.ndarray  # (B, J) int64
    players: int
    searchable = False  #: hints and reviews pass over it

    @classmethod
    def at(cls, view: View, st: State, rows: np.ndarray, seats: np.ndarray, slots: np.ndarray) -> Placement:
        """The placements of card ``slots`` by ``seats`` in the games ``rows`` of a round."""
        players = st.cell.shape[1]
        r = rows * players + seats
        count = view.count[r, slots]
        ats = np.full((len(rows), max(int(count.max()), 1)), -1, dtype=np.int64)
        for j in range(ats.shape[1]):
            live = np.flatnonzero(count > j)
            ats[live, j] = view.nth_legal(r[live], slots[live], np.full(len(live), j))
        return cls(view.params, st.take(rows), seats.copy(), view.wh[rows, slots], ats, players)

    def legal(self) -> np.ndarray:
        """Every listed placement."""
        return self.ats >= 0

    def take(self, rows: np.ndarray) -> Placement:
        """Copies of ``rows``."""
        return Placement(
            self.params, self.state.take(rows), self.seat[rows], self.card[rows], self.ats[rows], self.players
        )


class Seat:
    """A policy implementation whose every grab also goes through ``decide``."""

    def __init__(self, inner: object, decide: Decide, asks: bool) -> None:
        """Wrap ``inner``; ``asks``: the grabs are a person's."""
        self.inner, self.decide, self.asks = inner, decide, asks

    def __getattr__(self, name: str) -> Any:
        """How the inner policy wants the round valued (the engine reads ``values`` and ``mode``)."""
        if name in ("values", "mode"):
            return getattr(self.__dict__["inner"], name)
        raise AttributeError(name)

    def grab(
        self, view: View, st: State, rows: np.ndarray, seats: np.ndarray, free: np.ndarray, order: np.ndarray, k: int
    ) -> np.ndarray:
        """The decided grab (a warehouse slot) of every game ``rows``."""
        if not len(rows):
            return np.zeros(0, dtype=np.int64)
        point = Point.at(view, st, rows, seats, k, POLICIES)
        games = np.asarray(view.games)[rows]
        return self.decide(point, games, lambda: np.asarray(self.inner.grab(view, st, rows, seats, free, order, k)))

    def place(self, view: View, st: State, rows: np.ndarray, seats: np.ndarray, slots: np.ndarray) -> np.ndarray:
        """A person's chosen placement; a policy's own."""
        if not self.asks or not len(rows):
            return self.inner.place(view, st, rows, seats, slots)
        point = Placement.at(view, st, rows, seats, slots)

        def propose() -> np.ndarray:
            at = np.asarray(self.inner.place(view, st, rows, seats, slots))
            return (point.ats == at[:, None]).argmax(axis=1)

        chosen = self.decide(point, np.asarray(view.games)[rows], propose)
        return point.ats[np.arange(len(rows)), chosen]

    def swap(self, view: View, st: State, rows: np.ndarray, seats: np.ndarray, options: np.ndarray) -> np.ndarray:
        """The inner policy's swap."""
        return self.inner.swap(view, st, rows, seats, options)


def watching(inner: object, decide: Decide) -> Seat:
    """A seat that plays exactly as ``inner`` does, as in a run, and shows ``decide`` every decision."""
    return Seat(inner, decide, False)


def play(params: Params, seats: Sequence[object], n_games: int, source: core.Source) -> core.Outcome:
    """Play ``n_games`` games with one implementation per seat."""
    return play_with(params, seats, n_games, source)
