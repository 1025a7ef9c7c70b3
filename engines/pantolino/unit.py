"""Pantolino's learned unit: the exact per-turn programme over the value model's values after each token.

At the start of a turn the model values the position after each token the mover could take and after taking
nothing; the keeps are then the exact per-turn dynamic programme over the dice that maximises the expected value of
where the turn ends (:mod:`engines.pantolino.keepdp`), and the token is the best valued one the last throw allows.
Model values are computed once per turn and reused by every roll's keep and by the token choice. The models
themselves (settings, training, caching) are the learned lifecycle's (:mod:`engines.learned.lifecycle`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from boardlab.engines.learned.lifecycle import Lifecycle
from boardlab.engines.learned.training import Model
from boardlab.engines.pantolino import keepdp
from boardlab.engines.pantolino.dice import DiceTables
from boardlab.engines.pantolino.features import (
    candidate_views,
    decided,
    features_of,
    relative_owner,
    relative_start,
    tails,
)
from boardlab.engines.pantolino.rules import Params, Turn, TurnMemo, fits, tie_possible, token_colour, token_value

TERMINAL_ROWS = 1024  #: positions whose restricted last-throw values are computed at once (bounds memory)


class Unit(Lifecycle):
    """The value model's per-turn unit (see the module docstring); ``learned`` is it with Pantolino's spec.

    Its models come from the lifecycle (:class:`engines.learned.lifecycle.Lifecycle`) unless given.
    """

    #: worth of a boot when model values tie (ours): a decided game is still played to its end, not drawn out for
    #: hundreds of turns by a mover to whom every choice is worth exactly a win (or a loss)
    boots_tiebreak = 1e-9

    def __init__(self, params: Params, models: dict[int, Model] | None = None) -> None:
        """Play ``params``; models by player count are loaded (or trained) on first use unless given."""
        self.params, self.tables = params, params.tables
        self.models = dict(models or {})
        self.colour, self.value = token_colour(params), token_value(params)
        self.sparse = keepdp.Sparse.of(self.tables)
        self.memo: TurnMemo[TurnValues] = TurnMemo()
        self.rules: tuple[TurnRule, ...] = ()  # restrictions of the keeps and the token (none: the full player)

    def restrict(self, rules: Sequence[TurnRule]) -> None:
        """Play under ``rules`` from now on: keep options masked in the programme, tokens masked in the choice.

        Where a rule leaves a throw no keep option, or a throw's fitting tokens none, all of them stay (a forced
        move). Rules only ever remove candidates; the values and the model are the full player's.
        """
        self.rules, self.memo = tuple(rules), TurnMemo()
        keeps = [rule.keeps(self.tables) for rule in self.rules if rule.keeps is not None]
        if keeps:
            self.sparse = replace(self.sparse, options=keepdp.restricted_options(self.sparse.options, keeps))

    @property
    def token_rules(self) -> bool:
        """Whether a rule restricts the token choice."""
        return any(rule.tokens is not None for rule in self.rules)

    def successor_values(self, turn: Turn) -> TurnValues:
        """The model's values after each candidate of this turn, per distinct position (computed once a turn)."""
        return self.memo.get(turn, lambda: self.compute_successor_values(turn))

    def compute_successor_values(self, turn: Turn) -> TurnValues:
        """:meth:`successor_values`, computed."""
        first, inverse = distinct_positions(turn)
        unique = turn.subset(first)
        values = self.candidate_shares(unique)[..., 0]
        stay = values[:, -1]  # taking nothing
        take = np.where(unique.available, values[:, :-1] + self.boots_tiebreak * self.value, -np.inf)
        if self.token_rules:
            terminal = self.restricted_terminal(unique, take, stay)
        else:
            terminal = keepdp.terminal_values(take, stay, self.colour, self.value, self.sparse.eff)
        return TurnValues(take, stay, inverse, [terminal])

    def restricted_terminal(self, turn: Turn, take: np.ndarray, stay: np.ndarray) -> np.ndarray:
        """``(U, F)``: :func:`keepdp.terminal_values` with the token rules: the best allowed fitting token's value."""
        n_tokens = len(self.value)
        fit = ((self.tables.fit_mask[:, None] >> np.arange(n_tokens)) & 1).astype(bool)  # (F, T)
        out = np.empty((len(take), len(fit)))
        for lo in range(0, len(take), TERMINAL_ROWS):
            rows = np.arange(lo, min(lo + TERMINAL_ROWS, len(take)))
            fitting = turn.available[rows, None, :] & fit[None]  # (rows, F, T)
            allowed = allowed_tokens(self.rules, turn.subset(rows), fitting)
            best = np.where(allowed, take[rows, None, :], -np.inf).max(axis=2)
            out[rows] = np.where(fitting.any(axis=2), best, stay[rows, None])
        return out

    def candidate_shares(self, turn: Turn) -> np.ndarray:
        """``(B, T + 1, K)``: the model's shares (seats from the mover) after each candidate, certain ones exact."""
        self.prepare(turn.players)
        view = candidate_views(turn)
        n, width = view.supply.shape[:2]
        flat = features_of(self.params, view).reshape(n * width, -1)
        shares = self.models[turn.players].predict_all(flat).reshape(n, width, -1).astype(np.float64)
        certain = decided(self.params, view)
        won, lost = certain == 1.0, certain == 0.0
        shares[won] = np.eye(shares.shape[2])[0]
        shares[lost, 0] = 0.0
        if shares.shape[2] > 1:  # a lost viewer's share goes to the others, in the model's proportions
            rest = shares[lost, 1:]
            total = rest.sum(axis=1, keepdims=True)
            shares[lost, 1:] = np.where(total > 0, rest / np.where(total > 0, total, 1), 1 / rest.shape[1])
        return shares

    def throw_values(self, turn: Turn, rolls_left: int) -> TurnValues:
        """This turn's values, with the value of every throw known up to ``rolls_left`` rolls left."""
        values = self.successor_values(turn)
        while len(values.by_rolls) <= rolls_left:
            values.by_rolls.append(keepdp.advance(values.by_rolls[-1], self.sparse))
        return values

    def turn_value(self, turn: Turn) -> np.ndarray:
        """Each mover's expected model value of where its turn ends, under the best keeps: ``(B,)``."""
        values = self.throw_values(turn, self.tables.rolls - 1)
        return keepdp.first_roll(values.by_rolls[self.tables.rolls - 1], self.sparse)[values.inverse]

    def turn_shares(self, turn: Turn) -> np.ndarray:
        """Every seat's expected model share (seats from the mover) where the mover's turn ends: ``(B, K)``.

        The mover keeps and takes what maximises its own share (:meth:`keep`, :meth:`choose`); the other seats'
        shares follow those decisions.
        """
        first, inverse = distinct_positions(turn)
        unique = turn.subset(first)
        shares = self.candidate_shares(unique)
        take = np.where(unique.available, shares[:, :-1, 0] + self.boots_tiebreak * self.value, -np.inf)
        mover = keepdp.terminal_values(take, shares[:, -1, 0], self.colour, self.value, self.sparse.eff)
        others = keepdp.terminal_companions(take, shares[:, -1, 0], shares, self.colour, self.value, self.sparse.eff)
        for _ in range(self.tables.rolls - 1):
            mover, others = keepdp.advance(mover, self.sparse), keepdp.advance_companions(mover, others, self.sparse)
        return keepdp.first_roll(others, self.sparse)[inverse]

    def keep(self, turn: Turn, code: np.ndarray, rolls_left: int) -> np.ndarray:
        """The keep that maximises the expected value of where the turn ends."""
        values = self.throw_values(turn, rolls_left - 1)
        throw = self.tables.full_position[self.tables.index_of_code[code]].astype(np.int64)
        kept = keepdp.pick(values.by_rolls[rolls_left - 1], values.inverse, throw, self.sparse)
        return self.tables.codes[kept]

    def choose(self, turn: Turn, throw: np.ndarray) -> np.ndarray:
        """The best valued token the throw allows (near-ties to the preferred token), or -1."""
        values = self.successor_values(turn)
        fitting = fits(turn, throw)
        if self.token_rules:
            fitting = allowed_tokens(self.rules, turn, fitting & turn.available)
        masked = np.where(fitting, values.take[values.inverse], -np.inf)
        best = masked.max(axis=1, keepdims=True)
        near = masked >= best - keepdp.NEAR
        preferred = masked.shape[1] - 1 - near[:, ::-1].argmax(axis=1)
        return np.where(np.isneginf(best[:, 0]), -1, preferred)


