"""Patolli's decision points, and the expert that searches them.

The one decision of Patolli is which move to make after a roll. A :class:`Point` is a batch of positions with the
die rolled. Candidates: ``0`` enters a button (or, when nothing is legal, loses the roll), ``p + 1`` moves the
mover's button at progress ``p``. Markers are public and the die is the only chance, so nothing is hidden: what no
one can see is the rolls to come, which a playout draws from its own source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from engines import core
from engines.core import Policy
from engines.expert import Search
from engines.patolli import playouts
from engines.patolli.rules import ONE, U64, Moves, Params, State, move, outcome, play_on

ROLLOUT = "balanced"  # the expert's playout policy and default move: the strongest heuristic


def action_of(source_bits: np.ndarray) -> np.ndarray:
    """Candidate numbers of single-bit move sources (0 = enter)."""
    return np.where(source_bits == 0, 0, np.frexp(source_bits.astype(np.float64))[1]).astype(np.int64)


@dataclass(slots=True)
class Point:
    """A batch of Patolli positions after a roll (see the module docstring); rows are independent games."""

    params: Params
    policies: Mapping[str, Policy]  # the registry playouts resolve their policy names in
    state: State  # rows own their arrays; ``game`` numbers the rows
    die: np.ndarray  # (B,) int64: the face rolled
    key: np.ndarray  # (B,) uint64
    moved: bool = False
    players: int = 2
    cooperative: bool = False

    @classmethod
    def at(cls, moves: Moves, policies: Mapping[str, Policy]) -> Point:
        """The decision of every game of ``moves`` (its position copied)."""
        state = moves.position()
        seed = np.uint64(moves.source.search_seed)
        position = core.mix64(state.track[0]) ^ core.mix64(state.track[1] ^ np.uint64(0x5BD1E995))
        stamp = (state.game.astype(np.uint64) << np.uint64(24)) | (state.turn.astype(np.uint64) << np.uint64(4))
        key = core.mix64(seed ^ core.mix64(stamp | moves.die.astype(np.uint64)) ^ position)
        state.game = np.arange(len(state.game))
        return cls(moves.params, policies, state, moves.die.astype(np.int64), key)

    @property
    def seat(self) -> np.ndarray:
        """The mover of each row."""
        return self.state.mover.astype(np.int64)

    def moves(self, source: core.Source | None = None) -> Moves:
        """The legal moves of every row."""
        return Moves(self.params, source, self.state, self.die)

    def legal(self) -> np.ndarray:
        """Entering (or losing the roll when nothing is legal) and every legal button move."""
        moves = self.moves()
        legal = moves.legal
        bits = ((legal[:, None] >> np.arange(self.params.track_length, dtype=U64)) & ONE).astype(bool)
        return np.concatenate([(moves.enter | (legal == 0))[:, None], bits], axis=1)

    def suggest(self, policy: str) -> np.ndarray:
        """The named policy's move."""
        (impl,) = core.policy_instances(self.policies, [policy], self.params)
        moves = self.moves(core.StreamSource(self.key))
        return action_of(impl.choose(moves) & moves.legal)  # as the engine reads it: 0 enters, or loses the roll

    def take(self, rows: np.ndarray) -> Point:
        """Copies of ``rows``."""
        state = self.state.keep_rows(rows)
        state.game = np.arange(len(rows))
        return Point(self.params, self.policies, state, self.die[rows], self.key[rows], self.moved)

    def determinise(self, source: core.Source) -> None:
        """Nothing is hidden."""

    def apply(self, actions: np.ndarray) -> None:
        """Make the chosen moves."""
        source_bits = np.where(actions == 0, U64(0), ONE << (np.maximum(actions, 1) - 1).astype(U64))
        move(self.params, self.state, self.moves(), source_bits)
        self.moved = True

    def play_out(self, seat_policies: Sequence[str], source: core.Source) -> tuple[np.ndarray, np.ndarray]:
        """Play on to the end; every row's winners and buttons finished."""
        if not self.moved:
            raise ValueError("a decision point is played out after its decision is applied")
        if playouts.supports(self.params, seat_policies, source):  # the compiled loop: same games, faster
            final = playouts.play_out(self.params, seat_policies[0], self.state, source)
        else:
            impls = core.policy_instances(self.policies, seat_policies, self.params)
            final = play_on(self.params, impls, self.state, source)
        result = outcome(self.params, final)
        return result["winners"], result["score"]


class Expert:
    """``expert``: every move chosen by :class:`~engines.expert.Search` with ``ROLLOUT`` playouts."""

    def __init__(self, params: Params, playouts: int, policies: Mapping[str, Policy]) -> None:
        """Search with ``playouts`` per decision; playouts name their policies in ``policies``."""
        self.policies = policies
        self.search = Search(playouts, ROLLOUT)

    def choose(self, moves: Moves) -> np.ndarray:
        """The searched move of every game, as a single-bit source (0 = enter)."""
        chosen = self.search.choose(Point.at(moves, self.policies))
        return np.where(chosen == 0, U64(0), ONE << (np.maximum(chosen, 1) - 1).astype(U64))
