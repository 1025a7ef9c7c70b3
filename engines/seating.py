"""A game's seats one decision at a time, for people, replays, hints and the checker.

Every game's ``decisions.Seat(inner, decide, policies, asks)`` is its one translation from policy hooks to decision
points: at each decision it builds the point and returns ``decide(point, games, propose)`` (``propose()``: the
wrapped policy's own candidates). The expert, the learned players, a person, a replay and the checker all decide
through it. :func:`seating_of` gathers what the shared layers need about a game's seats, so that none of them
imports a game's modules by name.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from boardlab.engines import core

Decide = Callable[[Any, np.ndarray, Callable[[], np.ndarray]], np.ndarray]
"""``decide(point, games, propose)``: each row's candidate; ``games`` numbers the rows' games in the outcome,
``propose()`` is the seat's own policy's choice."""


class Adapter:
    """What every game's seat adapter shares: the wrapped policy, the decide function, proposals and ``prepare``.

    ``inner`` is the wrapped policy's implementation (None: none; proposals are then ``baseline``'s suggestion at
    the point); ``decide`` the decide function; points resolve policy names in ``policies``; ``asks``: the
    decisions are a person's (the inner policy is then never asked to prepare).
    """

    baseline: str | None = None  #: the proposing policy's name when there is no ``inner``
    hook = "decide"  #: the attribute holding the decide function (another where the game's own hook is so named)

    def __init__(self, inner: object, decide: Decide, policies: Mapping[str, Any], asks: bool = False) -> None:
        """Wrap ``inner``; see the class."""
        self.inner, self.policies, self.asks = inner, policies, asks
        setattr(self, self.hook, decide)

    def prepare(self, players: int) -> None:
        """Let the decide function (the expert: its playout policy) and the inner policy load what they need."""
        inner = None if self.asks else getattr(self.inner, "prepare", None)
        for hook in (getattr(getattr(self, self.hook), "prepare", None), inner):
            if hook is not None:
                hook(players)

    def offer(self, point: Any, own: Callable[[], np.ndarray]) -> Callable[[], np.ndarray]:
        """The ``propose`` of a decision: ``own`` (the inner policy's), or the baseline's suggestion at ``point``."""
        return own if self.inner is not None else lambda: point.suggest(self.baseline)


@dataclass(frozen=True)
class Seating:
    """A game's seats: its decision adapter, its policies and its batched engine (see the module)."""

    module: ModuleType  #: the game package
    decisions: ModuleType  #: its ``decisions`` module

    def __getattr__(self, name: str) -> Any:
        """What the game's ``decisions`` module declares for seats.

        That is ``ROLLOUT``, ``HINT_PLAYOUTS`` and ``hint_policy``.
        """
        decisions = self.__dict__.get("decisions")
        if decisions is None or name.startswith("__"):  # unpickling asks before the fields are set
            raise AttributeError(name)
        return getattr(decisions, name)

    @property
    def exact_values(self) -> Callable[..., np.ndarray | None]:
        """``exact_values(point, row=0)`` of the game's ``exact`` module: exact candidate values where it can say."""
        try:
            exact = importlib.import_module(f"{self.module.__name__}.exact")
        except ModuleNotFoundError:
            raise AttributeError("exact_values") from None
        return exact.exact_values

    def instances(self, params: Any, names: Sequence[str], players: int) -> list[object]:
        """One implementation per seat name, shared by seats of the same name (as a run builds them)."""
        return core.policy_instances(self.module.POLICIES, list(names), params)

    def seat(self, inner: object, decide: Decide, asks: bool) -> object:
        """``inner`` whose every decision also goes through ``decide``; ``asks``: the decisions are a person's."""
        return self.decisions.Seat(inner, decide, self.module.POLICIES, asks)

    def watching(self, inner: object, decide: Decide) -> object:
        """A seat that plays as ``inner`` does in a run, shown to ``decide`` (the game's own ``watching`` if any)."""
        own = getattr(self.decisions, "watching", None)
        return own(inner, decide, self.module.POLICIES) if own else self.seat(inner, decide, False)

    def play(self, params: Any, seats: Sequence[object], n_games: int, source: core.Source) -> core.Outcome:
        """Play ``n_games`` games with one implementation per seat."""
        return self.module.rules.play_with(params, seats, n_games, source)


def seating_of(module: ModuleType) -> Seating:
    """The seats of the game package ``module``."""
    return Seating(module, importlib.import_module(f"{module.__name__}.decisions"))