class TurnRule(Protocol):
    """A restriction as the learned unit reads it (see :mod:`engines.pantolino.restrictions`)."""

    #: ``tables -> (F, J)``: which keep options of each complete throw are allowed (None: keeps are free)
    keeps: Callable[[DiceTables], np.ndarray] | None
    #: ``(turn, fitting) -> allowed``: which of the fitting claimable tokens ``(B, ..., T)`` may be taken (None: any)
    tokens: Callable[[Turn, np.ndarray], np.ndarray] | None


def allowed_tokens(rules: Sequence[TurnRule], turn: Turn, fitting: np.ndarray) -> np.ndarray:
    """``fitting`` narrowed by every rule's tokens; where none is left, ``fitting`` itself (a forced take)."""
    allowed = fitting.copy()
    for rule in rules:
        if rule.tokens is not None:
            allowed &= rule.tokens(turn, fitting)
    return np.where(allowed.any(axis=-1, keepdims=True), allowed, fitting)


@dataclass
class TurnValues:
    """One turn's model values, per distinct position: what every keep and the token choice read."""

    take: np.ndarray  # (U, T): the mover's value after taking each token, -inf where it is not available
    stay: np.ndarray  # (U,): the mover's value after taking nothing
    inverse: np.ndarray  # (B,): each game's distinct position
    by_rolls: list[np.ndarray]  # [r]: (U, F) value of each throw with r rolls left (r = 0: where the turn ends)


def distinct_positions(turn: Turn) -> tuple[np.ndarray, np.ndarray]:
    """``(first, inverse)``: one game per distinct position as its mover sees it, and each game's position.

    Games in lock-step meet the same positions often (in 2-player games of 20,000, five times per position on
    average), and a position determines the model's values and so the keep tables. The position is what the
    features and candidates read: supply and boots by relative seat, or, where colours or steals matter, every
    token's relative owner and each seat's last two tokens; with a head start, the seats' head starts too.
    """
    params, players = turn.params, turn.players
    rel = relative_owner(turn.owner, turn.mover, players)
    if not params.escaping_boots and not tie_possible(params, players):
        seats = np.arange(players)
        boots = ((rel[:, None, :] == seats[None, :, None]) * turn.value).sum(axis=2)
        parts = np.concatenate([turn.supply_bits[:, None], boots], axis=1)
    elif params.escaping_boots and params.steal_from == "tail":
        parts = np.concatenate([rel, *tails(rel, turn.state.taken_at, players)], axis=1)
    else:
        parts = rel
    if params.head_start:  # seen from the mover, the head starts depend on who moves
        parts = np.concatenate([parts, relative_start(params, turn.mover, players)], axis=1)
    rows = np.ascontiguousarray(parts.astype(np.int64))
    _, first, inverse = np.unique(
        rows.view(np.dtype((np.void, rows.shape[1] * 8))).ravel(), return_index=True, return_inverse=True
    )
    return first, inverse.ravel()
