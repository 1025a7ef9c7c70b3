"""Paleolino seated one decision at a time: every cave and keep of a seat, and a person's builds, via ``decide``.

As in :mod:`engines.pantolino.seats`. The cave and the chips kept are Paleolino's decision points. A person also
builds, one affordable stack top at a time until they stop (a :class:`Build`: a choice without look-ahead, so
hints and reviews pass over it); which chips pay follows the seat's policy (a person's: the rollout policy).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardlab.engines import core
from boardlab.engines.expert import Budget
from boardlab.engines.paleolino.decisions import CAVE, KEEP, ROLLOUT, Point, keep_options
from boardlab.engines.paleolino.policies import POLICIES, iterative_builds
from boardlab.engines.paleolino.rules import Params, State, Turn, play_with

Decide = Callable[[Any, np.ndarray, Callable[[], np.ndarray]], np.ndarray]
HINT_PLAYOUTS: Budget = 200  #: hints' playouts per legal move (ours: hints within 5 s at the largest table)


def hint_policy(params: Params, players: int) -> str:
    """The default strong player of hints and reviews: the expert's rollout policy."""
    return ROLLOUT


def instances(params: Params, names: Sequence[str], players: int) -> list[object]:
    """One implementation per seat name, shared by seats of the same name (as a run builds them)."""
    return core.policy_instances(POLICIES, list(names), params)


@dataclass(slots=True)
class Build:
    """A person's next build, for a batch of games: candidate ``s`` builds stack ``s``'s top; ``stacks`` stops.

    ``tops`` are the stacks' top inventions at this step, ``ok`` the affordable ones, ``supply`` (a bag) the chips
    that can still pay: the middle, the mover's backpack and the other seats' offers. Not a decision point: it
    has no look-ahead.
    """

    params: Params
    state: State  # rows own their arrays (the turn's state before this turn's builds)
    seat: np.ndarray  # (B,)
    tops: np.ndarray  # (B, S) invention ids
    ok: np.ndarray  # (B, S) bool
    supply: np.ndarray  # (B,) bag
    players: int
    searchable = False  #: hints and reviews pass over it

    def legal(self) -> np.ndarray:
        """The affordable tops, and stopping."""
        return np.concatenate([self.ok, np.ones((len(self.ok), 1), dtype=bool)], axis=1)

    def take(self, rows: np.ndarray) -> Build:
        """Copies of ``rows``."""
        state = self.state.keep_rows(rows)
        return Build(
            self.params, state, self.seat[rows], self.tops[rows], self.ok[rows], self.supply[rows], self.players
        )


class Seat:
    """A policy implementation whose every cave and keep also goes through ``decide``."""

    def __init__(self, inner: object, decide: Decide, asks: bool) -> None:
        """Wrap ``inner``; ``asks``: the decisions are a person's."""
        self.inner, self.decide, self.asks = inner, decide, asks

    def cave(self, turn: Turn) -> np.ndarray:
        """The decided cave of every game."""
        if not len(turn):
            return np.zeros(0, dtype=np.int64)
        point = Point.at(turn, CAVE, POLICIES)
        return self.decide(point, np.asarray(turn.games), lambda: np.asarray(self.inner.cave(turn), dtype=np.int64))

    def builds(self, turn: Turn) -> np.ndarray:
        """A person's builds, one top at a time; a policy's own."""
        if not self.asks or not len(turn):
            return self.inner.builds(turn)
        stacks = turn.tables.stacks

        def pick(rows: np.ndarray, ok: np.ndarray, tops: np.ndarray, supply: np.ndarray, _: np.ndarray) -> np.ndarray:
            state = turn.state.keep_rows(np.arange(len(turn.state.game))[turn.rows][rows])
            seat = np.full(len(rows), turn.mover, dtype=np.int64)
            point = Build(turn.params, state, seat, tops, ok, supply, turn.players)
            chosen = self.decide(point, np.asarray(turn.games)[rows], lambda: np.full(len(rows), stacks))
            return np.where(chosen == stacks, -1, chosen)

        return iterative_builds(turn, pick)

    def pay(self, turn: Turn, k: np.ndarray) -> np.ndarray:
        """The inner policy's payment."""
        return self.inner.pay(turn, k)

    def store(self, turn: Turn, left: np.ndarray) -> np.ndarray:
        """The decided chips kept on the backpack in every game (``left``: the middle plus the backpack)."""
        if turn.capacity == 0 or not len(turn):
            return self.inner.store(turn, left)
        options = keep_options(turn.capacity)
        point = Point.at(turn, KEEP, POLICIES)

        def propose() -> np.ndarray:
            kept = np.asarray(self.inner.store(turn, left))
            return (options[None, :] == kept[:, None]).argmax(axis=1)

        return options[self.decide(point, np.asarray(turn.games), propose)]


def watching(inner: object, decide: Decide) -> Seat:
    """A seat that plays exactly as ``inner`` does, as in a run, and shows ``decide`` every decision."""
    return Seat(inner, decide, False)


def play(params: Params, seats: Sequence[object], n_games: int, source: core.Source) -> core.Outcome:
    """Play ``n_games`` games with one implementation per seat."""
    return play_with(params, seats, n_games, source)
