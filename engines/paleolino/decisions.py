"""Paleolino's decision points, and the seat adapter every player decides them through.

Two decisions of a turn are searched. ``CAVE``: which cave to open, after the turn's chips have rolled; candidate
``v`` opens cave ``v`` (every cave is legal). ``KEEP``: which chips to keep on the backpack at the turn's end;
candidate ``j`` keeps the ``j``-th bag of :func:`keep_options` (legal when the middle and backpack hold it and,
without ``backpack_swap``, it holds the backpack's chips). The builds and the payment follow the rollout policy.
Paleolino is cooperative: a playout's value is 1 when the table wins.

The default budget depends on memory (:func:`default_playouts`): :data:`PLAYOUTS` per decision, and
:data:`MEMORYLESS_PLAYOUTS` when the table remembers nothing (``memory=0``). With nothing remembered every cave's
expected content follows only from the chips seen falling since it was last opened, so the caves differ little in
value, and 32 playouts cannot tell them apart: the search then rarely leaves the planner's move (34.2% against the
planner's 34.9% of 2-player games, paired on the same 1,500 games), while 128 beat it (McNemar p < 0.01).

What no player can see is redrawn for every playout (:meth:`Point.determinise`), from public information only:
the chips lying in caves are known by type (pulled less collected); those the table remembers stay where they
are, and each other chip is placed in turn in a cave with chance proportional to the cave's weight share times
the room left for it there (chips of that type pulled unplaced since the cave was last opened). The cards under
the stack tops are dealt anew from the unbuilt, unseen cards. The hand axe is public; its future pulls come from
the playout's own source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from boardlab.engines import core
from boardlab.engines.core import Policy
from boardlab.engines.expert import MAX_PLAYOUTS, Budget, Rollout, Searcher, parse_playouts
from boardlab.engines.paleolino.building import iterative_builds
from boardlab.engines.paleolino.features import features_of
from boardlab.engines.paleolino.rules import (
    Params,
    State,
    Turn,
    bag_min,
    bag_tables,
    open_cave,
    outcome,
    pack,
    play_on,
    store_chips,
)
from boardlab.engines.seating import Adapter

CAVE, KEEP = 0, 1  # stages: choosing a cave, choosing the chips kept
ROLLOUT = "planner"  # the expert's playout policy and default move: the strongest heuristic
ROLLOUTS = ("learned",)  #: the other playout policies ``expert:N@P`` may name
PLAYOUTS = 32  #: the expert's default playouts per decision (ours: beats the planner at memory 1, ~3 games/s)
MEMORYLESS_PLAYOUTS = 128  #: ... when the table remembers nothing (memory=0), where 32 cannot tell caves apart
BUDGET = (
    f"N = playouts per decision, 1..{MAX_PLAYOUTS} (default {PLAYOUTS}; {MEMORYLESS_PLAYOUTS} with memory=0, where "
    f"the caves differ too little for {PLAYOUTS} to tell apart); e.g. expert:{4 * PLAYOUTS}; expert:N@P plays out "
    f"with P, one of {', '.join(ROLLOUTS)} (e.g. expert:64@{ROLLOUTS[0]})"
)
"""The ``argument`` text of ``expert`` (``simulate list paleolino``)."""


def default_playouts(params: Params) -> int:
    """The default playouts per decision for ``params``: more when the table remembers nothing."""
    return MEMORYLESS_PLAYOUTS if params.memory == 0 else PLAYOUTS


def parse_budget(text: str | None) -> int | Rollout | None:
    """The ``N`` of ``expert:N`` or ``expert:N@P`` (one-line ``ValueError`` when out of range), ``None``: default.

    :func:`expert` then picks the budget from the knobs (:func:`default_playouts`).
    """
    return None if text is None else parse_playouts(text, PLAYOUTS, ROLLOUTS)


@lru_cache(maxsize=4)
def keep_options(capacity: int) -> np.ndarray:
    """Every bag of at most ``capacity`` chips, fewest chips first, then by bag value."""
    _, chips_in, _ = bag_tables()
    bags = np.flatnonzero(chips_in <= capacity)
    return bags[np.lexsort((bags, chips_in[bags]))].astype(np.int64)


@dataclass(slots=True)
class Point:
    """A batch of Paleolino positions at a cave or keep decision (see the module docstring)."""

    params: Params
    policies: Mapping[str, Policy]  # the registry playouts resolve their policy names in
    players: int
    stage: int  # CAVE or KEEP
    state: State  # rows own their arrays; ``game`` numbers the rows
    key: np.ndarray  # (B,) uint64
    applied: bool = False
    cooperative: bool = True

    @classmethod
    def at(cls, turn: Turn, stage: int, policies: Mapping[str, Policy]) -> Point:
        """The decision ``stage`` of every game in ``turn`` (its state copied)."""
        state = turn.state.keep_rows(np.arange(len(turn.state.game))[turn.rows])
        stamp = (state.game.astype(np.uint64) << np.uint64(24)) | (state.turn.astype(np.uint64) << np.uint64(4))
        key = core.mix64(np.uint64(turn.source.search_seed) ^ core.mix64(stamp | np.uint64(stage)))
        state.game = np.arange(len(state.game))
        return cls(turn.params, policies, turn.players, stage, state, key)

    @property
    def seat(self) -> np.ndarray:
        """The mover of each row."""
        return (self.state.turn % self.players).astype(np.int64)

    def turn(self, source: core.Source) -> Turn:
        """The mover's view of every row."""
        mover = int(self.state.turn[0]) % self.players if len(self.state.game) else 0
        return Turn(self.params, self.params.tables(self.players), source, self.state, mover, slice(None))

    def features(self, viewer: np.ndarray | None = None) -> np.ndarray:
        """Every row's position as the table sees it (:mod:`engines.paleolino.features`; the same for any viewer).

        The phase follows the stage: before or after the cave is opened, before the keep or after it (the next
        turn's start).
        """
        return features_of(self.params, self.players, self.state, 2 * self.stage + int(self.applied))

    def legal(self) -> np.ndarray:
        """Every cave may be opened; a keep must be held by the middle and backpack (and hold it, if no swap)."""
        if self.stage == CAVE:
            return np.ones((len(self.state.game), self.params.caves), dtype=bool)
        _, _, spread = bag_tables()
        options = spread[keep_options(self.params.backpack)][None, :]
        turn = self.turn(core.StreamSource(self.key))
        pool = spread[turn.pool][:, None]
        legal = bag_min(options, pool) == options
        if not self.params.backpack_swap:
            own = spread[turn.own][:, None]
            legal &= bag_min(options, own) == own
        return legal

    def suggest(self, policy: str) -> np.ndarray:
        """The named policy's cave or keep (as its number among the keep options)."""
        (impl,) = core.policy_instances(self.policies, [policy], self.params)
        turn = self.turn(core.StreamSource(self.key))
        if self.stage == CAVE:
            return impl.cave(turn)
        kept = impl.store(turn, turn.pool)
        return (keep_options(self.params.backpack)[None, :] == kept[:, None]).argmax(axis=1)

    def take(self, rows: np.ndarray) -> Point:
        """Copies of ``rows``."""
        state = self.state.keep_rows(rows)
        state.game = np.arange(len(rows))
        return replace(self, state=state, key=self.key[rows])

    def determinise(self, source: core.Source) -> None:
        """Redraw the caves' unremembered chips and the cards under the tops from public information only."""
        st, p = self.state, self.params
        n, v = len(st.game), p.caves
        counts = bag_tables()[0]
        held = counts[st.axe].astype(np.int64) + counts[st.pit] + counts[st.middle] + counts[st.backpack].sum(axis=1)
        belief = counts[st.belief].astype(np.int64)
        unplaced = np.array(p.chips) - held - belief.sum(axis=1)  # (B, 4)
        room = counts[st.forgotten].astype(np.float64)  # (B, V, 4): at most this many unplaced chips per cave
        shares = p.cave_shares
        placed = np.zeros((n, v, 4), dtype=np.int64)
        width = int(unplaced.sum(axis=1).max()) if n else 0
        u = source.uniform(np.arange(n), max(width, 1))
        column = np.zeros(n, dtype=np.int64)
        rows = np.arange(n)
        for t in range(4):
            for j in range(int(unplaced[:, t].max()) if n else 0):
                live = rows[unplaced[:, t] > j]
                weight = room[live, :, t] * shares
                cum = np.cumsum(weight, axis=1)
                target = u[live, column[live]] * cum[:, -1]
                cave = np.minimum((cum <= target[:, None]).sum(axis=1), v - 1)
                placed[live, cave, t] += 1
                room[live, cave, t] -= 1
                column[live] += 1
        st.caves[:] = st.belief + pack(placed).astype(np.uint16)
        self._deal_hidden(source)

    def _deal_hidden(self, source: core.Source) -> None:
        """Deal the unseen cards (sorted, so only their set matters) at random into the places under the tops."""
        st = self.state
        tables = self.params.tables(self.players)
        n, stacks, depth = st.deck.shape
        pos = np.arange(depth)
        hidden = (pos[None, None, :] > st.taken[:, :, None]) & (pos[None, None, :] < tables.stack_len[None, :, None])
        flat = st.deck.reshape(n, -1).astype(np.int64)
        mask = hidden.reshape(n, -1)
        cards = np.sort(np.where(mask, flat, tables.dummy), axis=1)  # the hidden cards first, in id order
        keys = np.where(mask, source.uniform(np.arange(n), flat.shape[1]), 2.0)
        slots = np.argsort(keys, axis=1, kind="stable")  # hidden places in random order, then the rest
        count = mask.sum(axis=1)
        rows = np.repeat(np.arange(n), count)
        index = np.arange(len(rows)) - np.repeat(np.cumsum(count) - count, count)
        flat[rows, slots[rows, index]] = cards[rows, index]
        st.deck[:] = flat.reshape(n, stacks, depth).astype(st.deck.dtype)

    def apply(self, actions: np.ndarray) -> None:
        """Open the chosen caves, or keep the chosen chips and end the turn."""
        actions = np.asarray(actions, dtype=np.int64)
        if self.stage == CAVE:
            open_cave(self.state, actions)
        else:
            mover = int(self.state.turn[0]) % self.players if len(actions) else 0
            store_chips(self.params, self.state, slice(None), keep_options(self.params.backpack)[actions], mover)
            self.state.turn += 1
        self.applied = True

    def play_out(self, seat_policies: Sequence[str], source: core.Source) -> tuple[np.ndarray, np.ndarray]:
        """Finish the turn, then play on to the end; every row's winners (the whole table) and inventions."""
        if not self.applied:
            raise ValueError("a decision point is played out after its decision is applied")
        impls = core.policy_instances(self.policies, seat_policies, self.params)
        out = self.state.keep_rows(np.arange(len(self.state.game)))
        play_on(self.params, impls, self.state, source, out, mid_turn=self.stage == CAVE)
        result = outcome(self.params, out)
        return result["winners"], result["score"]


