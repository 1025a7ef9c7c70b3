"""Patolli's decision points, and the seat adapter every player decides them through.

Three decisions. Which move to make after a roll: a :class:`Point` is a batch of positions with the die rolled;
candidates ``0`` enters a button (or, when nothing is legal, loses the roll), ``p + 1`` moves the mover's button at
progress ``p``. Whether to take the extra move a grey corner offers (knob ``grey_extra=optional``): an
:class:`ExtraPoint` is a batch of positions just after such a landing; candidates ``0`` takes it, ``1`` passes
the turn. Where to put a marker (knob ``marker_placement=players``): a :class:`MarkerPoint` is a batch of games
being set up; candidates are the squares. Markers are public and the die is the only chance, so nothing is
hidden: what no one can see is the rolls to come, which a playout draws from its own source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from boardlab.engines import core
from boardlab.engines.core import Policy
from boardlab.engines.expert import Budget
from boardlab.engines.patolli import playouts
from boardlab.engines.patolli.features import features_of
from boardlab.engines.patolli.rules import (
    CAPPED,
    INFO,
    ONE,
    SAFE,
    U64,
    Moves,
    Params,
    State,
    free_squares,
    keeps,
    marker_sets,
    move,
    place_markers,
    placements,
    play_on,
    roll_off,
    standings,
)
from boardlab.engines.seating import Adapter

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
        key = position_key(moves.source.search_seed, state, moves.die)
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

    def features(self, viewer: np.ndarray | None = None) -> np.ndarray:
        """Each row's position as seat ``viewer[b]`` sees it (default: the deciding seat); see :mod:`.features`."""
        return features_of(self.params, self.state, self.seat if viewer is None else viewer)

    def apply(self, actions: np.ndarray) -> None:
        """Make the chosen moves."""
        source_bits = np.where(actions == 0, U64(0), ONE << (np.maximum(actions, 1) - 1).astype(U64))
        (impl,) = core.policy_instances(self.policies, [ROLLOUT], self.params)  # playouts decide extra moves
        source = core.StreamSource(self.key)
        move(
            self.params,
            self.state,
            self.moves(),
            source_bits,
            lambda r: keeps([impl, impl], self.params, self.state, r, source),
        )
        self.moved = True

    def play_out(self, seat_policies: Sequence[str], source: core.Source) -> tuple[np.ndarray, np.ndarray]:
        """Play on to the end; every row's winners and buttons finished."""
        if not self.moved:
            raise ValueError("a decision point is played out after its decision is applied")
        return finish(self.params, self.policies, self.state, seat_policies, source)


def finish(
    params: Params, policies: Mapping[str, Policy], state: State, seat_policies: Sequence[str], source: core.Source
) -> tuple[np.ndarray, np.ndarray]:
    """Play ``state`` on to the end (in place): every row's winners and buttons finished."""
    if playouts.supports(params, seat_policies, source):  # the compiled loop: the same games, faster
        final = playouts.play_out(params, seat_policies[0], state, source)
    else:
        impls = core.policy_instances(policies, seat_policies, params)
        final = play_on(params, impls, state, source)
    score, _, winners = standings(final)  # only what the search reads: the game's other columns cost a sixth
    return winners, score


def position_key(seed: int, state: State, salt: np.ndarray) -> np.ndarray:
    """A search key per row from the run's search seed, the game, the turn, the buttons and ``salt``."""
    position = core.mix64(state.track[0]) ^ core.mix64(state.track[1] ^ np.uint64(0x5BD1E995))
    stamp = (state.game.astype(np.uint64) << np.uint64(24)) | (state.turn.astype(np.uint64) << np.uint64(4))
    return core.mix64(np.uint64(seed) ^ core.mix64(stamp | salt.astype(np.uint64)) ^ position)


