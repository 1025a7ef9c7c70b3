"""Panots's decision points, and the expert that searches them.

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

import numpy as np

from boardlab.engines import core
from boardlab.engines.core import Policy
from boardlab.engines.expert import Rollout, Search
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


class Expert:
    """``expert``: every grab chosen by :class:`~engines.expert.Search` with rollout playouts; the rollout places."""

    values = False
    mode = PLANNER  # the round's values are the planner's: its placements and swaps are the rollout's

    def __init__(self, params: Params, playouts: int | Rollout, policies: Mapping[str, Policy], default: int) -> None:
        """Search with ``playouts`` per decision; playouts name their policies in ``policies``.

        A :class:`~engines.expert.Rollout` (``expert:N@P``) also names the playout policy, else ``ROLLOUT``, and
        may leave the budget to ``default``. The rollout policy places cards and chooses swaps.
        """
        self.params, self.policies = params, policies
        rollout = playouts.rollout if isinstance(playouts, Rollout) else ROLLOUT
        budget = playouts.playouts if isinstance(playouts, Rollout) else playouts
        self.search = Search(budget or default, rollout)
        (self.rollout,) = core.policy_instances(policies, [rollout], params)

    def prepare(self, players: int) -> None:
        """Let the playout policy load (or train) what it needs before play starts."""
        hook = getattr(self.rollout, "prepare", None)
        if hook is not None:
            hook(players)

    def grab(
        self, view: View, st: State, rows: np.ndarray, seats: np.ndarray, free: np.ndarray, order: np.ndarray, k: int
    ) -> np.ndarray:
        """The searched grab of every game."""
        return self.search.choose(Point.at(view, st, rows, seats, k, self.policies))

    def place(self, view: View, st: State, rows: np.ndarray, seats: np.ndarray, slots: np.ndarray) -> np.ndarray:
        """The rollout policy's placement."""
        return self.rollout.place(view, st, rows, seats, slots)

    def swap(self, view: View, st: State, rows: np.ndarray, seats: np.ndarray, options: np.ndarray) -> np.ndarray:
        """The rollout policy's swap."""
        return self.rollout.swap(view, st, rows, seats, options)
