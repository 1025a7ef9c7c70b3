"""Panots's decision points, and the seat adapter every player decides them through.

The decision searched is the grab: which warehouse card a seat takes when its turn in the round's grabbing order
comes. A :class:`Point` is a batch of rounds stopped there: the sidewalks, the warehouse, the grabbing order and the
cards already grabbed. Candidates are warehouse slots (``0..C-1``); a free card the seat can place is legal (every
free card when none can be placed). Where to place the card, and what to take in a swap, follow the rollout policy.

Hidden information: the order of every deck (the seat's own included: a deck cannot be looked at). What a seat
knows is the public pool the coming cards are drawn from: the 72 cards minus every card revealed so far. So
:meth:`Point.determinise` deals each copy's coming cards afresh from that pool; the true decks never reach a
playout.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardlab.engines import core
from boardlab.engines.core import Policy
from boardlab.engines.expert import Budget, Rollout, Searcher
from boardlab.engines.panots.features import features_of
from boardlab.engines.panots.kernels import PLANNER
from boardlab.engines.panots.rules import (
    N_CARDS,
    Params,
    State,
    View,
    close_round,
    evaluate_round,
    grab_from,
    outcome,
    play_round,
)
from boardlab.engines.seating import Adapter

ROLLOUT = "planner"  # the expert's playout policy and default move: the strongest heuristic


@dataclass(slots=True)
class Point:
    """A batch of Panots rounds at a grab (see the module docstring); rows are independent games."""

    params: Params
    policies: Mapping[str, Policy]  # the registry playouts resolve their policy names in
    state: State  # rows own their arrays; ``game`` numbers the rows
    wh: np.ndarray  # (B, C) int64: the warehouse cards
    order: np.ndarray  # (B, P) int64: the round's grabbing order
    free: np.ndarray  # (B, C) bool: the cards not yet grabbed
    grabbed: np.ndarray  # (B, P) int64: the slot each earlier grabber took
    count: np.ndarray  # (B, C) int64: the deciding seat's legal placements of each card
    counts: np.ndarray  # (B, P, C) int64: every seat's legal placements of each card
    gains: np.ndarray  # (B, P, C) int64: every seat's best gain of each card (UNPLACEABLE: no legal spot)
    plans: np.ndarray  # (B, P, C) int64: every seat's best value of each card as the planner values it
    k: int  # the deciding seat's place in the grabbing order
    key: np.ndarray  # (B,) uint64
    players: int = 2
    cooperative: bool = False
    done: bool = False

    @classmethod
    def at(
        cls, view: View, st: State, rows: np.ndarray, seats: np.ndarray, k: int, policies: Mapping[str, Policy]
    ) -> Point:
        """The grab of seat ``seats`` (the ``k``-th grabber) in the games ``rows`` of a round (their state copied)."""
        players = st.cell.shape[1]
        n_slots = view.wh.shape[1]
        state = st.take(rows)
        wh = view.wh[rows].copy()
        shape = (len(rows), players, n_slots)
        if (getattr(view, "mode", None) == PLANNER).all():  # the round is valued as the planner values it
            flat = rows[:, None] * players + np.arange(players)
            valued = (view.count[flat], view.best_gain[flat], view.best_plan[flat])
        else:  # every seat valued as the planner would value it
            again = View(state, wh, True, np.full(players, PLANNER), view.params)
            valued = tuple(a.reshape(shape) for a in (again.count, again.best_gain, again.best_plan))
        position = (view.games[rows].astype(np.uint64) << np.uint64(24)) | np.uint64(st.round * 8 + k)
        cards = core.mix64(view.wh[rows].astype(np.uint64) + np.uint64(1)).sum(axis=1, dtype=np.uint64)
        key = core.mix64(np.uint64(view.source.search_seed) ^ core.mix64(position) ^ cards)
        return cls(
            view.params,
            policies,
            state,
            wh,
            view.order[rows].copy(),
            view.free[rows].copy(),
            view.grabbed[rows].copy(),
            view.count[rows * players + seats],
            *valued,
            k,
            key,
            players,
        )

    @property
    def seat(self) -> np.ndarray:
        """The deciding seat of each row."""
        return self.order[:, self.k]

    def legal(self) -> np.ndarray:
        """Free cards the seat can place; every free card when it can place none."""
        placeable = self.free & (self.count > 0)
        return np.where(placeable.any(axis=1, keepdims=True), placeable, self.free)

    def suggest(self, policy: str) -> np.ndarray:
        """The named policy's grab."""
        impls = core.policy_instances(self.policies, [policy] * self.players, self.params)
        view = self._view(impls, core.StreamSource(self.key))
        rows = np.arange(len(self.key))
        return impls[0].grab(view, self.state, rows, self.seat, self.free, self.order, self.k)

    def features(self, viewer: np.ndarray | None = None) -> np.ndarray:
        """Each row's position as seat ``viewer[b]`` sees it (default: the deciding seat); see :mod:`.features`."""
        return features_of(self, self.seat if viewer is None else viewer)

    def take(self, rows: np.ndarray) -> Point:
        """Copies of ``rows``."""
        return Point(
            self.params,
            self.policies,
            self.state.take(rows),
            self.wh[rows],
            self.order[rows],
            self.free[rows],
            self.grabbed[rows],
            self.count[rows],
            self.counts[rows],
            self.gains[rows],
            self.plans[rows],
            self.k,
            self.key[rows],
            self.players,
            self.cooperative,
            self.done,
        )

    def determinise(self, source: core.Source) -> None:
        """Deal every deck's coming cards afresh from the unseen cards (a uniform shuffle of them)."""
        st = self.state
        coming = st.deck.shape[2] - st.round - 1
        if coming <= 0:
            return
        n = len(st.game)
        unseen = np.where(st.seen, N_CARDS, np.arange(N_CARDS))  # seen cards sort last
        unseen.sort(axis=1)
        n_unseen = (~st.seen).sum(axis=1)
        need = self.players * coming
        keys = source.uniform(st.game, need)
        rows = np.arange(n)
        for i in range(need):  # partial Fisher-Yates over each row's unseen cards
            j = i + (keys[:, i] * (n_unseen - i)).astype(np.int64)
            vi, vj = unseen[rows, i].copy(), unseen[rows, j].copy()
            unseen[rows, i], unseen[rows, j] = vj, vi
        st.deck[:, :, st.round + 1 :] = unseen[:, :need].reshape(n, self.players, coming).astype(np.int8)

    def apply(self, actions: np.ndarray) -> None:
        """The seat grabs the chosen card."""
        rows = np.arange(len(actions))
        self.grabbed[rows, self.seat] = actions
        self.free[rows, actions] = False
        self.done = True

    def play_out(self, seat_policies: Sequence[str], source: core.Source) -> tuple[np.ndarray, np.ndarray]:
        """Let the later grabbers grab, finish the round, play the rounds left; every row's winners and VP."""
        if not self.done:
            raise ValueError("a decision point is played out after its decision is applied")
        impls = core.policy_instances(self.policies, seat_policies, self.params)
        st = self.state
        view = self._view(impls, source)
        grab_from(impls, st, view, self.k + 1)
        close_round(impls, st, view)
        while st.round < self.params.cards_per_player:
            play_round(self.params, impls, st, source)
        result = outcome(self.params, st, self.players)
        return result["winners"], result["score"]

    def _view(self, impls: Sequence[object], source: core.Source) -> View:
        """The round's view as ``impls`` value it, with this point's grabbing order and grabs."""
        view = evaluate_round(self.params, impls, self.state, self.wh, source)
        view.order, view.free, view.grabbed = self.order, self.free, self.grabbed
        return view


