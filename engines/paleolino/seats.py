"""Paleolino seated one decision at a time: every cave and every keep of a seat through a ``decide`` hook.

As in :mod:`engines.pantolino.seats`. The cave and the chips kept are Paleolino's decision points; the builds
and their payment follow the seat's policy (a person's: the rollout policy, as the expert's do).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from engines import core
from engines.expert import Budget
from engines.paleolino.decisions import CAVE, KEEP, ROLLOUT, Point, keep_options
from engines.paleolino.policies import POLICIES
from engines.paleolino.rules import Params, Turn, play_with

Decide = Callable[[Any, np.ndarray, Callable[[], np.ndarray]], np.ndarray]
HINT_PLAYOUTS: Budget = 200  #: hints' playouts per legal move (ours: hints within 5 s at the largest table)


def hint_policy(params: Params, players: int) -> str:
    """The default strong player of hints and reviews: the expert's rollout policy."""
    return ROLLOUT


def instances(params: Params, names: Sequence[str], players: int) -> list[object]:
    """One implementation per seat name for a table of ``players``, as the game's ``play`` builds them."""
    made = {
        p.name: p.impl(params, players, p.arg) if p.parse_arg else p.impl(params, players)
        for p in core.resolve_policies(POLICIES, list(dict.fromkeys(names)))
    }
    return [made[name] for name in names]


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
        """The inner policy's builds."""
        return self.inner.builds(turn)

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
