"""Restricted play: a strong player that may not make some of its choices (Jaffe et al. 2012).

A :class:`Restriction` names a choice a player gives up ("never keeps a joker") by a mask over a decision point's
candidates: ``allowed(point)`` is ``(B, C)`` bool, or ``None`` where the restriction does not concern that kind of
point. Applied to a point it leaves ``legal & allowed``; in a row where nothing allowed is legal (a forced move:
the only legal candidates are the ones it forbids) the row keeps its legal candidates, so a restricted player
always has a move and "never" reads "never unless the rules leave no other move".

:class:`RestrictedPoint` is a decision point seen through restrictions. The expert (:mod:`engines.expert`) and the
generic learned choice (:mod:`engines.learned.choice`) read only ``point.legal()``, so either, handed a restricted
point, plays restricted (the expert's playouts still play the unrestricted rollout policy in every seat: a model of
the others, and of the restricted player's later choices, that we accept). A game whose strong player decides by
its own unit (not through decision points) restricts inside that unit and says how in its package.

A restricted policy is named ``policy!restriction`` (several: ``policy!a!b``), e.g. ``learned!never-steal`` or
``expert:64@learned!never-steal``: a policy that takes restrictions carries a ``restrict`` hook
(:attr:`engines.core.Policy.restrict`, made by :func:`restricting` from the game's restrictions and its own way of
restricting an implementation). A game declares its restrictions in its record
(:attr:`engines.record.Record.restrictions`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardlab.engines.core import DecisionPoint, Policy, did_you_mean

MARK = "!"  #: separates a policy from its restrictions in a policy name


def always(params: Any) -> bool:
    """A restriction that applies under every setting of the knobs."""
    return True


@dataclass(frozen=True)
class Restriction:
    """A choice a player gives up: a name, what the player does in plain words, and the mask.

    ``does`` completes "a player who …" ("never keeps a joker"). ``applies(params)`` says whether the choice
    exists under these knobs (stealing needs the escaping-boots variant). ``unit`` is a game's own form of the
    same rule, for a strong player that decides without decision points (None: none needed).
    """

    name: str
    does: str
    allowed: Callable[[Any], np.ndarray | None]
    applies: Callable[[Any], bool] = always
    needs: str = ""  #: what the knobs must say for the choice to exist (when ``applies`` can refuse), in words
    unit: Any = None


def restricted_legal(point: DecisionPoint, restrictions: Sequence[Restriction]) -> np.ndarray:
    """``(B, C)``: the legal candidates every restriction allows; a row with none keeps its legal candidates."""
    legal = point.legal()
    mask = legal.copy()
    for restriction in restrictions:
        allowed = restriction.allowed(point)
        if allowed is not None:
            mask &= allowed
    forced = ~mask.any(axis=1)
    mask[forced] = legal[forced]
    return mask


class RestrictedPoint:
    """A decision point whose legal candidates are narrowed by restrictions; everything else is the point's own.

    ``suggest`` keeps the named policy's candidate where it is allowed, else gives the first allowed one (the
    expert's default move must be one the restricted player may make).
    """

    def __init__(self, point: DecisionPoint, restrictions: Sequence[Restriction]) -> None:
        """Narrow ``point`` by ``restrictions``."""
        self.point, self.restrictions = point, tuple(restrictions)

    def __getattr__(self, name: str) -> Any:
        """The wrapped point's attribute (seat, key, players, features, apply, play_out, ...)."""
        return getattr(self.__dict__["point"], name)

    def legal(self) -> np.ndarray:
        """See :func:`restricted_legal`."""
        return restricted_legal(self.point, self.restrictions)

    def suggest(self, policy: str) -> np.ndarray:
        """The policy's candidate where allowed, else the row's first allowed candidate."""
        chosen = np.asarray(self.point.suggest(policy), dtype=np.int64)
        legal = self.legal()
        rows = np.flatnonzero(~legal[np.arange(len(chosen)), chosen])
        chosen[rows] = legal[rows].argmax(axis=1)
        return chosen

    def take(self, rows: np.ndarray) -> RestrictedPoint:
        """Copies of ``rows``, restricted alike."""
        return RestrictedPoint(self.point.take(rows), self.restrictions)


@dataclass(frozen=True)
class RestrictedSearch:
    """A search (anything with ``choose(point)``, e.g. :class:`engines.expert.Search`) over restricted points."""

    search: Any
    restrictions: tuple[Restriction, ...]

    def __getattr__(self, name: str) -> Any:
        """The search's own attribute (``rollout``, ``playouts``)."""
        return getattr(self.search, name)

    def choose(self, point: DecisionPoint) -> np.ndarray:
        """The search's choice among the allowed candidates."""
        return self.search.choose(RestrictedPoint(point, self.restrictions))


