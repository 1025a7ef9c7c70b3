"""The best one seat can do against two ``turn-optimal`` rivals in 3-player base Pantolino: a ceiling for players.

The rivals' play is fixed, so the seat's best reply is a single-agent problem, solved by backward induction over
positions from the seat's view. A position must hold what decides the rest of the game: the supply, each
player's boots, and, because ties on boots go to the most boots of one colour and ``turn-optimal`` breaks ties
between equal tokens by the colour its mover holds most of, who holds which token. That is ``4 ** 15`` positions
in the default game, too many; but the dice treat the colours alike, so a position is kept as the *multiset* of
its colours' patterns (each colour's tokens in the supply or held by the seat, the next rival or the last;
10,424,128 positions by default). Two rules tell colours apart by name, and are averaged here instead: the
rivals' keeps break ties between equal keeps by the dice code (so a rival's last throw is averaged over the
colour relabellings that leave its supply alike), and their token rule ends on the lowest colour (averaged over
the colours still tied). Measured on the default game, the three seats of ``turn-optimal`` played this way are
valued 48.555%, 31.162% and 20.277%, where 2,000,000 simulated games give 48.574%, 31.144% and 20.282%
(each ± 0.07): the averaging costs nothing visible.

A seat's share counts a shared win as one over the winners. Each position is solved once its smaller supplies
are: a rival's turn is a fixed mixture over its last throws; the seat keeps dice by the per-turn programme of
:mod:`engines.pantolino.keepdp` and takes the best token; a turn that takes nothing passes the same supply on,
so the three movers' values of one position are a small fixed point, solved by secant steps on the seat's value
(:func:`_best_turns`). Positions already decided (the seat cannot catch the leader, or cannot be caught) are not
searched. The engine's turn cap is ignored.

:func:`solve` gives every position's value (:func:`cached_solution` keeps them in the cache folder); :class:`BestReply`
plays by them (for checking by simulation).
``follow`` solves the seat playing ``turn-optimal`` too, the check that the position is rich enough.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from itertools import permutations
from pathlib import Path

import numpy as np
from numba import njit

from boardlab.engines.cachedir import cache_dir, cached_array, key_digest
from boardlab.engines.pantolino import keepdp
from boardlab.engines.pantolino.rules import INFO, Params, Turn, TurnMemo, fits, token_colour, token_value
from boardlab.engines.pantolino.solver import FixedRule

PLAYERS = 3
MAX_POSITIONS = 12_000_000  # values of three movers in float64: 300 MB at most
CHUNK = 20_000  # positions per batched turn programme
SLACK = 1e-9  # a stored share may stray this far outside [0, 1] by rounding
TOLERANCE = 1e-12  # the seat's value is settled when one more step moves it by at most this
MAX_ITERATIONS = 100
FORMAT = 1  # bump when the table's layout or meaning changes: older cache files are then ignored
Progress = Callable[[int, int], None]  # (supply level done, levels)


def check_supported(params: Params) -> None:
    """Raise ``ValueError`` naming the reason unless these knobs can be solved here."""
    if params.escaping_boots or params.no_token_rule != "nothing" or params.head_start:
        raise ValueError(
            "the best reply is solved for the base game only: escaping_boots=false, no_token_rule='nothing' "
            "and head_start=0"
        )
    if (n := positions(params)) > MAX_POSITIONS:
        raise ValueError(f"these knobs make {n:,} positions; the best reply is solved for at most {MAX_POSITIONS:,}")


def solvable(params: Params, players: int) -> bool:
    """Whether the best reply is solved here for these knobs and players (:func:`check_supported`)."""
    if players != PLAYERS:
        return False
    try:
        check_supported(params)
    except ValueError:
        return False
    return True


def cache_path(params: Params, folder: Path | None = None) -> Path:
    """The cache file of :func:`solve`'s values for these knobs (every knob, the engine's version and the format)."""
    knobs = params.as_dict() | {"token_values": list(params.token_values), "format": FORMAT, "engine": INFO.version}
    return (folder or cache_dir()) / f"pantolino-best-reply-{key_digest(knobs)}.npy"


def cached_solution(params: Params, progress: Progress | None = None) -> np.ndarray:
    """:func:`solve`'s values (the seat replying), read from the cache or solved and cached once.

    Kept by :func:`engines.cachedir.cached_array`: checksummed, checked by :func:`check`, and solved once when
    several processes ask at the same time (a training's workers).
    """
    check_supported(params)
    return cached_array(
        cache_path(params), lambda: solve(params, progress=progress), lambda v: check(params, v), "best-reply cache"
    )


def check(params: Params, values: np.ndarray) -> str | None:
    """None if ``values`` can be :func:`solve`'s table for ``params``, else what is wrong (a cache's check)."""
    expected = (PLAYERS, positions(params))
    if values.shape != expected or values.dtype != np.float64:
        return f"shape {values.shape} {values.dtype}, expected {expected} float64"
    if not (np.isfinite(values).all() and (values >= -SLACK).all() and (values <= 1 + SLACK).all()):
        return "a position's value is not a chance in [0, 1]"
    return None


def positions(params: Params) -> int:
    """Number of positions: multisets of ``colours`` patterns, each of ``4 ** len(token_values)``."""
    return math.comb(patterns(params) + params.colours - 1, params.colours)


def patterns(params: Params) -> int:
    """A colour's patterns: each of its tokens in the supply or held by one of the three players."""
    return (PLAYERS + 1) ** len(params.token_values)