HINT_PLAYOUTS: Budget = 200  #: hints' playouts per legal move (ours: hints within 5 s at the largest table)


def hint_policy(params: Params, players: int) -> str:
    """The default strong player of hints and reviews: the expert's rollout policy."""
    return ROLLOUT


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


class Seat(Adapter):
    """Paleolino's one translation from policy hooks to decision points: every cave and keep, a person's builds.

    At each cave and keep the seat builds the :class:`Point` and returns ``decide(point, games, propose)``: the
    search's, a model's, a person's or a replay's choice (see :class:`engines.seating.Adapter`). A person also
    builds, one affordable stack top at a time until they stop (a :class:`Build`: a choice without look-ahead, so
    hints and reviews pass over it); which chips pay follows the inner policy (a person's, the expert's and the
    learned player's: the rollout policy).
    """

    def cave(self, turn: Turn) -> np.ndarray:
        """The decided cave of every game."""
        if not len(turn):
            return np.zeros(0, dtype=np.int64)
        point = Point.at(turn, CAVE, self.policies)
        own = lambda: np.asarray(self.inner.cave(turn), dtype=np.int64)  # noqa: E731
        return self.decide(point, np.asarray(turn.games), self.offer(point, own))

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
        point = Point.at(turn, KEEP, self.policies)

        def own() -> np.ndarray:
            kept = np.asarray(self.inner.store(turn, left))
            return (options[None, :] == kept[:, None]).argmax(axis=1)

        return options[self.decide(point, np.asarray(turn.games), self.offer(point, own))]


def expert(params: Params, playouts: int | Rollout | None, policies: Mapping[str, Policy]) -> Seat:
    """``expert``: caves and keeps searched (:class:`~engines.expert.Searcher`); builds and payment as ``ROLLOUT``.

    Its budget by default is :func:`default_playouts` of the knobs; ``expert:N@P`` plays out with ``P``.
    """
    (rollout,) = core.policy_instances(policies, [ROLLOUT], params)
    return Seat(rollout, Searcher.of(params, playouts, ROLLOUT, default_playouts(params), policies), policies)
