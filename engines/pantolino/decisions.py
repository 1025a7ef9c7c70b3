"""Pantolino's decision points, and the expert that searches them.

A turn holds two kinds of decision: which dice to keep before each reroll, and which token to take after the last
throw. A :class:`Point` is a batch of positions at one of them: the game state, the dice on the table and the
rolls left. Candidates: a keep is the ``j``-th sub-multiset of the throw in the tie order of
:attr:`~engines.pantolino.dice.DiceTables.keep_options` (keeping every die means stopping); a token is its id, and
the last candidate, ``n_tokens``, takes nothing (legal only when no token fits). Pantolino has no hidden
information: what no one can see is the dice to come, which a playout draws from its own source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from boardlab.engines import core
from boardlab.engines.core import Policy
from boardlab.engines.expert import Budget, Rollout, Search, default_playouts
from boardlab.engines.pantolino import learned
from boardlab.engines.pantolino.rules import (
    Params,
    State,
    Turn,
    _for_each_policy,
    end_turn,
    fits,
    play_on,
    prepare,
    roll_dice,
    score,
    take_token,
)

KEEP, ROLL, CHOOSE, DONE = 0, 1, 2, 3  # stages: choosing a keep, dice kept and to roll, choosing a token, turn over
ROLLOUT = "turn-optimal"  # the expert's playout policy and default move: the strongest fast heuristic


@dataclass(slots=True)
class Point:
    """A batch of Pantolino positions at a decision (see the module docstring); rows are independent games."""

    params: Params
    players: int
    policies: Mapping[str, Policy]  # the registry playouts resolve their policy names in
    state: State  # rows own their arrays; ``game`` numbers the rows
    stage: int
    dice: np.ndarray  # (B,) int64: KEEP, ROLL: multiset code of the dice (kept dice once ROLL); CHOOSE: throw index
    rolls_left: int  # KEEP, ROLL: rolls still allowed, the coming one included
    key: np.ndarray  # (B,) uint64
    cooperative: bool = False

    @classmethod
    def at(cls, turn: Turn, stage: int, dice: np.ndarray, rolls_left: int, policies: Mapping[str, Policy]) -> Point:
        """The decision of every game in ``turn`` (its state copied) with ``dice`` on the table."""
        state = turn.state.keep_rows(np.arange(len(turn.games)))
        position = (state.game.astype(np.uint64) << np.uint64(24)) | (state.turn.astype(np.uint64) << np.uint64(4))
        key = core.mix64(np.uint64(turn.source.search_seed) ^ core.mix64(position | np.uint64(stage * 4 + rolls_left)))
        state.game = np.arange(len(state.game))
        return cls(turn.params, turn.players, policies, state, stage, np.asarray(dice, np.int64), rolls_left, key)

    @property
    def seat(self) -> np.ndarray:
        """The mover of each row."""
        return (self.state.turn % self.players).astype(np.int64)

    def turn(self, source: core.Source | None = None) -> Turn:
        """The mover's view of every row (chance from ``source`` where the turn goes on)."""
        return Turn(self.params, self.players, source, self.state, self.seat)

    def keep_options(self) -> np.ndarray:
        """``(B, J)`` indices of the sub-multisets of each row's throw (-1 padding)."""
        tables = self.params.tables
        return tables.keep_options[tables.full_position[tables.index_of_code[self.dice]]]

    def legal(self) -> np.ndarray:
        """Keeps: every sub-multiset; tokens: those the throw allows, or nothing when none does."""
        if self.stage == KEEP:
            return self.keep_options() >= 0
        turn = self.turn()
        options = turn.available & fits(turn, self.dice)
        return np.concatenate([options, ~options.any(axis=1, keepdims=True)], axis=1)

    def suggest(self, policy: str) -> np.ndarray:
        """The named policy's keep (as its number among the keep options) or token (``n_tokens`` for none)."""
        (impl,) = core.policy_instances(self.policies, [policy], self.params)
        turn = self.turn(core.StreamSource(self.key))
        if self.stage == KEEP:
            kept = impl.keep(turn, self.dice, self.rolls_left)
            options = self.keep_options()
            return (self.params.tables.codes[np.maximum(options, 0)] == kept[:, None]).argmax(axis=1)
        token = impl.choose(turn, self.dice)
        return np.where(token < 0, self.params.n_tokens, token)

    def take(self, rows: np.ndarray) -> Point:
        """Copies of ``rows``."""
        state = self.state.keep_rows(rows)
        state.game = np.arange(len(rows))
        return Point(
            self.params,
            self.players,
            self.policies,
            state,
            self.stage,
            self.dice[rows],
            self.rolls_left,
            self.key[rows],
        )

    def features(self, viewer: np.ndarray | None = None) -> np.ndarray:
        """Each row's position as seat ``viewer`` (default: the deciding seat) sees it (the learned players' hook).

        Pantolino hides nothing, so the features read the whole position; see :mod:`engines.pantolino.learned`.
        """
        viewer = self.seat if viewer is None else np.asarray(viewer, dtype=np.int64)
        view = learned.view_of(self.params, self.players, self.state.owner, self.state.taken_at, viewer)
        return learned.features_of(self.params, view)

    def determinise(self, source: core.Source) -> None:
        """Nothing is hidden."""

    def apply(self, actions: np.ndarray) -> None:
        """Keep the chosen dice, or take the chosen token and end the turn."""
        if self.stage == KEEP:
            options = self.keep_options()
            self.dice = self.params.tables.codes[options[np.arange(len(actions)), actions]]
            self.stage = ROLL
            return
        turn = self.turn()
        self.state.best_count[np.arange(len(actions)), turn.tables.best_count[self.dice]] += 1
        take_token(turn, np.where(actions == self.params.n_tokens, -1, actions))
        self.stage = DONE

    def play_out(self, seat_policies: Sequence[str], source: core.Source) -> tuple[np.ndarray, np.ndarray]:
        """Finish the turn (roll what was not kept), then play on to the end; every row's winners and boots."""
        impls = core.policy_instances(self.policies, seat_policies, self.params)
        if self.stage == ROLL:
            turn = self.turn(source)
            throw = _for_each_policy(impls, turn, lambda impl, t, r: roll_dice(impl, t, self.dice[r], self.rolls_left))
            end_turn(impls, turn, throw)
        elif self.stage != DONE:
            raise ValueError("a decision point is played out after its decision is applied")
        final = play_on(self.params, impls, self.state, source, exact=True)
        boots, _, winners = score(self.params, final.owner, self.players)
        return winners, boots