@dataclass(slots=True)
class ExtraPoint:
    """A batch of positions just after a landing on a grey corner whose extra move is optional (the mover to move)."""

    params: Params
    policies: Mapping[str, Policy]
    state: State  # rows own their arrays; ``game`` numbers the rows
    key: np.ndarray  # (B,) uint64
    moved: bool = False
    players: int = 2
    cooperative: bool = False

    @property
    def seat(self) -> np.ndarray:
        """The mover of each row."""
        return self.state.mover.astype(np.int64)

    def legal(self) -> np.ndarray:
        """Taking the extra move and passing are both legal."""
        return np.ones((len(self.key), 2), dtype=bool)

    def suggest(self, policy: str) -> np.ndarray:
        """The named policy's choice: 0 takes the extra move, 1 passes."""
        (impl,) = core.policy_instances(self.policies, [policy], self.params)
        rows = np.arange(len(self.key))
        return (~keeps([impl, impl], self.params, self.state, rows, core.StreamSource(self.key))).astype(np.int64)

    def take(self, rows: np.ndarray) -> ExtraPoint:
        """Copies of ``rows``."""
        state = self.state.keep_rows(rows)
        state.game = np.arange(len(rows))
        return ExtraPoint(self.params, self.policies, state, self.key[rows], self.moved)

    def determinise(self, source: core.Source) -> None:
        """Nothing is hidden."""

    def features(self, viewer: np.ndarray | None = None) -> np.ndarray:
        """Each row's position as seat ``viewer[b]`` sees it (default: the deciding seat); see :mod:`.features`."""
        return features_of(self.params, self.state, self.seat if viewer is None else viewer)

    def apply(self, actions: np.ndarray) -> None:
        """Pass the turn where the action is 1 (the turn ends as after any move)."""
        passing = actions == 1
        self.state.turn += passing
        self.state.mover ^= passing.astype(np.int8)
        capped = (self.state.turn >= INFO.turn_cap) & (self.state.reason < 0)
        self.state.reason[capped] = CAPPED
        self.moved = True

    def play_out(self, seat_policies: Sequence[str], source: core.Source) -> tuple[np.ndarray, np.ndarray]:
        """Play on to the end; every row's winners and buttons finished."""
        if not self.moved:
            raise ValueError("a decision point is played out after its decision is applied")
        return finish(self.params, self.policies, self.state, seat_policies, source)


@dataclass(slots=True)
class MarkerPoint:
    """A batch of games being set up, at placement ``step`` of :func:`~engines.patolli.rules.placements`.

    Candidates: the squares ``0..L-1`` (legal where a marker of the kind may still go). A playout places the
    remaining markers by the playout policies, rolls off for the first move and plays the game.
    """

    params: Params
    policies: Mapping[str, Policy]
    state: State  # rows own their arrays; ``game`` numbers the rows
    step: int
    key: np.ndarray  # (B,) uint64
    moved: bool = False
    players: int = 2
    cooperative: bool = False

    @property
    def seat(self) -> np.ndarray:
        """The placing seat (the same for every row)."""
        return np.full(len(self.key), placements(self.params)[self.step][1], dtype=np.int64)

    def legal(self) -> np.ndarray:
        """The squares still free for this kind of marker."""
        return free_squares(self.params, self.state, placements(self.params)[self.step][0])

    def suggest(self, policy: str) -> np.ndarray:
        """The named policy's square."""
        (impl,) = core.policy_instances(self.policies, [policy], self.params)
        return np.asarray(impl.place(self.params, self.state, self.step, core.StreamSource(self.key)), np.int64)

    def take(self, rows: np.ndarray) -> MarkerPoint:
        """Copies of ``rows``."""
        state = self.state.keep_rows(rows)
        state.game = np.arange(len(rows))
        return MarkerPoint(self.params, self.policies, state, self.step, self.key[rows], self.moved)

    def determinise(self, source: core.Source) -> None:
        """Nothing is hidden."""

    def features(self, viewer: np.ndarray | None = None) -> np.ndarray:
        """Each row's position as seat ``viewer[b]`` sees it (default: the deciding seat); see :mod:`.features`."""
        return features_of(self.params, self.state, self.seat if viewer is None else viewer)

    def apply(self, actions: np.ndarray) -> None:
        """Put the marker on the chosen squares."""
        kind = placements(self.params)[self.step][0]
        safe, bad = marker_sets(self.params, self.state)
        bit = ONE << actions.astype(U64)
        self.state.set_markers(self.params, safe | bit if kind == SAFE else safe, bad | bit if kind != SAFE else bad)
        self.moved = True

    def play_out(self, seat_policies: Sequence[str], source: core.Source) -> tuple[np.ndarray, np.ndarray]:
        """Place the other markers, roll off, and play on to the end."""
        if not self.moved:
            raise ValueError("a decision point is played out after its decision is applied")
        impls = core.policy_instances(self.policies, seat_policies, self.params)
        place_markers(self.params, self.state, source, impls, self.step + 1)
        roll_off(self.params, self.state, source)
        return finish(self.params, self.policies, self.state, seat_policies, source)


