"""Pantolino's restrictions: choices a player can give up, as masks over its decision points (see engines.restrict).

A turn has two kinds of decision (:mod:`engines.pantolino.decisions`): which dice to keep before a reroll, and which
token to take after the last throw. Each restriction is a :class:`TurnRule`: an allowed-keep table over every
complete throw's keep options (``keeps``), and/or an allowed-token mask over the fitting claimable tokens
(``tokens``). The learned player reads the rule inside its own unit (keep options masked in its per-turn programme,
tokens masked in its choice and in the programme's last-throw values); the expert reads the same rule through a
restricted decision point. Where a rule leaves nothing (only a stolen token fits, for a player who never steals),
the rules' own choices stay: a forced move.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from boardlab.engines.pantolino.decisions import KEEP, Point
from boardlab.engines.pantolino.dice import DiceTables
from boardlab.engines.pantolino.learned import Learned
from boardlab.engines.pantolino.rules import Params, Turn, fits
from boardlab.engines.restrict import OnPoints, Restriction


@dataclass(frozen=True)
class TurnRule:
    """A restriction as Pantolino's deciders read it (the learned unit's :class:`~.learned.TurnRule`)."""

    keeps: Callable[[DiceTables], np.ndarray] | None = None
    tokens: Callable[[Turn, np.ndarray], np.ndarray] | None = None

    def allowed(self, point: Point) -> np.ndarray | None:
        """The decision point's allowed candidates, or None where the rule does not concern that decision."""
        tables = point.params.tables
        if point.stage == KEEP:
            if self.keeps is None:
                return None
            return self.keeps(tables)[tables.full_position[tables.index_of_code[point.dice]]]
        if self.tokens is None:
            return None
        turn = point.turn()
        fitting = turn.available & fits(turn, point.dice)
        return np.concatenate([self.tokens(turn, fitting), np.ones((len(fitting), 1), dtype=bool)], axis=1)


def kept_counts(tables: DiceTables) -> np.ndarray:
    """``(F, J, categories)``: dice of each category in every keep option of every complete throw."""
    return tables.counts[np.maximum(tables.keep_options, 0)]


def no_joker_kept(tables: DiceTables) -> np.ndarray:
    """Keep options holding no joker."""
    return kept_counts(tables)[..., tables.joker] == 0


def every_joker_kept(tables: DiceTables) -> np.ndarray:
    """Keep options holding every joker of the throw."""
    jokers = tables.counts[tables.full][:, tables.joker]
    return kept_counts(tables)[..., tables.joker] == jokers[:, None]


def some_die_rerolled(tables: DiceTables) -> np.ndarray:
    """Keep options that leave at least one die to reroll (keeping every die stops the turn)."""
    return tables.sizes[np.maximum(tables.keep_options, 0)] < tables.dice


def by_rows(position: np.ndarray, like: np.ndarray) -> np.ndarray:
    """A ``(B, T)`` mask shaped to broadcast against ``(B, ..., T)``."""
    return position.reshape(position.shape[0], *(1,) * (like.ndim - 2), position.shape[1])


def not_stolen(turn: Turn, fitting: np.ndarray) -> np.ndarray:
    """Tokens that are not on an opponent's centipede."""
    if turn.stealable is None:
        return np.ones_like(fitting)
    return fitting & ~by_rows(turn.stealable, fitting)


def largest(turn: Turn, fitting: np.ndarray) -> np.ndarray:
    """The fitting tokens of the most boots."""
    value = np.where(fitting, turn.value, 0)
    return fitting & (value == value.max(axis=-1, keepdims=True))


def has_jokers(params: Params) -> bool:
    """Whether the dice have a joker face."""
    return params.joker_faces > 0


def steals(params: Params) -> bool:
    """Whether tokens can be taken from opponents (escaping boots)."""
    return params.escaping_boots


def rolls_twice(params: Params) -> bool:
    """Whether a turn has a reroll at all."""
    return params.rolls > 1


def restriction(name: str, does: str, rule: TurnRule, applies: Callable[[Params], bool], needs: str) -> Restriction:
    """A :class:`~engines.restrict.Restriction` whose mask is ``rule``'s."""
    return Restriction(name, does, rule.allowed, applies, needs, rule)


#: in the order of how much of the turn each fixes (ours: the token choice, then the keeps, then one option)
RESTRICTIONS: dict[str, Restriction] = {
    r.name: r
    for r in (
        restriction(
            "largest-token",
            "always takes a largest token that fits",
            TurnRule(tokens=largest),
            lambda params: True,
            "",
        ),
        restriction(
            "never-keep-joker",
            "never keeps a joker (rerolls every joker)",
            TurnRule(keeps=no_joker_kept),
            has_jokers,
            "joker_faces of at least 1",
        ),
        restriction(
            "never-reroll-joker",
            "never rerolls a joker",
            TurnRule(keeps=every_joker_kept),
            has_jokers,
            "joker_faces of at least 1",
        ),
        restriction(
            "always-reroll",
            "never stops rolling early (rerolls at least one die while rolls are left)",
            TurnRule(keeps=some_die_rerolled),
            rolls_twice,
            "rolls of at least 2",
        ),
        restriction(
            "never-steal",
            "never steals a token (unless nothing else fits)",
            TurnRule(tokens=not_stolen),
            steals,
            "the escaping-boots variant",
        ),
    )
}


def restricted(impl: object, restrictions: tuple[Restriction, ...]) -> object:
    """``learned`` or ``expert`` (a fresh implementation) playing under ``restrictions``."""
    if isinstance(impl, Learned):
        impl.restrict([r.unit for r in restrictions])
        return impl
    return OnPoints()(impl, restrictions)