class Expert:
    """``expert``: every keep and token chosen by :class:`~engines.expert.Search` (``ROLLOUT`` or ``P`` playouts)."""

    def __init__(
        self, params: Params, playouts: int | Rollout | None, policies: Mapping[str, Policy], defaults: Budget
    ) -> None:
        """Search with ``playouts`` per decision, or ``defaults`` for the table's player count when ``None``.

        A :class:`~engines.expert.Rollout` (``expert:N@P``) also names the playout policy, else ``ROLLOUT``.
        """
        self.params, self.policies, self.defaults = params, policies, defaults
        self.rollout = playouts.rollout if isinstance(playouts, Rollout) else ROLLOUT
        self.playouts = playouts.playouts if isinstance(playouts, Rollout) else playouts

    def prepare(self, players: int) -> None:
        """Let the playout policy load (or train) what it needs before play starts."""
        (impl,) = core.policy_instances(self.policies, [self.rollout], self.params)
        prepare(impl, players)

    def search(self, players: int) -> Search:
        """The search for a table of ``players``."""
        return Search(self.playouts or default_playouts(self.defaults, players), self.rollout)

    def keep(self, turn: Turn, code: np.ndarray, rolls_left: int) -> np.ndarray:
        """The searched keep of every game."""
        point = Point.at(turn, KEEP, code, rolls_left, self.policies)
        options = point.keep_options()
        chosen = self.search(turn.players).choose(point)
        return self.params.tables.codes[options[np.arange(len(chosen)), chosen]]

    def choose(self, turn: Turn, throw: np.ndarray) -> np.ndarray:
        """The searched token of every game (-1 for none)."""
        chosen = self.search(turn.players).choose(Point.at(turn, CHOOSE, throw, 0, self.policies))
        return np.where(chosen == self.params.n_tokens, -1, chosen)
