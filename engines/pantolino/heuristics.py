"""Pantolino's heuristic policies (no solution, no search): how many dice to keep, and which token to take.

Every policy decides for a whole batch at once. ``keep(turn, code, rolls_left)`` gets the current throw as a
multiset code per game and returns the code of the dice to keep (the rest are rerolled; keeping all means
stopping); ``rolls_left`` counts the rolls still allowed, the coming one included. ``choose(turn, throw)``
gets the index of the last throw and returns the token taken, or -1 for none. A policy whose keeps depend
only on a small key of the position (``turn_key``) also offers a ``sampler`` that draws the last throw whole.

The shared choice rule (every policy but ``random`` and ``win-optimal``) takes the token that leaves the mover
the largest lead over the strongest opponent. The game is won against whoever has most boots, so this is
the quantity a one-turn rule should push: a supply token of ``v`` boots adds ``v`` to the lead; with escaping
boots, stealing ``v`` from the leader adds up to ``2v`` (exactly ``2v`` with 2 players; with more, the leader's
loss counts only until the runner-up becomes the strongest opponent), and stealing from anyone else adds
``v``, like the supply. Ties go to the higher value, then the supply (a steal must gain something), then the
victim with most boots and the next in turn order, then the colour in which the mover already holds most boots
(it decides a tie on boots; used only where a tie on boots can happen: 3+ players, an even total of boots or
``remove-smallest``), then the lowest colour.

:mod:`engines.pantolino.policies` adds ``win-optimal`` (the exact solution) and ``expert`` (the search); the
solver plays these rules against it, so this module imports neither.
"""

from __future__ import annotations

import numpy as np

from boardlab.engines.core import Policy
from boardlab.engines.pantolino.dice import ThrowSampler
from boardlab.engines.pantolino.rules import Params, Turn, fits, highest_bit

MAX_SAMPLER_KEYS = 4096  # beyond this many keys the dice are rolled one by one instead
PREBUILD_ENTRIES = 1 << 20  # samplers with at most this many keys x throws build every key's table up front
MAX_SIGNATURE_BITS = 16  # up to this many tokens, keys are looked up per signature in a dense table


def best_token(turn: Turn, throw: np.ndarray) -> np.ndarray:
    """The shared choice rule (see the module docstring); -1 if nothing fits."""
    choice = highest_bit(turn.supply_bits & turn.tables.fit_mask[throw])  # tokens are numbered by preference
    if turn.stealable is None and not turn.tie_possible:  # the lead grows by the value: the best supply token
        return choice
    options = turn.available & fits(turn, throw)  # (B, T)
    single = options.sum(axis=1) == 1
    choice[single] = options[single].argmax(axis=1)
    contested = ~single & (turn.tie_possible or (options & turn.stealable).any(axis=1))
    ranked = np.flatnonzero(contested)
    choice[ranked] = ranked_choice(turn, ranked, options[ranked])
    return choice