Wrap = Callable[[Any, tuple[Restriction, ...]], Any]
"""``wrap(impl, restrictions)``: a game's way of restricting a fresh implementation of one of its policies."""


@dataclass(frozen=True)
class Restricted:
    """The ``impl`` of a restricted policy: builds the base policy's implementation, then restricts it."""

    impl: Any
    restrictions: tuple[Restriction, ...]
    wrap: Wrap

    @property
    def prepare(self) -> Any:
        """The base implementation's ``prepare`` (its absence is an ``AttributeError``, as for the base).

        A run checks for it to load a policy's tables or model once, before any worker starts.
        """
        return self.impl.prepare

    def __call__(self, params: Any, *arg: Any) -> Any:
        """A fresh (unshared) implementation of the base policy for ``params``, restricted.

        Raises:
            ValueError: for a restriction whose choice does not exist under ``params``.
        """
        for restriction in self.restrictions:
            if not restriction.applies(params):
                raise ValueError(
                    f"restriction '{restriction.name}' removes nothing under these rules"
                    f"{f' (it needs {restriction.needs})' if restriction.needs else ''}"
                )
        return self.wrap(self.impl(params, *arg), self.restrictions)


@dataclass(frozen=True)
class RestrictedDecide:
    """A decide function (``decide(point, games, propose)``) that sees restricted points; else the wrapped one."""

    decide: Any
    restrictions: tuple[Restriction, ...]

    def __getattr__(self, name: str) -> Any:
        """The wrapped decide function's own attribute (the expert's ``prepare``, ``search``)."""
        decide = self.__dict__.get("decide")
        if decide is None or name.startswith("__"):  # unpickling asks before the fields are set
            raise AttributeError(name)
        return getattr(decide, name)

    def __call__(self, point: DecisionPoint, games: np.ndarray, propose: Callable[[], np.ndarray]) -> np.ndarray:
        """The wrapped choice among the allowed candidates."""
        return self.decide(RestrictedPoint(point, self.restrictions), games, propose)


@dataclass(frozen=True)
class OnPoints:
    """A game's :data:`Wrap` for players who decide on its decision points, so a restricted point restricts them.

    Such a player is the game's seat adapter (:class:`engines.seating.Adapter`) with a decide function (the
    expert's search, a learned player's model) in its attribute ``hook``; the function then sees restricted points.
    """

    def __call__(self, impl: Any, restrictions: tuple[Restriction, ...]) -> Any:
        """Restrict ``impl`` (a fresh implementation); a policy without a decide function takes no restriction."""
        hook = getattr(impl, "hook", None)
        if hook is None:
            raise TypeError(f"{type(impl).__name__} takes no restriction")
        setattr(impl, hook, RestrictedDecide(getattr(impl, hook), restrictions))
        return impl


def parse_names(text: str, restrictions: Mapping[str, Restriction], policy: str) -> tuple[str, ...]:
    """The restriction names of ``a!b`` in the order the game declares them; unknown or repeated: ``ValueError``."""
    names = text.split(MARK)
    for name in names:
        if name not in restrictions:
            raise ValueError(
                f"unknown restriction '{name}' of policy '{policy}'{did_you_mean(name, list(restrictions))}"
            )
    if len(set(names)) != len(names):
        raise ValueError(f"policy '{policy}{MARK}{text}' names a restriction twice")
    return tuple(n for n in restrictions if n in names)


def restricting(restrictions: Mapping[str, Restriction], wrap: Wrap) -> Callable[[Policy, str], Policy]:
    """A policy's ``restrict`` hook: ``(bound policy, "a!b") -> the restricted policy``, named canonically."""

    def restrict(policy: Policy, text: str) -> Policy:
        names = parse_names(text, restrictions, policy.name)
        chosen = tuple(restrictions[n] for n in names)
        return dataclasses.replace(
            policy, name=MARK.join((policy.name, *names)), impl=Restricted(policy.impl, chosen, wrap), restrict=None
        )

    return restrict


def name_of(policy: str, restrictions: Sequence[str]) -> str:
    """``policy!a!b``: the policy name of ``policy`` under ``restrictions`` (none: ``policy`` itself)."""
    return MARK.join((policy, *restrictions))


STRONG_PREFERENCE = ("learned", "expert")
"""The default strong player of commands that need one: the first of these a game offers."""


def default_strong(policies: Mapping[str, Policy]) -> str:
    """The strong player a command uses when none is named: ``learned`` where the game has one, else ``expert``."""
    for name in STRONG_PREFERENCE:
        if name in policies:
            return name
    raise ValueError(f"this game offers no strong player ({' or '.join(STRONG_PREFERENCE)}); name one with --strong")
