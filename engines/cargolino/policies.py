"""Cargolino Valentino policies: which die to use on which snail, one decision per die, for a whole batch.

``choose(step)`` gets a :class:`~engines.cargolino.rules.Step` and returns ``(snail, colour)`` arrays: the snail
to advance and the colour of the die used, snail -1 when no die can move a snail. Shared conventions:

* a snail is chosen by the highest key among the movable ones (ties: lowest snail index), and the die is the
  lowest colour that can move it unless a policy says otherwise;
* one's own snails always key below everyone else's; when forced to move one, prefer the move that loses the
  fewest shells, then the snail farthest ahead (:attr:`Tables.own_key`).
"""

from __future__ import annotations

import numpy as np

from engines.cargolino import beliefs
from engines.cargolino.rules import N_SNAILS, Params, Step, hypothesis_index, pick_colour, row_max
from engines.core import Policy

OTHERS = 1 << 50  # key offset of other players' (and unowned) snails for the detective
QUANT = 1_000_000  # probabilities and expected shells are compared after rounding to 1e-6
HIDE_ODDS = 8  # a detective with a cheap own move advances its own snail with chance 1/8 per die


def _argmax_move(step: Step, key: np.ndarray, colours: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Snail with the highest key among the movable ones, and the die colour (lowest legal unless given)."""
    movable = step.legal != 0
    key = np.where(movable, key, -1)
    snail = key.argmax(axis=1)
    rows = np.arange(len(snail))
    masks = step.legal if colours is None else colours
    colour = pick_colour(step.tables, masks[rows, snail])
    return np.where(movable.any(axis=1), snail, -1), colour


class Random:
    """A uniformly random (die colour, snail) pair among the legal ones."""

    def __init__(self, params: Params) -> None:
        """No tables needed."""

    def choose(self, step: Step) -> tuple[np.ndarray, np.ndarray]:
        """Pairs are numbered snail by snail, colours ascending; one draw per decision with a legal pair."""
        t = step.tables
        counts = t.popcount[step.legal]  # (r, 6)
        total = counts.sum(axis=1)
        snail = np.full(len(total), -1, dtype=np.int64)
        colour = np.zeros(len(total), dtype=np.int64)
        live = np.flatnonzero(total > 0)
        if not len(live):
            return snail, colour
        pick = step.table.source.draw(step.games[live], total[live], 1)[:, 0]
        cum = np.cumsum(counts[live], axis=1)
        s = (cum > pick[:, None]).argmax(axis=1)
        nth = pick - (cum[np.arange(len(live)), s] - counts[live, s])
        mask = step.legal[live, s].astype(np.int64)
        for _ in range(N_SNAILS):  # drop the lowest set bits until the nth is lowest
            drop = nth > 0
            mask = np.where(drop, mask & (mask - 1), mask)
            nth = nth - drop
        snail[live], colour[live] = s, t.lowbit[mask]
        return snail, colour


class Selfish:
    """Push the other snails, farthest first; one's own only when nothing else can move.

    Fast path: one table, indexed by (snail, own, colours among the dice, position), holds the whole decision
    packed as ``key << 6 | (7 - snail) << 3 | lowest usable colour`` (-1 when the snail cannot move), so a
    decision is one gather and one maximum per game.
    """

    def __init__(self, params: Params) -> None:
        """Build the packed decision table."""
        t = params.tables
        self.n_pos = t.n_pos
        key = np.stack([4096 + np.arange(t.n_pos), t.own_key])  # (own, pos)
        present = np.arange(64)
        usable = t.move[:, None, None, :] & present[None, None, :, None]  # (s, 1, 64, pos)
        usable = np.broadcast_to(usable, (N_SNAILS, 2, 64, t.n_pos))
        packed = (key[None, :, None, :] << 6) | ((7 - np.arange(N_SNAILS))[:, None, None, None] << 3) | t.lowbit[usable]
        self.table = np.where(usable != 0, packed, -1).astype(np.int32).ravel()
        self.offset: np.ndarray | None = None

    def choose(self, step: Step) -> tuple[np.ndarray, np.ndarray]:
        """Farthest other snail; the lowest colour that moves it."""
        if step.die == 0 or self.offset is None:
            own = (step.own[:, None] >> np.arange(N_SNAILS)) & 1
            self.offset = (np.arange(N_SNAILS) * 2 + own) * (64 * self.n_pos)
        index = self.offset + step.pos
        index += (step.tables.present[step.code].astype(np.int64) * self.n_pos)[:, None]
        best = row_max(self.table[index])
        moved = best >= 0
        return np.where(moved, 7 - ((best >> 3) & 7), -1), np.where(moved, best & 7, 0)


class Blocker:
    """Push other snails onto spaces from which many colours (and, if possible, my remaining dice) move them."""

    def __init__(self, params: Params) -> None:
        """Mobility of a snail after one step: colours that can move it from the next space."""
        t = params.tables
        nxt = np.minimum(np.arange(t.n_pos) + 1, t.finish)
        self.landing = t.move[:, nxt]  # (6, n_pos): colour mask of snail s after moving from pos
        self.landing_flat = self.landing.ravel()

    def choose(self, step: Step) -> tuple[np.ndarray, np.ndarray]:
        """Key: others first; then landing mobility; then a die left that could push it again; then farthest."""
        t = step.tables
        landing = self.landing_flat[step.pos + t.snail_offset].astype(np.int64)  # (r, 6)
        chain = np.zeros_like(landing)
        present = t.present[step.code].astype(np.int64)
        for c in range(N_SNAILS):
            has = (present >> c) & 1
            left = t.present[np.where(has == 1, step.code - t.unit[c], step.code)].astype(np.int64)
            chain |= (((left[:, None] & landing) != 0) & (has[:, None] == 1)).astype(np.int64) << c
        chain &= step.legal
        own = ((step.own[:, None] >> np.arange(N_SNAILS)) & 1).astype(bool)
        other_key = 4096 + t.popcount[landing] * 256 + (chain != 0) * 128 + step.pos
        key = np.where(own, t.own_key[step.pos], other_key)
        colours = np.where(chain != 0, chain, step.legal)
        return _argmax_move(step, key, colours)


class Detective:
    """Bayesian belief over the deal; push the snails most likely held by the leader; sometimes hide.

    At the start of its turn the detective finds the leader among the other seats by shells banked plus
    expected shells this race (ties: the seat playing soonest after it), then keys each other snail by the
    probability the leader holds it, then the probability any opponent holds it, then position. When one of its
    own snails can move without losing shells (and not onto the finish) it advances it with chance 1/8 per die.
    """

    believes = True

    def __init__(self, params: Params) -> None:
        """Turn caches are filled at each turn's first die."""
        self.base: np.ndarray | None = None

    def marginals(self, step: Step) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Expected shells per seat ``(r, P)``, and for each snail P(leader holds it) given a leader function."""
        table, state = step.table, step.state
        belief = state.belief[step.rows][np.arange(len(step.mover)), table.detective_index[step.mover]]
        hyp = hypothesis_index(table, state, step.rows, step.mover)
        values = step.tables.value[step.pos]
        expected = beliefs.expected_shells(belief, hyp, table.hyps, values)
        return belief, hyp, expected

    def begin_turn(self, step: Step) -> np.ndarray:
        """Per-snail key base (without position) for this turn's pushes."""
        table = step.table
        players = table.players
        belief, hyp, expected = self.marginals(step)
        banked = step.state.banked[step.rows].astype(np.float64)
        leader = self.leader(step, np.rint((banked + expected) * QUANT).astype(np.int64))
        flat = table.hyps.flat_seatmask
        leader_sets = flat[hyp * players + leader[:, None]]
        any_sets = np.zeros_like(hyp)
        for p in range(players):
            any_sets |= flat[hyp * players + p]
        any_sets &= ~step.own[:, None]
        p_leader = beliefs.snail_probability(belief, leader_sets)
        p_any = beliefs.snail_probability(belief, any_sets)
        return np.rint(p_leader * QUANT).astype(np.int64) * (1 << 28) + np.rint(p_any * QUANT).astype(np.int64) * 128

    def leader(self, step: Step, quantised: np.ndarray) -> np.ndarray:
        """Seat other than the mover with the highest quantised shells; ties to the seat playing soonest."""
        players = step.table.players
        distance = (np.arange(players)[None, :] - step.mover[:, None]) % players
        key = np.where(distance == 0, -1, quantised * 8 + (players - distance))
        return key.argmax(axis=1)

    def choose(self, step: Step) -> tuple[np.ndarray, np.ndarray]:
        """Push by the turn's key base; advance a cheap own snail instead with chance 1/HIDE_ODDS."""
        if step.die == 0:
            self.base = self.begin_turn(step)
        t = step.tables
        own = step.own_snails
        legal = step.legal != 0
        key = np.where(own, t.own_key[step.pos], OTHERS + self.base + step.pos)
        cheap = own & legal & t.cheap[step.pos]
        has = np.flatnonzero(cheap.any(axis=1))
        if len(has):
            roll = step.table.source.draw(step.games[has], HIDE_ODDS, 1)[:, 0]
            hide = has[roll == 0]
            key[hide] = np.where(cheap[hide], step.pos[hide], -1)
        return _argmax_move(step, key)


class Oracle(Detective):
    """The detective's rule with the true deal in place of the belief (cheats: an upper bound)."""

    believes = False

    def begin_turn(self, step: Step) -> np.ndarray:
        """Exact shells, exact leader, exact holders."""
        state, players = step.state, step.table.players
        owner = state.owner[step.rows].astype(np.int64)
        values = step.tables.value[step.pos]
        shells = np.stack([((owner == p) * values).sum(axis=1) for p in range(players)], axis=1)
        total = state.banked[step.rows].astype(np.int64) + shells
        leader = self.leader(step, total * QUANT)
        p_leader = (owner == leader[:, None]).astype(np.int64)
        p_any = ((owner >= 0) & (owner != step.mover[:, None])).astype(np.int64)
        return p_leader * QUANT * (1 << 28) + p_any * QUANT * 128


POLICIES: dict[str, Policy] = {
    p.name: p
    for p in (
        Policy("random", "A uniformly random legal (die, snail) pair for every die.", Random),
        Policy("selfish", "Never advance own snails when avoidable; push the others, farthest first.", Selfish),
        Policy(
            "blocker", "Push others onto spaces that many colours (and my remaining dice) can move them from.", Blocker
        ),
        Policy(
            "detective",
            "Bayesian belief over who holds which snail; push the likely snails of the leader; "
            "sometimes advance an own snail when it costs nothing.",
            Detective,
        ),
        Policy(
            "oracle",
            "The detective's rule with the true ownership (cheats; upper bound on hidden information).",
            Oracle,
        ),
    )
}
