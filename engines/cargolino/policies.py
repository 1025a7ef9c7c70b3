"""Cargolino Valentino policies: which die to use on which snail, one decision per die, for a whole batch.

``choose(step)`` gets a :class:`~engines.cargolino.rules.Step` and returns ``(snail, colour)`` arrays: the snail
to advance and the colour of the die used, snail -1 when no die can move a snail. Shared conventions:

* a snail is chosen by the highest key among the movable ones; snails of equal key are told apart by a random
  order of the six snails drawn once per turn from the game's stream (so no colour is favoured), and the die
  is the lowest colour that can move the snail unless a policy says otherwise;
* one's own snails always key below everyone else's; when forced to move one, prefer the move that loses the
  fewest shells, then the snail farthest ahead (:attr:`Tables.own_key`).

The pushers (``hindmost``, ``detective``, ``oracle``) share one rule and differ in what they know of the deal
(:class:`Pusher`); their settings are written ``name:key=value,...`` (:func:`parse_settings`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, fields, replace
from functools import partial

import numpy as np

from boardlab.engines.cargolino import beliefs, learned
from boardlab.engines.cargolino.decisions import ROLLOUT, expert
from boardlab.engines.cargolino.restrictions import RESTRICTIONS, restricted
from boardlab.engines.cargolino.rules import N_SNAILS, Params, Step, hypothesis_index, pick_colour
from boardlab.engines.core import Policy
from boardlab.engines.expert import Budget, expert_policy
from boardlab.engines.learned.exploit import exploit_policy
from boardlab.engines.restrict import restricting

EXPERT_PLAYOUTS: Budget = {2: 32, 3: 128}  # per decision, by players (ours: more with more)
EXPERT_HIDE = {2: 0.0, 4: 0.0625, 6: 0.0}
"""The belief expert's chance per die of hiding, by player count (the entry of the largest count not above the
table's): ours, measured with the hiding detective among three detectives / three hindmost players at 4 players
(4,000 games each): 1 die in 16 takes 31.7% / 28.3% of the wins (no hiding: 25.1% / 31.8%; 1 in 8: 38.5% / 24.7%).
Hiding pays only against believers, and at 2, 3 and 6 players not even there (6.25% at 3 players: 28.9% among
detectives, fair 33.3%; at 6: 13.9%, fair 16.7%; at 5: 23.9%, fair 20%)."""
EXPERT_CHUNK = 200  # games per chunk with an expert seat: large search batches, about a minute each
RESTRICT = restricting(RESTRICTIONS, restricted)  # learned!never-move-own, expert:64@learned!never-finish, ...
QUANT = 1_000_000  # probabilities and expected shells are compared after rounding to 1e-6
OTHERS = 1 << 50  # key offset of other players' (and unowned) snails
TOP = 1 << 58  # key offset of a push that ends the race for a pusher that is ahead
BEHIND = 1 << 40  # key offset of a push that ends the race for a pusher that is behind (above own snails only)
PERMUTATIONS = np.array(list(itertools.permutations(range(N_SNAILS))), dtype=np.int64)  # (720, 6), sorted
PRIORITY = (N_SNAILS - 1) - np.argsort(PERMUTATIONS, axis=1)  # PRIORITY[k, s]: 5 for the first snail of order k


def turn_priority(step: Step) -> np.ndarray:
    """``(r, 6)`` tie-break of each snail this turn, 0..5 (5 preferred): one draw per game from its stream."""
    k = step.table.source.draw(step.games, len(PERMUTATIONS), 1)[:, 0]
    return PRIORITY[k]


def table_choice(
    table: np.ndarray, keys: np.ndarray, index: np.ndarray, priority: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The snail with the highest key in the packed table, ties to ``priority``, and its colour (-1 and 0: none).

    ``table[index]`` is ``key << 3 | lowest usable colour`` per snail, -1 where it cannot move; ``keys`` is the
    table with the colour bits cleared (-1 kept, and -1 | a priority stays -1).
    """
    snail = (keys[index] | priority).argmax(axis=1)
    best = table[index[np.arange(len(snail)), snail]]
    moved = best >= 0
    return np.where(moved, snail, -1), np.where(moved, best & 7, 0)


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

    Fast path: one table, indexed by (snail, own, colours among the dice, position), holds the decision packed as
    ``key << 3 | lowest usable colour`` (-1 when the snail cannot move); the turn's random snail order breaks ties.
    """

    def __init__(self, params: Params) -> None:
        """Build the packed decision table."""
        t = params.tables
        self.n_pos = t.n_pos
        key = np.stack([4096 + np.arange(t.n_pos), t.own_key])  # (own, pos)
        present = np.arange(64)
        usable = t.move[:, None, None, :] & present[None, None, :, None]  # (s, 1, 64, pos)
        usable = np.broadcast_to(usable, (N_SNAILS, 2, 64, t.n_pos))
        packed = (key[None, :, None, :] << 3) | t.lowbit[usable]
        self.table = np.where(usable != 0, packed, -1).astype(np.int64).ravel()
        self.keys = np.where(self.table >= 0, self.table & ~7, -1)  # the key alone; -1 | a tie-break stays -1
        self.offset: np.ndarray | None = None
        self.priority: np.ndarray | None = None

    def choose(self, step: Step) -> tuple[np.ndarray, np.ndarray]:
        """Farthest other snail (ties by the turn's snail order); the lowest colour that moves it."""
        if step.die == 0 or self.offset is None or self.priority is None:
            own = (step.own[:, None] >> np.arange(N_SNAILS)) & 1
            self.offset = (np.arange(N_SNAILS) * 2 + own) * (64 * self.n_pos)
            self.priority = turn_priority(step)
        index = self.offset + step.pos
        index += (step.tables.present[step.code].astype(np.int64) * self.n_pos)[:, None]
        return table_choice(self.table, self.keys, index, self.priority)


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


@dataclass(frozen=True, slots=True)
class Settings:
    """A pusher's settings (``name:key=value,...``)."""

    hide: float = 0.0  #: chance per die of advancing an own snail instead, when that loses no shell
    own: float = float(beliefs.OWN_WEIGHT)  #: belief model: weight of a player's own snails ...
    other: float = float(beliefs.OTHER_WEIGHT)  #: ... and of everyone else's, when it picks a snail to move
    rest: float = 0.5  #: weight of a shell taken from an opponent other than the leader (the leader's: 1)
    cross: int = 2  #: weight of a shell taken now (a push over a threshold) against one still to take
    end: int = 1  #: 1: end the race when ahead and avoid ending it when behind; 0: ignore the race's end


BOUNDS = {
    "hide": (0.0, 1.0),
    "own": (1e-3, 1e3),
    "other": (1e-3, 1e3),
    "rest": (0.0, 1.0),
    "cross": (0, 9),
    "end": (0, 1),
}


def parse_settings(name: str, believes: bool, text: str | None) -> Settings:
    """Parse ``key=value,...`` (``None``: the defaults); one-line ``ValueError`` naming the bad part.

    Pairs are separated by ``,`` or ``/`` (``/`` inside ``--seats``, whose seats are separated by commas).
    """
    out = Settings()
    if text is None:
        return out
    keys = [f.name for f in fields(Settings) if believes or f.name not in ("own", "other")]
    for part in text.replace("/", ",").split(","):
        key, eq, value = (p.strip() for p in part.partition("="))
        if key not in keys or not eq:
            raise ValueError(f"{name}:{text}: expected key=value pairs with keys {', '.join(keys)} (got {part!r})")
        lo, hi = BOUNDS[key]
        kind = type(getattr(out, key))
        try:
            number = kind(value)
        except ValueError:
            raise ValueError(f"{name}:{text}: {key}={value!r} is not a {kind.__name__} in {lo}..{hi}") from None
        if not lo <= number <= hi:
            raise ValueError(f"{name}:{text}: {key}={value} is out of range {lo}..{hi}")
        out = replace(out, **{key: number})
    return out


class Pusher:
    """Take the most shells from the opponents, the leader's first, by what the seat knows of the deal.

    At each turn's first die the pusher estimates who holds each snail (:meth:`holdings`), each seat's total
    (shells banked plus what its snails would score now), the leader among the others (ties: the seat playing
    soonest after it) and whether it is itself ahead. A push of snail ``s`` is worth
    ``g(s) × (cross × shells lost by this step + shells it can still lose + 1)``, with ``g(s)`` the chance an
    opponent holds it, the leader's weighted 1 and the others ``rest``; ties go to the hindmost snail, then the
    turn's snail order. With ``end=1`` a push onto the finish goes first when the pusher is ahead and after every
    other push when it is behind. With chance ``hide`` per die it advances an own snail that loses no shell.
    """

    believes = False

    def __init__(self, params: Params, settings: Settings | None = None) -> None:
        """Per-turn caches are filled at each turn's first die; the key's parts by position are tabled once."""
        self.settings = settings or Settings()
        self.weights = (self.settings.own, self.settings.other)
        t = params.tables
        pos = np.arange(t.n_pos)
        self.remain = t.value - t.value[t.finish]  # shells a snail can still lose from each position
        self.loss = np.maximum(t.value - t.value[np.minimum(pos + 1, t.finish)], 0)
        # key = gain × worth × 512 + (OTHERS + 63 - pos) × 8 + turn order (+ the race-end shift); own: own_key × 8
        self.worth = (self.settings.cross * self.loss + self.remain + 1) * 512
        self.base = (OTHERS + 63 - pos) * 8
        finishing = (pos + 1 == t.finish) & bool(self.settings.end)
        self.end_ahead = np.where(finishing, TOP, 0)
        self.end_behind = np.where(finishing, BEHIND - OTHERS * 8, 0)
        self.own_key = t.own_key * 8
        self.gain: np.ndarray | None = None
        self.ahead: np.ndarray | None = None
        self.priority: np.ndarray | None = None
        self.own: np.ndarray | None = None

    def holdings(self, step: Step) -> np.ndarray:
        """``(r, P, 6)`` probability that each seat holds each snail, for the mover."""
        raise NotImplementedError

    def deal(self, step: Step) -> np.ndarray | None:
        """``(r, 6)`` the seat holding each snail (-1 none) when the mover knows the deal, else ``None``."""
        return None

    def begin_turn(self, step: Step) -> None:
        """Chance each snail is the opponents' (weighted), and whether the mover is ahead.

        Where the deal is known the holdings are 0 or 1, so the same figures come from gathers by owner.
        """
        players = step.table.players
        owner = self.deal(step)
        values = step.tables.value[step.pos]  # (r, 6)
        banked = step.state.banked[step.rows]
        if owner is None:
            hold = self.holdings(step)
            expected = banked + (hold * values.astype(np.float64)[:, None, :]).sum(axis=2)
        else:
            expected = banked + np.stack([((owner == p) * values).sum(axis=1) for p in range(players)], axis=1)
        quantised = np.rint(expected * QUANT).astype(np.int64)
        rows = np.arange(len(step.mover))
        distance = (np.arange(players)[None, :] - step.mover[:, None]) % players
        leader = np.where(distance == 0, -1, quantised * 8 + (players - distance)).argmax(axis=1)
        weight = np.where(np.arange(players)[None, :] == leader[:, None], 1.0, self.settings.rest)
        weight[rows, step.mover] = 0.0
        if owner is None:
            gain = (hold * weight[:, :, None]).sum(axis=1)
        else:
            gain = np.where(owner >= 0, np.take_along_axis(weight, np.maximum(owner, 0), axis=1), 0.0)
        self.gain = np.rint(gain * QUANT).astype(np.int64)
        self.ahead = quantised[rows, step.mover] > quantised[rows, leader]
        self.priority = turn_priority(step)
        self.own = step.own_snails

    def choose(self, step: Step) -> tuple[np.ndarray, np.ndarray]:
        """The most valuable push by the turn's estimates; an own snail only when forced (or hiding)."""
        if step.die == 0 or self.gain is None:
            self.begin_turn(step)
        assert self.gain is not None and self.ahead is not None and self.priority is not None and self.own is not None
        s, t, pos, own = self.settings, step.tables, step.pos, self.own
        key = self.gain * self.worth[pos] + self.base[pos] + self.priority
        if s.end:
            key += np.where(self.ahead[:, None], self.end_ahead[pos], self.end_behind[pos])
        key = np.where(own, self.own_key[pos] + self.priority, key)
        if s.hide > 0:
            cheap = own & (step.legal != 0) & t.cheap[pos]
            has = np.flatnonzero(cheap.any(axis=1))
            if len(has):
                hide = has[step.table.source.uniform(step.games[has], 1)[:, 0] < s.hide]
                key[hide] = np.where(cheap[hide], pos[hide].astype(np.int64) * 8 + self.priority[hide], -1)
        return _argmax_move(step, key)


class Hindmost(Pusher):
    """A pusher with no knowledge of the deal: every snail not its own is equally likely any opponent's.

    Every snail that is not the mover's is then worth the same ``g``, so the order of pushes depends only on the
    snail, whether it is the mover's, whether the mover is ahead, the colours among the dice and the position.
    Without hiding the decision is one gather from a table of those (packed ``key << 3 | lowest usable colour``),
    as :class:`Selfish` does; it chooses exactly what :meth:`Pusher.choose` would.
    """

    def __init__(self, params: Params, settings: Settings | None = None) -> None:
        """Build the packed decision table (keys ordered as the pusher's)."""
        super().__init__(params, settings)
        t = params.tables
        self.n_pos = t.n_pos
        pos = np.arange(t.n_pos)
        other = (self.settings.cross * self.loss + self.remain + 1) * 64 + (63 - pos)  # below 1 << 13
        finishing = (pos + 1 == t.finish) & bool(self.settings.end)
        behind = np.where(finishing, (1 << 13) + other, (1 << 14) + other)
        ahead = np.where(finishing, (1 << 15) + other, (1 << 14) + other)
        key = np.stack([np.stack([behind, ahead]), np.stack([t.own_key, t.own_key])], axis=1)  # (own, ahead, pos)
        usable = t.move[:, None, None, None, :] & np.arange(64)[None, None, None, :, None]  # (s, 1, 1, 64, pos)
        usable = np.broadcast_to(usable, (N_SNAILS, 2, 2, 64, t.n_pos))
        packed = (key[None, :, :, None, :].transpose(0, 2, 1, 3, 4) << 3) | t.lowbit[usable]
        self.table = np.where(usable != 0, packed, -1).astype(np.int64).ravel()
        self.keys = np.where(self.table >= 0, self.table & ~7, -1)  # the key alone; -1 | a tie-break stays -1
        self.offset: np.ndarray | None = None

    def holdings(self, step: Step) -> np.ndarray:
        """Each opponent holds each snail not the mover's with chance ``tokens / (6 - own tokens)``."""
        players, each = step.table.players, step.table.hyps.each
        own = step.own_snails
        hold = np.broadcast_to(np.where(own, 0.0, each / (N_SNAILS - each))[:, None, :], (len(own), players, N_SNAILS))
        hold = hold.copy()
        hold[np.arange(len(own)), step.mover] = own
        return hold

    def ahead_of_all(self, step: Step) -> np.ndarray:
        """Whether the mover's shells (banked and now) beat every other seat's expected shells, as quantised."""
        each = step.table.hyps.each
        own = step.own_snails
        values = step.tables.value[step.pos].astype(np.float64)
        share = np.where(own, 0.0, each / (N_SNAILS - each)) * values
        mine = np.where(own, values, 0.0)
        others_now, mine_now = share[:, 0].copy(), mine[:, 0].copy()
        for s in range(1, N_SNAILS):  # summed snail by snail, as the pusher's expectation is
            others_now += share[:, s]
            mine_now += mine[:, s]
        banked = step.state.banked[step.rows]
        rows = np.arange(len(own))
        quantised = np.rint((banked + others_now[:, None]) * QUANT).astype(np.int64)
        me = np.rint((banked[rows, step.mover] + mine_now) * QUANT).astype(np.int64)
        quantised[rows, step.mover] = np.iinfo(np.int64).min
        return me > quantised.max(axis=1)

    def choose(self, step: Step) -> tuple[np.ndarray, np.ndarray]:
        """The pusher's choice by table lookup (the general rule when hiding)."""
        if self.settings.hide > 0:
            return super().choose(step)
        if step.die == 0 or self.offset is None or self.priority is None:
            own = (step.own[:, None] >> np.arange(N_SNAILS)) & 1
            ahead = self.ahead_of_all(step).astype(np.int64)[:, None]
            self.offset = ((np.arange(N_SNAILS) * 2 + own) * 2 + ahead) * (64 * self.n_pos)
            self.priority = turn_priority(step)
        index = self.offset + step.pos
        index += (step.tables.present[step.code].astype(np.int64) * self.n_pos)[:, None]
        return table_choice(self.table, self.keys, index, self.priority)


class Detective(Pusher):
    """A pusher with a Bayesian belief over the deal (the model: :mod:`~engines.cargolino.beliefs`)."""

    believes = True

    def deal(self, step: Step) -> np.ndarray | None:
        """In a search's playout every seat knows the (drawn) deal."""
        return Oracle.deal(self, step) if step.table.playout else None

    def holdings(self, step: Step) -> np.ndarray:
        """Marginals of the mover's belief."""
        table, state = step.table, step.state
        belief = state.belief[step.rows][np.arange(len(step.mover)), table.detective_index[step.mover]]
        hyp = hypothesis_index(table, state, step.rows, step.mover)
        flat, players = table.hyps.flat_seatmask, table.players
        return np.stack([beliefs.snail_probability(belief, flat[hyp * players + p]) for p in range(players)], axis=1)


class Oracle(Pusher):
    """A pusher that reads the true deal (cheats)."""

    def deal(self, step: Step) -> np.ndarray | None:
        """The truth."""
        return step.state.owner[step.rows].astype(np.int64)


SETTINGS_HELP = (
    "key=value pairs separated by , or / (/ inside --seats) with hide (0..1, default 0: chance per die of "
    "advancing an own snail that loses no shell), "
    "rest (0..1, default 0.5: weight of opponents other than the leader), cross (0..9, default 2: weight of a "
    "shell taken now), end (0|1, default 1: race-end awareness)"
)
BELIEF_HELP = SETTINGS_HELP + ", own and other (default 1 and 4: the belief model's weights)"


def _pusher(name: str, description: str, impl: type[Pusher]) -> Policy:
    return Policy(
        name,
        description,
        impl,
        argument=BELIEF_HELP if impl.believes else SETTINGS_HELP,
        parse_arg=partial(parse_settings, name, impl.believes),
    )


POLICIES: dict[str, Policy] = {
    p.name: p
    for p in (
        Policy("random", "A uniformly random legal (die, snail) pair for every die.", Random),
        Policy("selfish", "Never advance own snails when avoidable; push the others, farthest first.", Selfish),
        Policy(
            "blocker", "Push others onto spaces that many colours (and my remaining dice) can move them from.", Blocker
        ),
        _pusher(
            "hindmost",
            "No ownership information: push the snail not mine with the most shells left to lose (over a threshold "
            "first, then hindmost); end the race when ahead.",
            Hindmost,
        ),
        _pusher(
            "detective",
            "Bayesian belief over who holds which snail; take the most shells from the opponents (the leader's "
            "first), over thresholds first; end the race when ahead.",
            Detective,
        ),
        _pusher(
            "oracle",
            "The detective's rule with the true ownership (cheats).",
            Oracle,
        ),
    )
}
EXPERT = partial(expert, policies=POLICIES, defaults=EXPERT_PLAYOUTS, hide=EXPERT_HIDE)
POLICIES["expert"] = replace(
    expert_policy(EXPERT, ROLLOUT, EXPERT_PLAYOUTS, EXPERT_CHUNK, ("learned",)),
    description=f"Monte Carlo search improving on {ROLLOUT}: N playouts per decision ({ROLLOUT} in every seat, "
    f"the deal drawn from its beliefs) try the legal moves, and {ROLLOUT}'s move is left only for one that wins "
    "clearly more often; with 4 or 5 players it first hides 1 die in 16 (advances its own snail where that loses "
    "no shell), which its playouts cannot value but misleads believing opponents; expert:N@learned plays out "
    "(and defaults to) learned instead.",
    restrict=RESTRICT,
)
POLICIES["expert-oracle"] = replace(
    expert_policy(partial(EXPERT, truth=True), ROLLOUT, EXPERT_PLAYOUTS, EXPERT_CHUNK),
    name="expert-oracle",
    description=f"The expert's search with the true ownership in place of its beliefs (cheats: the upper bound); "
    f"N playouts per decision, {ROLLOUT} in every seat; never hides.",
)


class LearnedPlayer(learned.Learned):
    """``learned``: round 0 of its training plays ``detective``; decision points resolve names in ``POLICIES``."""

    baseline = "detective"
    policies = POLICIES


POLICIES["learned"] = Policy(
    "learned",
    "Value network of the position after each legal (die, snail) pair, from the seat's own snails, the board and "
    "its Bayesian belief over the other tokens (never the true deal); the best valued is played (with 4 or more "
    "players the detective's move unless another is valued clearly higher). Models for 2, 4 "
    "and 6 players ship; other settings are trained by self-play on first use and cached (BOARDLAB_TRAIN=0 "
    "refuses; training settings ours).",
    LearnedPlayer,
    restrict=RESTRICT,
    exploit=exploit_policy,
)