#: hints' playouts per legal move by table size (ours: hints within 5 s; the planner plays ~30 seven-player games/s)
HINT_PLAYOUTS: Budget = {1: 200, 2: 128, 3: 80, 4: 48, 6: 12}


def hint_policy(params: Params, players: int) -> str:
    """The default strong player of hints and reviews: the expert's rollout policy."""
    return ROLLOUT


@dataclass(slots=True)
class Placement:
    """Where grabbed cards are laid, for a batch of games: candidate ``j`` is the ``j``-th legal placement.

    Placements are in the engine's ``(direction, row, column)`` order; ``ats`` holds each candidate's placement
    code (``d * GRID * GRID + cell``, -1 padding). Not a decision point: it has no look-ahead.
    """

    params: Params
    state: State  # rows own their arrays
    seat: np.ndarray  # (B,) the seat laying a card
    card: np.ndarray  # (B,) the card's id
    ats: np.ndarray  # (B, J) int64
    players: int
    searchable = False  #: hints and reviews pass over it

    @classmethod
    def at(cls, view: View, st: State, rows: np.ndarray, seats: np.ndarray, slots: np.ndarray) -> Placement:
        """The placements of card ``slots`` by ``seats`` in the games ``rows`` of a round."""
        players = st.cell.shape[1]
        r = rows * players + seats
        count = view.count[r, slots]
        ats = np.full((len(rows), max(int(count.max()), 1)), -1, dtype=np.int64)
        for j in range(ats.shape[1]):
            live = np.flatnonzero(count > j)
            ats[live, j] = view.nth_legal(r[live], slots[live], np.full(len(live), j))
        return cls(view.params, st.take(rows), seats.copy(), view.wh[rows, slots], ats, players)

    def legal(self) -> np.ndarray:
        """Every listed placement."""
        return self.ats >= 0

    def take(self, rows: np.ndarray) -> Placement:
        """Copies of ``rows``."""
        return Placement(
            self.params, self.state.take(rows), self.seat[rows], self.card[rows], self.ats[rows], self.players
        )


