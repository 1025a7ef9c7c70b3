"""Cargolino Valentino's decision points, and the seat adapter every player decides them through.

A turn holds one decision per die: which (die colour, snail) pair to play. A :class:`Point` is a batch of
positions at one of them: the game state, the mover, the dice still to use and how many were used. Candidate
``6 * snail + colour`` moves ``snail`` with a die of ``colour``; every row has at least one legal candidate.

What the mover cannot see is who holds the other snails. The ``expert`` keeps a belief over the deal (the
detective's model, :mod:`~engines.cargolino.beliefs`), and its points never hold the true deal: each point and
each playout draws the other seats' tokens from that belief (:meth:`Point.determinise`). ``expert-oracle``
searches the same way with the true deal (its ``determinise`` does nothing), and so do both when ownership is
open. Future races are dealt afresh inside the playouts, from the playout's own source.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from boardlab.engines import core
from boardlab.engines.cargolino import beliefs, features
from boardlab.engines.cargolino.rules import (
    N_SNAILS,
    Params,
    State,
    Step,
    Table,
    after_turn,
    hypothesis_index,
    new_outcome,
    outcome,
    play_on,
    use_dice,
)
from boardlab.engines.core import Policy
from boardlab.engines.expert import Budget, Rollout, Search, Searcher, by_table_size
from boardlab.engines.restrict import RestrictedSearch, Restriction, restricted_legal
from boardlab.engines.seating import Adapter

ROLLOUT = "detective"  # the experts' default move (from the seat's belief) and playout policy (the drawn deal)
ACTIONS = N_SNAILS * N_SNAILS  # candidate 6 * snail + colour
SAMPLE_SALT = np.uint64(0xC2B2AE3D27D4EB4F)  # separates the point's own sample of the deal from the playouts'
HIDE_SALT = np.uint64(0x165667B19E3779F9)  # the belief expert's draw of whether to hide at a decision


def fresh_instances(policies: Mapping[str, Policy], names: Sequence[str], params: Params) -> list[object]:
    """New policy implementations (never the cached ones: a policy's per-turn caches belong to its real game)."""
    return [
        p.impl(params, p.arg) if p.parse_arg is not None else p.impl(params)
        for p in core.resolve_policies(policies, names)
    ]


@dataclass(slots=True)
class Point:
    """A batch of Cargolino positions at a die decision (see the module docstring); rows are independent games."""

    params: Params
    policies: Mapping[str, Policy]  # the registry playouts resolve their policy names in
    players: int
    state: State  # rows own their arrays; ``game`` numbers the rows
    mover: np.ndarray  # (B,) int64
    code: np.ndarray  # (B,) int64: the dice still to use
    die: int  # dice of the turn already used
    belief: np.ndarray  # (B, H) the mover's belief over its hypotheses (empty when the deal is seen)
    key: np.ndarray  # (B,) uint64
    hidden: bool  # whether the other seats' tokens are drawn from the belief
    moved: bool = False
    cooperative: bool = False
    marginals: np.ndarray | None = None  # (B, P, 6) the mover's holdings, when kept at the point's making

    @classmethod
    def at(cls, step: Step, policies: Mapping[str, Policy], truth: bool, keep: bool = False) -> Point:
        """The decision of every game of ``step``; without ``truth`` the deal is a draw from the mover's belief.

        ``keep``: work out the mover's holdings once now (:meth:`holdings`), for the features of every candidate.
        """
        table = step.table
        state = step.state.keep_rows(np.arange(len(step.state.game))[step.rows])
        hidden = not truth and not table.params.open_ownership
        belief = np.zeros((len(step.mover), 0))
        if hidden:
            belief = state.belief[np.arange(len(step.mover)), table.detective_index[step.mover]]
        state.belief = np.zeros((len(step.mover), 0, 1))
        state.accuracy = np.zeros((len(step.mover), 0))
        position = (step.pos.astype(np.uint64) << (np.uint64(8) * np.arange(N_SNAILS, dtype=np.uint64))).sum(axis=1)
        stamp = (step.games.astype(np.uint64) << np.uint64(24)) | (state.turn.astype(np.uint64) << np.uint64(4))
        key = core.mix64(np.uint64(table.source.search_seed) ^ core.mix64(stamp | np.uint64(step.die)))
        key ^= core.mix64(position ^ core.mix64(step.code.astype(np.uint64)))
        state.game = np.arange(len(step.mover))
        point = cls(
            table.params,
            policies,
            table.players,
            state,
            step.mover.copy(),
            step.code.copy(),
            step.die,
            belief,
            key,
            hidden,
        )
        point.determinise(core.StreamSource(key ^ SAMPLE_SALT))  # the true deal of the others never stays
        if keep:
            point.marginals = point.holdings()
        return point

    @property
    def seat(self) -> np.ndarray:
        """The mover of each row."""
        return self.mover

    def legal(self) -> np.ndarray:
        """``(B, 36)``: candidate ``6 * snail + colour`` is legal when that die may move that snail."""
        masks = self.params.tables.legal(self.state.pos, self.code)
        return ((masks[:, :, None] >> np.arange(N_SNAILS)) & 1).reshape(len(masks), ACTIONS).astype(bool)

    def suggest(self, policy: str) -> np.ndarray:
        """The named policy's move (its random draws from a stream keyed by the decision).

        A policy that believes reads the mover's belief; where the deal is seen (``expert-oracle``, open
        ownership) it reads the deal.
        """
        (impl,) = fresh_instances(self.policies, [policy], self.params)
        table = Table.of(self.params, [impl] * self.players, core.StreamSource(self.key))
        state = self.state
        if self.hidden and getattr(impl, "believes", False):
            state = self.state.keep_rows(np.arange(len(self.mover)))
            state.belief = self.belief[:, None, :]  # belief column 0 is the mover's in every row
            table.detective_index = np.zeros(self.players, dtype=np.int64)
        else:
            table.playout = True
        own = state.held[np.arange(len(self.mover)), self.mover]
        snail, colour = impl.choose(Step(table, state, slice(None), self.mover, own, self.code, self.die))
        return snail * N_SNAILS + colour

    def holdings(self) -> np.ndarray:
        """``(B, P, 6)``: the chance each seat holds each snail, as the mover knows it.

        From the mover's belief and its own tokens where the deal is hidden (never the drawn deal the point
        holds); the deal itself where it is seen.
        """
        if self.marginals is not None:
            return self.marginals
        if not self.hidden:
            return features.deal_holdings(self.state.owner, self.players)
        hyps = beliefs.hypotheses(self.players, self.params.each(self.players))
        hyp = hyps.cons[self.mover, self.state.held[np.arange(len(self.mover)), self.mover]]
        return features.belief_holdings(self.belief, hyp, hyps)

    def features(self, viewer: np.ndarray | None = None) -> np.ndarray:
        """Each row's position as its mover sees it (:mod:`~engines.cargolino.features`; the learned hook).

        A point holds only its mover's belief, so ``viewer`` must be the mover.

        Raises:
            ValueError: for a viewer that is not the row's mover.
        """
        if viewer is not None and not np.array_equal(viewer, self.mover):
            raise ValueError("a Cargolino decision point has features only for its mover (it keeps only its belief)")
        s = self.state
        return features.features_of(self.params, s.pos, self.code, s.banked, s.race, self.mover, self.holdings())

    def take(self, rows: np.ndarray) -> Point:
        """Copies of ``rows``."""
        state = self.state.keep_rows(rows)
        state.game = np.arange(len(rows))
        rowwise = {name: getattr(self, name)[rows] for name in ("mover", "code", "belief", "key")}
        marginals = None if self.marginals is None else self.marginals[rows]
        return replace(self, state=state, marginals=marginals, **rowwise)

    def determinise(self, source: core.Source) -> None:
        """Deal the other seats' tokens afresh from the mover's belief (nothing to do when the deal is seen)."""
        if not self.hidden:
            return
        table = Table.of(self.params, [None] * self.players, source)
        hyp = hypothesis_index(table, self.state, slice(None), self.mover)
        column = beliefs.sample_column(self.belief, source.uniform(self.state.game, 1)[:, 0])
        deal = hyp[np.arange(len(hyp)), column]
        self.state.owner[:] = table.hyps.owners[deal]
        self.state.held[:] = table.hyps.seatmask[deal]

    def apply(self, actions: np.ndarray) -> None:
        """Move each row's chosen snail with its chosen die."""
        rows = np.arange(len(actions))
        snail, colour = actions // N_SNAILS, actions % N_SNAILS
        self.state.pos[rows, snail] += 1
        self.code = self.code - self.params.tables.unit[colour]
        self.moved = True

    def play_out(self, seat_policies: Sequence[str], source: core.Source) -> tuple[np.ndarray, np.ndarray]:
        """Use the rest of the turn's dice, then play on to the end; every row's winners and shells."""
        if not self.moved:
            raise ValueError("a decision point is played out after its decision is applied")
        names = list(dict.fromkeys(seat_policies))  # seats of one policy share an instance: one call per die
        shared = dict(zip(names, fresh_instances(self.policies, names, self.params), strict=True))
        impls = [shared[name] for name in seat_policies]
        table = Table.of(self.params, impls, source)
        table.playout = True  # the drawn deal is every seat's knowledge: a detective plays it as the truth
        out = new_outcome(len(self.mover), self.players)
        use_dice(table, impls, self.state, self.mover, self.code, self.die + 1)
        state, fresh = after_turn(table, self.state, self.mover, out)
        play_on(table, impls, state, fresh, out)
        result = outcome(out)
        return result["winners"], result["score"]


HINT_PLAYOUTS: Budget = 200  #: hints' playouts per legal move (ours: hints within 5 s at the largest table)


def hint_policy(params: Params, players: int) -> str:
    """The default strong player of hints and reviews: the expert's rollout policy."""
    return ROLLOUT


class Seat(Adapter):
    """Cargolino's one translation from policy hooks to decision points: every (snail, die) choice.

    At each die with a legal move the seat builds the :class:`Point` of the live rows and returns ``decide(point,
    games, propose)``: the search's, a model's, a person's or a replay's choice (see
    :class:`engines.seating.Adapter`). The point is built from what the seat knows (:meth:`point_at`): a seat that
    keeps a belief over the deal (a person, whose inner policy is the believing ``detective``, a believing policy
    or the belief expert) gets a point whose other snail owners are a draw from that belief, never the true deal;
    one that reads the deal gets the true one.
    """

    def __getattr__(self, name: str) -> Any:
        """Whether the inner policy keeps a belief, and its weights: the engine keeps the belief for the seat."""
        if name in ("believes", "weights"):
            return getattr(self.__dict__["inner"], name)
        raise AttributeError(name)

    def point_at(self, step: Step) -> Point:
        """The decision of every game of ``step``, as this seat knows it."""
        return Point.at(step, self.policies, truth=not getattr(self, "believes", False))

    def choose(self, step: Step) -> tuple[np.ndarray, np.ndarray]:
        """The decided (snail, colour) of every game; snail -1 where no die can move a snail."""
        snail = np.full(len(step.mover), -1, dtype=np.int64)
        colour = np.zeros(len(step.mover), dtype=np.int64)
        live = np.flatnonzero((step.legal != 0).any(axis=1))
        if not len(live):
            if self.inner is not None and not self.asks:
                return self.inner.choose(step)  # the policy may still draw what it draws every turn
            return snail, colour
        n = len(step.state.game)
        rows = np.arange(n)[step.rows][live]
        spread = [_spread(values, live, step.rows, n) for values in (step.mover, step.own, step.code)]
        point = self.point_at(Step(step.table, step.state, rows, *spread, step.die))

        def own() -> np.ndarray:
            inner_snail, inner_colour = self.inner.choose(step)  # every row, as the policy draws for every row
            return inner_snail[live] * N_SNAILS + inner_colour[live]

        chosen = self.decide(point, np.asarray(step.games)[live], self.offer(point, own))
        snail[live], colour[live] = chosen // N_SNAILS, chosen % N_SNAILS
        return snail, colour


@dataclass(frozen=True)
class Hiding:
    """The belief expert's decide function: it hides like ``detective:hide=h``, else searches.

    With chance ``h`` per die (``hide`` by player count) it advances its own snail that loses no shell instead of
    searching. Its playouts cannot value that (every seat of a playout sees the drawn deal), but at a table of
    believers a hidden snail is pushed less. ``truth``: the oracle, which searches the true deal and never hides.
    ``restrictions`` (none unless restricted, :mod:`engines.cargolino.restrictions`): the search sees restricted
    points, and a hiding move they forbid is searched instead.
    """

    searcher: Searcher
    hide: Mapping[int, float]
    truth: bool = False
    restrictions: tuple[Restriction, ...] = ()

    def prepare(self, players: int) -> None:
        """Let the playout policy load (or train) what it needs before play starts."""
        self.searcher.prepare(players)

    def __call__(self, point: Point, games: np.ndarray, propose: Callable[[], np.ndarray]) -> np.ndarray:
        """The hiding move where it hides, else the searched one, of every row."""
        chosen = np.full(len(point.mover), -1, dtype=np.int64)
        if not self.truth:
            chosen = hiding_move(point, by_table_size(self.hide, point.players))
        search: Search | RestrictedSearch = self.searcher.search(point.players)
        if self.restrictions:
            allowed = restricted_legal(point, self.restrictions)
            hid = np.flatnonzero(chosen >= 0)
            chosen[hid[~allowed[hid, chosen[hid]]]] = -1
            search = RestrictedSearch(search, self.restrictions)
        rest = np.flatnonzero(chosen < 0)
        if len(rest):
            chosen[rest] = search.choose(point.take(rest))
        return chosen


def expert(
    params: Params,
    playouts: int | Rollout | None,
    policies: Mapping[str, Policy],
    defaults: Budget,
    hide: Mapping[int, float],
    truth: bool = False,
) -> Seat:
    """``expert`` / ``expert-oracle``: every die chosen by :class:`Hiding` (``ROLLOUT`` or ``P`` playouts).

    ``truth``: search the true deal (cheats) instead of beliefs, and never hide.
    """
    seat = Seat(None, Hiding(Searcher.of(params, playouts, ROLLOUT, defaults, policies), hide, truth), policies)
    seat.believes = not truth  # the engine keeps this seat's belief over the deal
    return seat


def hiding_move(point: Point, hide: float) -> np.ndarray:
    """Each row's hiding move, or -1 where it does not hide.

    With chance ``hide`` (from a stream keyed by the decision) a row hides when it can: the mover's own snail
    farthest ahead that loses no shell by the step, with the lowest colour that moves it (the hiding detective's
    move).
    """
    chosen = np.full(len(point.mover), -1, dtype=np.int64)
    if hide <= 0:
        return chosen
    t = point.params.tables
    pos = point.state.pos.astype(np.int64)
    rows = np.arange(len(pos))
    own = ((point.state.held[rows, point.mover][:, None] >> np.arange(N_SNAILS)) & 1).astype(bool)
    masks = t.legal(pos, point.code)
    cheap = own & (masks != 0) & t.cheap[pos]
    draw = core.StreamSource(point.key ^ HIDE_SALT).uniform(rows, 1)[:, 0]
    hides = cheap.any(axis=1) & (draw < hide)
    snail = np.where(cheap, pos, -1).argmax(axis=1)
    colour = t.lowbit[masks[rows, snail]]
    return np.where(hides, snail * N_SNAILS + colour, -1)


def _spread(values: np.ndarray, live: np.ndarray, rows: np.ndarray | slice, n: int) -> np.ndarray:
    """A full-length array holding ``values[live]`` at the state rows ``rows[live]`` (what :class:`Step` indexes)."""
    out = np.zeros(n, dtype=values.dtype)
    out[np.arange(n)[rows][live]] = values[live]
    return out