def binomial_table(params: Params) -> np.ndarray:
    """``binomial[n, k]`` = C(n, k) for the ranks of sorted pattern multisets (:class:`Positions`)."""
    return np.array(
        [[math.comb(n, k) for k in range(params.colours + 1)] for n in range(patterns(params) + params.colours)],
        dtype=np.int64,
    )


class Positions:
    """Every position's colour patterns, indexed by rank (the combinatorial number system of sorted patterns)."""

    def __init__(self, params: Params) -> None:
        """Enumerate the positions of ``params``."""
        self.params = params
        self.colours = params.colours
        self.binomial = binomial_table(params)
        self.pattern = _enumerate(patterns(params), self.colours, positions(params), self.binomial)
        self.level = _supply_counts(self.pattern, len(params.token_values))  # tokens in the supply
        self.values = np.array(params.token_values, dtype=np.int64)


def solve(params: Params, follow: bool = False, progress: Progress | None = None) -> np.ndarray:
    """Values ``(3, positions)``: the seat's share when the seat (row 0), the next rival (1) or the last (2) moves.

    With ``follow`` the seat plays ``turn-optimal`` too; otherwise it plays its best reply. A level's positions (one
    supply size) read only smaller supplies' values, so its chunks are solved in :func:`threads` threads at once (the
    compiled kernels release the GIL); the values are the same for any number of threads.
    """
    check_supported(params)
    where = Positions(params)
    tables = params.tables
    sparse = keepdp.Sparse.of(tables)
    fit_mask = tables.fit_mask.astype(np.int64)
    throws = rival_throws(params)
    colour, value = token_colour(params), token_value(params)
    values = np.full((PLAYERS, len(where.pattern)), np.nan)
    ranks = np.arange(len(where.pattern), dtype=np.int64)

    def solve_rows(rows: np.ndarray, sup: np.ndarray) -> None:  # rows of one level: a thread's share of it
        args = (rows, sup, where.pattern, values, throws, fit_mask, where.values, params.colours, where.binomial)
        a_next, miss = _rival_terms(*args, 1)
        a_last, _ = _rival_terms(*args, 2)
        after_rivals = a_next + miss * a_last  # after the seat passes, but for miss**2 * own (both pass back)
        if follow:
            a_own, _ = _rival_terms(*args, 0)
            own = (a_own + miss * after_rivals) / (1 - miss**3)
        else:
            take = _seat_takes(rows, sup, where.pattern, values, params.colours, params.n_tokens, where.binomial)
            own = _best_turns(take, after_rivals, miss**2, colour, value, sparse, tables.rolls)
        values[0, rows] = own
        values[1, rows] = after_rivals + miss**2 * own
        values[2, rows] = a_last + miss * own

    with ThreadPoolExecutor(threads()) as pool:
        for level in range(params.n_tokens + 1):
            rank = ranks[where.level == level]
            supply, known = _classify(rank, where.pattern, where.values, params.colours)
            values[:, rank[known >= 0]] = known[known >= 0]
            rows, sup = rank[known < 0], supply[known < 0]
            starts = range(0, len(rows), CHUNK)
            list(
                pool.map(solve_rows, (rows[lo : lo + CHUNK] for lo in starts), (sup[lo : lo + CHUNK] for lo in starts))
            )
            if progress is not None:
                progress(level + 1, params.n_tokens + 1)
    return values


def threads() -> int:
    """Threads that solve a level's chunks at once: the cores this process may use (the values never depend on it)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def seat_values(values: np.ndarray) -> np.ndarray:
    """The seat's share from the start in each seat (0 moves first): ``(3,)``."""
    return np.array([values[(PLAYERS - seat) % PLAYERS, 0] for seat in range(PLAYERS)])