HINT_PLAYOUTS: Budget = 200  #: hints' playouts per legal move (ours: hints within 5 s at the largest table)
MARKER_SALT, EXTRA_SALT = 0x100, 15  #: stream-key salts of a marker step (plus the step) and an extra move (no die)


def hint_policy(params: Params, players: int) -> str:
    """The default strong player of hints and reviews: the expert's rollout policy."""
    return ROLLOUT


class Seat(Adapter):
    """Patolli's one translation from policy hooks to decision points: every move, extra move and marker.

    At each decision the seat builds the point (:class:`Point`, :class:`ExtraPoint`, :class:`MarkerPoint`) and
    returns ``decide(point, games, propose)``: the search's, a model's, a person's or a replay's choice (see
    :class:`engines.seating.Adapter`). A seat that does not ask answers what its policy answers, so a run replayed
    through seats plays the same games.
    """

    def choose(self, moves: Moves) -> np.ndarray:
        """The decided move of every game, as a single-bit source (0 = enter)."""
        if not len(moves.games):
            return np.zeros(0, dtype=U64)
        point = Point.at(moves, self.policies)
        own = lambda: action_of(self.inner.choose(moves) & moves.legal)  # noqa: E731
        chosen = self.decide(point, np.asarray(moves.games), self.offer(point, own))
        return np.where(chosen == 0, U64(0), ONE << (np.maximum(chosen, 1) - 1).astype(U64))

    def place(self, params: Params, state: State, step: int, source: core.Source) -> np.ndarray:
        """Every game's square for marker ``step``."""
        position = state.keep_rows(np.arange(len(state.game)))
        key = position_key(source.search_seed, position, np.full(len(state.game), MARKER_SALT + step))
        position.game = np.arange(len(state.game))
        point = MarkerPoint(params, self.policies, position, step, key)

        def own() -> np.ndarray:
            square = np.asarray(self.inner.place(params, state, step, source), dtype=np.int64)
            legal = point.legal()
            ok = (square >= 0) & (square < legal.shape[1])
            ok[ok] &= legal[np.flatnonzero(ok), square[ok]]
            return np.where(ok, square, legal.argmax(axis=1))  # as the engine reads an illegal pick

        return self.decide(point, np.asarray(state.game), self.offer(point, own))

    def keep_extra(self, params: Params, state: State, rows: np.ndarray, source: core.Source) -> np.ndarray:
        """Whether each mover of ``rows`` takes the extra move of its grey corner."""
        position = state.keep_rows(rows)
        key = position_key(source.search_seed, position, np.full(len(rows), EXTRA_SALT))
        position.game = np.arange(len(rows))
        point = ExtraPoint(params, self.policies, position, key)

        def own() -> np.ndarray:
            rule = getattr(self.inner, "keep_extra", None)
            take = np.ones(len(rows), dtype=bool) if rule is None else rule(params, state, rows, source)
            return (~np.asarray(take, dtype=bool)).astype(np.int64)

        return self.decide(point, np.asarray(state.game)[rows], self.offer(point, own)) == 0