class Seat(Adapter):
    """Panots's one translation from policy hooks to decision points: every grab (and a person's placements).

    At each grab the seat builds the :class:`Point` and returns ``decide(point, games, propose)``: the search's,
    a model's, a person's or a replay's choice (see :class:`engines.seating.Adapter`). Where a grabbed card is
    laid and what a stuck seat takes instead follow the inner policy (a person's, the expert's and the learned
    player's: the rollout policy); a person is asked where to lay (a :class:`Placement`).
    """

    def __getattr__(self, name: str) -> Any:
        """How the inner policy wants the round valued (the engine reads ``values`` and ``mode``)."""
        if name in ("values", "mode"):
            return getattr(self.__dict__["inner"], name)
        raise AttributeError(name)

    def grab(
        self, view: View, st: State, rows: np.ndarray, seats: np.ndarray, free: np.ndarray, order: np.ndarray, k: int
    ) -> np.ndarray:
        """The decided grab (a warehouse slot) of every game ``rows``."""
        if not len(rows):
            return np.zeros(0, dtype=np.int64)
        point = Point.at(view, st, rows, seats, k, self.policies)
        own = lambda: np.asarray(self.inner.grab(view, st, rows, seats, free, order, k))  # noqa: E731
        return self.decide(point, np.asarray(view.games)[rows], self.offer(point, own))

    def place(self, view: View, st: State, rows: np.ndarray, seats: np.ndarray, slots: np.ndarray) -> np.ndarray:
        """A person's chosen placement; a policy's own."""
        if not self.asks or not len(rows):
            return self.inner.place(view, st, rows, seats, slots)
        point = Placement.at(view, st, rows, seats, slots)

        def propose() -> np.ndarray:
            at = np.asarray(self.inner.place(view, st, rows, seats, slots))
            return (point.ats == at[:, None]).argmax(axis=1)

        chosen = self.decide(point, np.asarray(view.games)[rows], propose)
        return point.ats[np.arange(len(rows)), chosen]

    def swap(self, view: View, st: State, rows: np.ndarray, seats: np.ndarray, options: np.ndarray) -> np.ndarray:
        """The inner policy's swap."""
        return self.inner.swap(view, st, rows, seats, options)


def expert(params: Params, playouts: int | Rollout, policies: Mapping[str, Policy], default: int) -> Seat:
    """``expert``: every grab searched (:class:`~engines.expert.Searcher`); the rollout policy places and swaps.

    The round's values are the planner's (its placements and swaps are the rollout's).
    """
    search = Searcher.of(params, playouts, ROLLOUT, default, policies)
    (rollout,) = core.policy_instances(policies, [search.rollout], params)
    seat = Seat(rollout, search, policies)
    seat.values, seat.mode = False, PLANNER
    return seat