def rival_throws(params: Params) -> np.ndarray:
    """``(2 ** tokens, F)``: a ``turn-optimal`` mover's last throw per supply, averaged over alike colours.

    The average is over the relabellings of colours that leave the supply unchanged (see the module docstring).
    """
    tables, n_tokens, colours = params.tables, params.n_tokens, params.colours
    supplies = np.arange(1 << n_tokens, dtype=np.int64)
    throws = FixedRule(params, "turn-optimal").distribution(supplies)
    full = tables.counts[tables.full]
    orders = np.array(list(permutations(range(colours))), dtype=np.int64)
    relabel = np.empty((len(orders), len(tables.full)), dtype=np.int64)
    for i, order in enumerate(orders):
        moved = full.copy()
        moved[:, order] = full[:, :colours]
        relabel[i] = tables.full_position[tables.index_of_code[moved @ tables.weight]]
    colour = token_colour(params)
    in_colour = np.zeros((len(supplies), colours), dtype=np.int64)  # each colour's supply tokens as bits by value
    for t in range(n_tokens):
        in_colour[:, colour[t]] |= ((supplies >> t) & 1) << (t // colours)
    return _average_relabellings(throws, in_colour, orders, relabel)


def _best_turns(
    take: np.ndarray,
    base: np.ndarray,
    loop: np.ndarray,
    colour: np.ndarray,
    value: np.ndarray,
    sparse: keepdp.Sparse,
    rolls: int,
) -> np.ndarray:
    """The seat's value under its best keeps, when taking nothing is worth ``base + loop * (its own value)``.

    The value ``x`` solves ``x = g(base + loop * x)``, ``g`` the turn's value under the best keeps for a given
    value of taking nothing: convex and piecewise linear (a maximum over keep policies, each linear in it), with
    slope ``loop`` times a chance of fitting nothing, below 1. Secant steps on ``g(base + loop * x) - x`` find it
    (exactly, once two steps fall on the root's linear piece; a plain step where the secant is flat), each step
    one pass of the turn's programme, until no value moves by :data:`TOLERANCE`.
    """
    x_old = np.full(len(take), 0.5)
    y_old = _turn_values(take, base + loop * x_old, colour, value, sparse, rolls)
    x, y = y_old.copy(), y_old.copy()
    active = np.arange(len(take))
    for _ in range(MAX_ITERATIONS):
        y[active] = _turn_values(take[active], base[active] + loop[active] * x[active], colour, value, sparse, rolls)
        active = active[np.abs(y[active] - x[active]) > TOLERANCE]
        if not len(active):
            return y
        gap, gap_old = y[active] - x[active], y_old[active] - x_old[active]
        step = x[active] - x_old[active]
        slope = np.divide(gap - gap_old, step, out=np.zeros(len(active)), where=step != 0)
        secant = np.divide(gap, slope, out=np.zeros(len(active)), where=slope < 0)
        x_old[active], y_old[active] = x[active], y[active]
        x[active] = np.where(slope < 0, x[active] - secant, y[active])
    raise RuntimeError(f"the seat's values did not settle after {MAX_ITERATIONS} steps")


def _turn_values(
    take: np.ndarray, stay: np.ndarray, colour: np.ndarray, value: np.ndarray, sparse: keepdp.Sparse, rolls: int
) -> np.ndarray:
    """The turn's value under the best keeps, when the last throw takes the best of ``take`` or else ``stay``."""
    worth = keepdp.terminal_values(take, stay, colour, value, sparse.eff)
    for _ in range(rolls - 1):
        worth = keepdp.advance(worth, sparse)
    return keepdp.first_roll(worth, sparse)


class BestReply:
    """A policy implementation that plays by :func:`solve`'s values (3 players, the seat it is given)."""

    def __init__(self, params: Params, values: np.ndarray) -> None:
        """Play ``params`` by ``values`` (from :func:`solve` of the same knobs; another table is refused)."""
        if values.shape != (PLAYERS, positions(params)):
            raise ValueError(
                f"values of shape {values.shape} are not a solution of these knobs: expected "
                f"({PLAYERS}, {positions(params)})"
            )
        self.colours, self.binomial = params.colours, binomial_table(params)
        self.tables = params.tables
        self.sparse = keepdp.Sparse.of(self.tables)
        self.colour, self.value = token_colour(params), token_value(params)
        #: what a position is worth to the seat once it has moved (a copy: the other two rows, 170 MB at default
        #: knobs, are not kept alive by a player that never reads them)
        self.after_seat = values[1].copy()
        self.memo: TurnMemo[tuple[np.ndarray, np.ndarray]] = TurnMemo()

    def prepare(self, players: int) -> None:
        """Refuse any table but three players."""
        if players != PLAYERS:
            raise ValueError(f"the best reply plays {PLAYERS}-player games, not {players}")

    def successors(self, turn: Turn) -> tuple[np.ndarray, np.ndarray]:
        """``(take (B, T), stay (B,))``: the seat's share after taking each supply token, and after nothing.

        Computed once a turn: the keeps and the token choice of one turn all read them.
        """
        return self.memo.get(turn, lambda: self.compute_successors(turn))

    def compute_successors(self, turn: Turn) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`successors`, computed."""
        owner = turn.owner.astype(np.int64)
        relative = np.where(owner >= 0, (owner - turn.mover[:, None]) % PLAYERS, -1)
        return _successors(relative, self.after_seat, self.colours, self.binomial)

    def keep(self, turn: Turn, code: np.ndarray, rolls_left: int) -> np.ndarray:
        """The keep that maximises the seat's share where the turn ends."""
        take, stay = self.successors(turn)
        worth = keepdp.terminal_values(take, stay, self.colour, self.value, self.sparse.eff)
        for _ in range(rolls_left - 1):
            worth = keepdp.advance(worth, self.sparse)
        throw = self.tables.full_position[self.tables.index_of_code[code]].astype(np.int64)
        return self.tables.codes[keepdp.pick(worth, np.arange(len(code)), throw, self.sparse)]

    def choose(self, turn: Turn, throw: np.ndarray) -> np.ndarray:
        """The fitting token worth most to the seat, or -1 when none fits."""
        take, _ = self.successors(turn)
        masked = np.where(fits(turn, throw), take, -np.inf)
        return np.where(np.isneginf(masked.max(axis=1)), -1, masked.argmax(axis=1))


# --- compiled kernels ------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _rank(sorted_patterns, binomial):  # pragma: no cover - compiled
    r = 0
    for i in range(len(sorted_patterns)):
        r += binomial[sorted_patterns[i] + i, i + 1]
    return r


@njit(cache=True, nogil=True)
def _enumerate(n_patterns, colours, n_positions, binomial):  # pragma: no cover - compiled
    out = np.empty((n_positions, colours), np.int16)
    p = np.zeros(colours, np.int64)
    while True:
        out[_rank(p, binomial)] = p
        i = colours - 1
        while i >= 0 and p[i] == n_patterns - 1:
            i -= 1
        if i < 0:
            return out
        p[i:] = p[i] + 1


@njit(cache=True, nogil=True)
def _supply_counts(pattern, n_values):  # pragma: no cover - compiled
    out = np.zeros(len(pattern), np.int64)
    for s in range(len(pattern)):
        for i in range(pattern.shape[1]):
            for j in range(n_values):
                out[s] += (pattern[s, i] >> (2 * j)) & 3 == 0
    return out


@njit(cache=True, nogil=True)
def _sorted_rank(p, binomial):  # pragma: no cover - compiled
    q = p.copy()
    for a in range(1, len(q)):
        x, b = q[a], a - 1
        while b >= 0 and q[b] > x:
            q[b + 1] = q[b]
            b -= 1
        q[b + 1] = x
    return _rank(q, binomial)


@njit(cache=True, nogil=True)
def _after(p, i, j, owner, binomial):  # pragma: no cover - compiled
    """Rank once colour ``i``'s token of value index ``j`` goes from the supply to ``owner`` (1 seat, 2, 3)."""
    q = p.astype(np.int64)
    q[i] |= owner << (2 * j)
    return _sorted_rank(q, binomial)


@njit(cache=True, nogil=True)
def _holdings(p, values, colours):  # pragma: no cover - compiled
    """``(supply bits, boots per player, boots per player and colour, boots in the supply)``."""
    supply, left = 0, 0
    held = np.zeros((3, colours), np.int64)
    for i in range(colours):
        for j in range(len(values)):
            o = (p[i] >> (2 * j)) & 3
            if o == 0:
                supply |= 1 << (j * colours + colours - 1 - i)
                left += values[j]
            else:
                held[o - 1, i] += values[j]
    return supply, held.sum(axis=1), held, left


@njit(cache=True, nogil=True)
def _final_share(boots, held):  # pragma: no cover - compiled
    """The seat's share of an ended game: most boots, then most boots of one colour, then shared."""
    top = boots.max()
    if boots[0] < top:
        return 0.0
    colour_best = np.full(3, -1)
    for o in range(3):
        if boots[o] == top:
            colour_best[o] = held[o].max()
    if colour_best[0] < colour_best.max():
        return 0.0
    return 1.0 / (colour_best == colour_best[0]).sum()


@njit(cache=True, nogil=True)
def _classify(rank, pattern, values, colours):  # pragma: no cover - compiled
    """Per position: its supply bits, and its value if already decided (-1 where it must be solved)."""
    supply = np.empty(len(rank), np.int64)
    known = np.empty(len(rank))
    for s in range(len(rank)):
        sup, boots, held, left = _holdings(pattern[rank[s]], values, colours)
        supply[s] = sup
        rival = max(boots[1], boots[2])
        if sup == 0:
            known[s] = _final_share(boots, held)
        elif boots[0] + left < rival:
            known[s] = 0.0
        elif boots[0] > rival + left:
            known[s] = 1.0
        else:
            known[s] = -1.0
    return supply, known


@njit(cache=True, nogil=True)
def _rival_terms(rank, supply, pattern, values, throws, fit_mask, boots, colours, binomial, mover):  # pragma: no cover
    """``(a, miss)`` of a ``turn-optimal`` mover (0 seat, 1 next, 2 last).

    ``a``: the seat's share summed over the last throws that take a token, each weighted by its chance; ``miss``:
    the chance of taking nothing.
    """
    a, miss = np.zeros(len(rank)), np.zeros(len(rank))
    following = (mover + 1) % 3
    after = np.empty(64)  # the seat's share once the mover takes token t (for t in the supply)
    for s in range(len(rank)):
        p = pattern[rank[s]]
        held = _holdings(p, boots, colours)[2]
        for t in range(64):
            if (supply[s] >> t) & 1:
                after[t] = values[following, _after(p, colours - 1 - t % colours, t // colours, mover + 1, binomial)]
        for f in range(len(fit_mask)):
            w = throws[supply[s], f]
            m = supply[s] & fit_mask[f]
            if w == 0.0:
                continue
            if m == 0:
                miss[s] += w
                continue
            top = 63
            while (m >> top) & 1 == 0:
                top -= 1
            j = top // colours  # the highest value that fits; among its colours, the one the mover holds most of
            most = -1
            for t in range(j * colours, j * colours + colours):
                if (m >> t) & 1:
                    most = max(most, held[mover, colours - 1 - t % colours])
            total, count = 0.0, 0
            for t in range(j * colours, j * colours + colours):
                if (m >> t) & 1 and held[mover, colours - 1 - t % colours] == most:  # the lowest colour averaged out
                    total += after[t]
                    count += 1
            a[s] += w * total / count
    return a, miss


@njit(cache=True, nogil=True)
def _seat_takes(rank, supply, pattern, values, colours, n_tokens, binomial):  # pragma: no cover - compiled
    """``(rows, tokens)``: the seat's share after it takes each supply token (-inf for tokens not there)."""
    out = np.full((len(rank), n_tokens), -np.inf)
    for s in range(len(rank)):
        p = pattern[rank[s]]
        for t in range(n_tokens):
            if (supply[s] >> t) & 1:
                out[s, t] = values[1, _after(p, colours - 1 - t % colours, t // colours, 1, binomial)]
    return out


@njit(cache=True, nogil=True)
def _successors(relative, after_seat, colours, binomial):  # pragma: no cover - compiled
    n, n_tokens = relative.shape
    take = np.full((n, n_tokens), -np.inf)
    stay = np.empty(n)
    p = np.zeros(colours, np.int64)
    for g in range(n):
        p[:] = 0
        for t in range(n_tokens):
            p[colours - 1 - t % colours] |= (relative[g, t] + 1) << (2 * (t // colours))
        stay[g] = after_seat[_sorted_rank(p, binomial)]
        for t in range(n_tokens):
            if relative[g, t] < 0:
                take[g, t] = after_seat[_after(p, colours - 1 - t % colours, t // colours, 1, binomial)]
    return take, stay


@njit(cache=True, nogil=True)
def _average_relabellings(throws, in_colour, orders, relabel):  # pragma: no cover - compiled
    out = np.zeros_like(throws)
    for s in range(len(throws)):
        count = 0
        for k in range(len(orders)):
            alike = True
            for c in range(orders.shape[1]):
                alike &= in_colour[s, orders[k, c]] == in_colour[s, c]
            if alike:
                count += 1
                for f in range(throws.shape[1]):
                    out[s, relabel[k, f]] += throws[s, f]
        out[s] /= count
    return out
