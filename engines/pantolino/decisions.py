"""Pantolino's decision points, and the seat adapter every player but ``learned`` decides them through.

A turn holds two kinds of decision: which dice to keep before each reroll, and which token to take after the last
throw. A :class:`Point` is a batch of positions at one of them: the game state, the dice on the table and the
rolls left. Candidates: a keep is the ``j``-th sub-multiset of the throw in the tie order of
:attr:`~engines.pantolino.dice.DiceTables.keep_options` (keeping every die means stopping); a token is its id, and
the last candidate, ``n_tokens``, takes nothing (legal only when no token fits). Pantolino has no hidden
information: what no one can see is the dice to come, which a playout draws from its own source.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from boardlab.engines import core
from boardlab.engines.core import Policy
from boardlab.engines.expert import Budget
from boardlab.engines.pantolino import learned, solver
from boardlab.engines.pantolino.rules import (
    Params,
    State,
    Turn,
    _for_each_policy,
    end_turn,
    fits,
    play_on,
    roll_dice,
    score,
    take_token,
)
from boardlab.engines.seating import Adapter, Decide

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
        return replace(self, state=state, dice=self.dice[rows], key=self.key[rows])

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


#: hints' playouts per legal move by table size (ours: hints within 5 s; 8 seats took 4 s at 200)
HINT_PLAYOUTS: Budget = {2: 200, 6: 100}
EXACT_POLICY = "win-optimal"  #: hints and reviews play this where the exact 2-player solution covers the knobs


def hint_policy(params: Params, players: int) -> str:
    """The default strong player of hints and reviews: ``win-optimal`` where it is exact, else the rollout."""
    with contextlib.suppress(ValueError):  # the solver refuses the table: the rollout policy
        solver.check_supported(params, players)
        return EXACT_POLICY
    return ROLLOUT


class Seat(Adapter):
    """Pantolino's one translation from policy hooks to decision points: every keep and every token.

    At each keep and token choice the seat builds the :class:`Point` and returns ``decide(point, games,
    propose)``: the search's, a person's or a replay's choice (see :class:`engines.seating.Adapter`; the learned
    player decides by its own turn programme). A seat that does not ask answers what its policy answers, so a run
    replayed through seats plays the same games. Keeping every die throws none now (the engine's reading of
    stopping): a person is asked again before each throw left.
    """

    def __init__(
        self,
        inner: object,
        decide: Decide,
        policies: Mapping[str, Policy],
        asks: bool = False,
        whole_turns: bool = False,
    ) -> None:
        """See :class:`~engines.seating.Adapter`; ``whole_turns``: keep ``inner``'s sampler.

        With ``whole_turns`` a policy that draws each turn's last throw whole (as runs do) is left to do so, and
        only its token choices are seen; without, every keep is a decision.
        """
        super().__init__(inner, decide, policies, asks)
        self.whole_turns = whole_turns

    def __getattr__(self, name: str) -> Any:
        """The inner policy's sampler and its key, only when whole turns are drawn."""
        if name in ("sampler", "turn_key") and self.__dict__.get("whole_turns"):
            return getattr(self.inner, name)
        raise AttributeError(name)

    def keep(self, turn: Turn, code: np.ndarray, rolls_left: int) -> np.ndarray:
        """The kept dice of every game, as decided."""
        games = np.asarray(turn.games)
        if not len(games):
            return code
        point = Point.at(turn, KEEP, code, rolls_left, self.policies)
        options = point.keep_options()
        codes = point.params.tables.codes

        def own() -> np.ndarray:
            kept = self.inner.keep(turn, code, rolls_left)
            return (codes[np.maximum(options, 0)] == kept[:, None]).argmax(axis=1)

        chosen = self.decide(point, games, self.offer(point, own))
        return codes[options[np.arange(len(chosen)), chosen]]

    def choose(self, turn: Turn, throw: np.ndarray) -> np.ndarray:
        """The decided token of every game (-1 for none)."""
        games = np.asarray(turn.games)
        if not len(games):
            return np.zeros(0, dtype=np.int64)
        point = Point.at(turn, CHOOSE, throw, 0, self.policies)
        n_tokens = point.params.n_tokens

        def own() -> np.ndarray:
            token = np.asarray(self.inner.choose(turn, throw))
            return np.where(token < 0, n_tokens, token)

        chosen = self.decide(point, games, self.offer(point, own))
        return np.where(chosen == n_tokens, -1, chosen)


def watching(inner: object, decide: Decide, policies: Mapping[str, Policy]) -> Seat:
    """A seat that plays as ``inner`` does in a run (whole turns drawn where it draws them), shown to ``decide``."""
    return Seat(inner, decide, policies, False, whole_turns=True)