def ranked_choice(turn: Turn, rows: np.ndarray, options: np.ndarray) -> np.ndarray:
    """The shared choice rule in full, for the games ``rows`` whose claimable fitting tokens are ``options``."""
    n_rows = np.arange(len(rows))
    boots, owner, mover = turn.boots[rows], turn.owner[rows].astype(np.int64), turn.mover[rows]
    stolen = owner >= 0
    victim_boots = np.take_along_axis(boots, np.maximum(owner, 0), axis=1)
    # the strongest opponent before the move, and the strongest once a victim's loss is counted
    rivals = np.where(np.arange(turn.players) == mover[:, None], np.iinfo(np.int64).min // 4, boots)
    order = np.argsort(-rivals, axis=1, kind="stable")
    top = rivals[n_rows, order[:, 0]][:, None]
    if turn.players > 2:  # without the victim, the strongest is the runner-up if the victim led, else the leader
        others = np.where(owner == order[:, :1], rivals[n_rows, order[:, 1]][:, None], top)
        after_steal = np.maximum(victim_boots - turn.value, others)
    else:
        after_steal = victim_boots - turn.value
    lead = boots[n_rows, mover][:, None] + turn.value - np.where(stolen, after_steal, top)

    # one integer key per option, most significant first: lead, value, supply before a steal, victim's boots,
    # victim next in turn order, boots held of the token's colour (where a tie on boots can happen), low colour
    value_rank = np.searchsorted(turn.tables.values, turn.value)
    colour_rank = turn.params.colours - 1 - turn.colour
    key = (lead + 256) << 33 | value_rank << 30 | colour_rank  # lead >= -168: every key is positive
    next_in_turn = turn.players - (owner - mover[:, None]) % turn.players
    key |= np.where(stolen, victim_boots << 16 | next_in_turn << 12, 1 << 29)
    if turn.tie_possible:
        held = np.where(owner == mover[:, None], turn.value, 0).astype(np.float64)
        per_colour = held @ (turn.colour[:, None] == np.arange(turn.params.colours))  # (rows, colours), exact
        key |= per_colour[:, turn.colour].astype(np.int64) << 3
    key = np.where(options, key, -1)
    return np.where(options.any(axis=1), key.argmax(axis=1), -1)


class ColourKeeper:
    """Keep the dice of the most common colour that still has a token, plus jokers unless told otherwise.

    Ties go to the colour whose highest available token is highest, then the lowest colour.
    """

    def __init__(self, params: Params, keep_jokers: bool) -> None:
        """Build for ``params``; ``keep_jokers=False`` rerolls jokers every time."""
        self.tables = t = params.tables
        self.keep_jokers = keep_jokers
        self.levels = t.n_values + 1  # per colour: 0 = nothing left, j + 1 = highest available is value j
        self.level_of_mask = highest_bit(np.arange(1 << t.n_values, dtype=np.int64)) + 1
        self.level_weight = self.levels ** np.arange(t.colours, dtype=np.int64)
        n_keys = self.levels**t.colours
        prebuild = n_keys * len(t.full) <= PREBUILD_ENTRIES
        self.sampler = ThrowSampler(t, n_keys, self.keeps_for_keys, prebuild) if n_keys <= MAX_SAMPLER_KEYS else None
        small = params.n_tokens <= MAX_SIGNATURE_BITS
        self.key_of_signature = self.keys_of(np.arange(1 << params.n_tokens, dtype=np.int64)) if small else None

    def kept_dice(self, counts: np.ndarray, potential: np.ndarray) -> np.ndarray:
        """Code of the target colour's dice (and the jokers), from dice counts and colour potentials."""
        t = self.tables
        top = int(t.values.max()) + 1
        colour_rank = t.colours - 1 - np.arange(t.colours)
        score = np.where(potential > 0, (counts[:, : t.colours] * top + potential) * t.colours + colour_rank, -1)
        target = score.argmax(axis=1)
        kept = np.where(score.max(axis=1) >= 0, counts[np.arange(len(counts)), target] * t.weight[target], 0)
        if self.keep_jokers:
            kept = kept + counts[:, t.joker] * t.weight[t.joker]
        return kept

    def keep(self, turn: Turn, code: np.ndarray, rolls_left: int) -> np.ndarray:
        """Keep the target colour (and the jokers)."""
        return self.kept_dice(self.tables.counts_by_code[code].astype(np.int64), turn.potential)

    def turn_key(self, turn: Turn) -> np.ndarray:
        """The keeps depend on the position only through each colour's highest available value."""
        if self.key_of_signature is not None:
            return self.key_of_signature[turn.signature]
        return self.keys_of(turn.signature)

    def keys_of(self, signatures: np.ndarray) -> np.ndarray:
        """Key of each signature: the highest available value level of every colour, in base ``levels``."""
        return self.level_of_mask[self.tables.colour_masks(signatures)] @ self.level_weight

    def keeps_for_signatures(self, signatures: np.ndarray) -> np.ndarray:
        """Keep codes for every signature, throw and roll: ``(len(signatures), rolls, full)``."""
        return self.keeps_for_keys(self.keys_of(signatures))

    def keeps_for_keys(self, keys: np.ndarray) -> np.ndarray:
        """Keep codes for every key, throw and roll: ``(len(keys), rolls, full)``."""
        t = self.tables
        levels = (keys[:, None] // self.level_weight) % self.levels  # (S, C)
        potential = np.where(levels > 0, np.r_[0, t.values][levels], 0)
        counts = t.counts[t.full].astype(np.int64)
        n_keys, n_full = len(keys), len(t.full)
        kept = self.kept_dice(np.tile(counts, (n_keys, 1)), np.repeat(potential, n_full, axis=0))
        return np.broadcast_to(kept.reshape(n_keys, 1, n_full), (n_keys, t.rolls, n_full))

    def choose(self, turn: Turn, throw: np.ndarray) -> np.ndarray:
        """The shared choice rule."""
        return best_token(turn, throw)


class KeepJokers(ColourKeeper):
    """``keep-jokers``."""

    def __init__(self, params: Params) -> None:
        """Keep jokers."""
        super().__init__(params, keep_jokers=True)


class RerollJokers(ColourKeeper):
    """``reroll-jokers``."""

    def __init__(self, params: Params) -> None:
        """Reroll jokers."""
        super().__init__(params, keep_jokers=False)


class TableKeeper:
    """Keeps looked up in exact tables, computed per signature of available tokens and cached.

    ``horizon=None`` maximises the expected value of the token taken this turn over all the rolls left
    (``turn-optimal``); ``horizon=1`` treats the next roll as the last (``greedy``). With at most
    :data:`MAX_SIGNATURE_BITS` tokens the signature itself is the sampler's key (each key's last-throw table is
    built on first use: the default game has 2**15 signatures, few of which a run meets).
    """

    horizon: int | None = None

    def __init__(self, params: Params) -> None:
        """Start with empty caches for ``params``."""
        self.tables = params.tables
        self.cache: dict[int, np.ndarray] = {}
        small = params.n_tokens <= MAX_SIGNATURE_BITS
        keeps = self.keeps_for_signatures
        self.sampler = ThrowSampler(self.tables, 1 << params.n_tokens, keeps, False) if small else None

    def turn_key(self, turn: Turn) -> np.ndarray:
        """The keeps depend on the position only through the signature."""
        return turn.signature

    def keeps_for_signatures(self, signatures: np.ndarray) -> np.ndarray:
        """Keep codes for every signature, throw and roll: ``(len(signatures), rolls, full)``."""
        return self.tables.keep_tables(signatures, self.horizon)

    def keep(self, turn: Turn, code: np.ndarray, rolls_left: int) -> np.ndarray:
        """The tabled best keep for each game's signature, throw and rolls left."""
        unique, inverse = np.unique(turn.signature, return_inverse=True)
        missing = [s for s in unique.tolist() if s not in self.cache]
        if missing:
            for sig, table in zip(
                missing, self.tables.keep_tables(np.array(missing, dtype=np.int64), self.horizon), strict=True
            ):
                self.cache[sig] = table
        rows = np.stack([self.cache[s][rolls_left] for s in unique.tolist()])
        throw = self.tables.full_position[self.tables.index_of_code[code]]
        return rows[inverse, throw]

    def choose(self, turn: Turn, throw: np.ndarray) -> np.ndarray:
        """The shared choice rule."""
        return best_token(turn, throw)


class TurnOptimal(TableKeeper):
    """``turn-optimal``."""

    horizon = None


class Greedy(TableKeeper):
    """``greedy``."""

    horizon = 1


class Random:
    """Keep each die with probability 1/2; take a token chosen uniformly among those the dice allow."""

    def __init__(self, params: Params) -> None:
        """Precompute each throw's dice in category order."""
        t = self.tables = params.tables
        sorted_dice = [np.repeat(np.arange(t.categories), t.counts[f]) for f in t.full]
        self.dice_weights = t.weight[np.array(sorted_dice, dtype=np.int64)]  # (full, dice)

    def keep(self, turn: Turn, code: np.ndarray, rolls_left: int) -> np.ndarray:
        """Flip a coin for every die, in category order."""
        coins = turn.source.draw(turn.games, 2, self.tables.dice)
        throw = self.tables.full_position[self.tables.index_of_code[code]]
        return (self.dice_weights[throw] * coins).sum(axis=1)

    def choose(self, turn: Turn, throw: np.ndarray) -> np.ndarray:
        """A uniformly random claimable token (supply or, with escaping boots, stealable); -1 if none."""
        options = turn.available & fits(turn, throw)
        n_options = options.sum(axis=1)
        pick = turn.source.draw(turn.games, np.maximum(n_options, 1), 1, used=(n_options > 0).astype(np.int64))
        nth = (np.cumsum(options, axis=1) > pick).argmax(axis=1)
        return np.where(n_options > 0, nth, -1)


HEURISTICS: dict[str, Policy] = {
    p.name: p
    for p in (
        Policy("keep-jokers", "Keep the most common colour that still has a token, and every joker.", KeepJokers),
        Policy("reroll-jokers", "Keep the most common colour only; jokers are rerolled (baseline).", RerollJokers),
        Policy("greedy", "Keep the dice that maximise the expected token value one roll ahead.", Greedy),
        Policy("turn-optimal", "Exact dynamic programme maximising the expected token value this turn.", TurnOptimal),
        Policy("random", "Keep each die with probability 1/2; take a random token the dice allow.", Random),
    )
}
"""The policies that need no solution and no search: what the solver's fixed rules and the expert's rollouts play."""
