"""The exact 2-player solution of Pantolino's base game, and exact values of fixed policy pairs.

A position is the supply (a token bit set), the score difference ``d`` from the mover's view and, when two
different rules play, which rule moves. ``V(S, d)`` is the mover's chance of winning (a shared win counts
half). The supply only shrinks, so positions are solved level by level, fewest tokens first:

- a throw that fits tokens leads to a smaller supply, already solved: taking token ``t`` is worth
  ``1 - V'(S - t, -(d + v_t))`` to the mover (``V'`` is the opponent's rule);
- a throw that fits nothing passes the same supply to the opponent: ``1 - V'(S, -d)``. So ``(S, d)`` and
  ``(S, -d)`` form a small fixed point. It is solved by policy iteration: for fixed keeps each value is linear,
  ``V = a + b (1 - V_partner)`` with ``b`` the chance of fitting nothing, so the pair is a 2x2 linear system
  solved exactly; keeps are then re-chosen against the new values until no value moves by more than
  :data:`TOLERANCE` (``b < 1`` always: a throw of one colour fits that colour's smallest token). Rows whose
  partner moved by at most :data:`SETTLED` keep their keeps, which bounds their error by that amount.

The optimising rule keeps dice by the per-turn dynamic programme of :meth:`DiceTables.keep_tables`, maximising
the chance of winning the game instead of the token's value, and takes the token with the best successor
value; playing both seats, it gives the equilibrium that ``win-optimal`` plays. Fixed rules (``turn-optimal``,
``greedy``, ``keep-jokers``, ``reroll-jokers``, and ``win-optimal`` itself) keep and choose as in play. The
engine's turn cap (2000 turns) is ignored: a base game reaches it with negligible probability.

The final tie-break (most boots of one colour) is not a function of ``d``. It is never needed where the
tokens' boots add up to an odd number and every token ends on a centipede (the base game: 45 boots), because
two players cannot then end level; settings where they can (an even total, ``remove-smallest``, an odd head
start) are refused. A head start (``head_start``, seat 1 starts ``h`` boots up) is only another first position,
``d = -h``: the solution covers the differences it makes reachable, and a table solved for ``h`` holds every
smaller even head start's game too (:func:`start_value`). Escaping boots (the state would need the centipedes'
tails) and 3+ players are refused too.
"""

from __future__ import annotations

import io
import lzma
import sys
from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path

import numpy as np

from boardlab.engines import core
from boardlab.engines.cachedir import cache_dir, cached_array, key_digest
from boardlab.engines.pantolino.heuristics import HEURISTICS
from boardlab.engines.pantolino.rules import INFO, Params, highest_bit, token_colour, token_value, total_boots

FORMAT = 1  # bump when the table layout or the solution's definition changes: old cache files are ignored
OPTIMISE = "optimise"  # the best reply to the other rule
TABLED = "win-optimal"  # the equilibrium policy as it plays, from the cached values
FIXED = ("turn-optimal", "greedy", "keep-jokers", "reroll-jokers")
MAX_TOKENS = 16  # values are stored densely over every supply: 2 ** tokens rows
CHUNK_ROWS = 256  # positions per batched dynamic programme: its (rows, throws, keeps) arrays stay in cache (4 MB)
TOLERANCE = 1e-13  # policy iteration stops when no value moves by more than this
SETTLED = 1e-13  # keeps chosen for a stay value this close to the current one are kept (value error <= this)
NEAR = 1e-12  # choices whose values are this close count as tied (ties go to a fixed order)
MAX_ITERATIONS = 200
SHIPPED = Path(__file__).with_name("tables")  # compressed solved tables, named like their cache files (+ ".xz")
Progress = Callable[[int, int], None]  # (positions done, positions in all)


def check_supported(params: Params, players: int = 2) -> None:
    """Raise ``ValueError`` naming the reason unless the exact solution covers these knobs and players."""
    if players != 2:
        raise ValueError(f"players={players} is not supported by the exact solution; it needs exactly 2 players")
    if params.escaping_boots:
        raise ValueError("escaping_boots=True is not supported by the exact solution; it solves the base game only")
    if params.no_token_rule != "nothing":
        raise ValueError(
            f"no_token_rule={params.no_token_rule!r} is not supported by the exact solution: removed tokens make "
            "level scores possible, and the colour tie-break is not tracked; use no_token_rule='nothing'"
        )
    if params.n_tokens > MAX_TOKENS:
        raise ValueError(
            f"colours * len(token_values) = {params.n_tokens} tokens is too many for the exact solution; "
            f"allowed at most {MAX_TOKENS}"
        )
    total = total_boots(params, 2)
    if total % 2 == 0:
        raise ValueError(
            f"token_values={params.token_values} with colours={params.colours} and head_start={params.head_start} "
            f"make {total} boots in all; the exact solution needs an odd total, so that 2 players never end level "
            "and the colour tie-break is moot"
        )


class Solver:
    """Backward induction over (supply, score difference, rule to move) for one set of knobs.

    A rule is :data:`OPTIMISE` (the best reply to the other rule; the equilibrium when it plays both seats),
    :data:`TABLED` (``win-optimal`` as it plays: keeps and token from the cached equilibrium values) or one of
    :data:`FIXED`.
    """

    def __init__(self, params: Params, rules: Sequence[str]) -> None:
        """Prepare for ``rules``: one rule (it plays both seats) or two (they alternate, ``rules[0]`` first)."""
        check_supported(params)
        allowed = (OPTIMISE, TABLED, *FIXED)
        if not 1 <= len(rules) <= 2 or any(r not in allowed for r in rules):
            raise ValueError(f"rules={list(rules)!r} is not allowed; give one or two of {', '.join(allowed)}")
        self.params, self.rules = params, tuple(rules)
        t = self.tables = params.tables
        self.n_tokens = params.n_tokens
        self.value, self.colour = token_value(params), token_colour(params)
        self.total = int(self.value.sum())
        self.offset = self.total  # column of d = 0
        self.eff = t.effective_counts(t.codes[t.full])  # (F, C) count of each colour, jokers included
        self.fits = ((t.fit_mask[:, None] >> np.arange(self.n_tokens)) & 1).astype(bool)  # (F, T)
        self.transition = t.transition.astype(np.float64) / t.unit  # (kept multisets, F)
        self.start = self.transition[t.index_of_code[0]]  # the first roll: every die
        self.options = t.padded_keep_options
        bits = np.arange(1 << self.n_tokens, dtype=np.int64)
        self.supply_boots = (((bits[:, None] >> np.arange(self.n_tokens)) & 1) * self.value).sum(axis=1)
        self.fixed = {name: FixedRule(params, name) for name in set(self.rules) if name in FIXED}
        self.tolerance = TOLERANCE  #: policy iteration's stopping rule (a subclass may widen it)

    def within(self, d: np.ndarray) -> np.ndarray:
        """Score differences as the table holds them, beyond ``±total`` as its edge.

        Only a head start reaches beyond, and only where the game is decided, which the edge is too.
        """
        return np.clip(d, -self.total, self.total)

    def other(self, m: np.ndarray) -> np.ndarray:
        """Index of the rule the opponent plays."""
        return (m + 1) % len(self.rules)

    def kind(self, m: np.ndarray, name: str) -> np.ndarray:
        """Mask of the rows whose mover plays rule ``name``."""
        return np.array([r == name for r in self.rules])[m]

    @cached_property
    def table(self) -> np.ndarray:
        """The equilibrium values ``(1, supplies, differences)`` that ``win-optimal`` plays by."""
        return cached_values(self.params)

    # --- the turn ------------------------------------------------------------------------------------------

    def successor_values(self, values: np.ndarray, supply: np.ndarray, d: np.ndarray, rival: np.ndarray) -> np.ndarray:
        """``(rows, tokens)``: the mover's value of taking each supply token (-inf for tokens not in the supply).

        ``values[rival]`` are the opponent's values, who moves next.
        """
        tokens = np.arange(self.n_tokens)
        present = ((supply[:, None] >> tokens) & 1).astype(bool)
        after = supply[:, None] & ~(np.int64(1) << tokens)
        column = self.offset - (d[:, None] + self.value)
        out = 1.0 - values[rival[:, None], after, np.clip(column, 0, 2 * self.total)]
        return np.where(present, out, -np.inf)

    def best_fit(self, take: np.ndarray) -> np.ndarray:
        """``(rows, F)``: for each last throw, the best value among the tokens it fits (-inf if none)."""
        t = self.tables
        rows = len(take)
        by_colour = np.full((rows, t.colours, t.dice + 1), -np.inf)
        for token in range(self.n_tokens):
            c, v = self.colour[token], self.value[token]
            by_colour[:, c, v:] = np.maximum(by_colour[:, c, v:], take[:, token, None])
        best = np.full((rows, len(t.full)), -np.inf)
        for c in range(t.colours):
            best = np.maximum(best, by_colour[:, c, self.eff[:, c]])
        return best

    def optimise_turn(self, fit: np.ndarray, stay: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Best keeps for win probability: ``(value, chance of fitting nothing, kept multiset per roll and throw)``.

        ``fit`` is the value of each last throw that fits something (-inf otherwise); ``stay`` the value of a
        turn that takes nothing. The kept multisets are indices ``(rows, rolls, F)`` into the tables' codes. Keeps
        within :data:`NEAR` of the best count as tied, and ties go to the first in
        :attr:`DiceTables.keep_options` order (more dice, then the smaller code), so rounding cannot flip them.
        """
        t = self.tables
        nothing = np.isneginf(fit)
        value = np.where(nothing, stay[:, None], fit)
        miss = nothing.astype(np.float64)
        keeps = np.zeros((len(fit), t.rolls, len(t.full)), dtype=np.int64)
        for left in range(1, t.rolls):
            expected, expected_miss = value @ self.transition.T, miss @ self.transition.T
            options = expected[:, self.options]  # (rows, F, J)
            best = options.max(axis=2, keepdims=True)
            first = (options >= best - NEAR).argmax(axis=2)
            pick = self.options[np.arange(len(t.full)), first]
            keeps[:, left] = pick
            value = np.take_along_axis(expected, pick, axis=1)
            miss = np.take_along_axis(expected_miss, pick, axis=1)
        return value @ self.start, miss @ self.start, keeps

    def follow_turn(self, keeps: np.ndarray, last: np.ndarray) -> np.ndarray:
        """Expected value of ``last`` (a value per last throw, ``(rows, F)``) when dice are kept by ``keeps``.

        ``keeps`` are kept multisets as indices ``(rows, rolls, F)``, as :meth:`optimise_turn` gives them.
        """
        t = self.tables
        for left in range(1, t.rolls):
            last = np.take_along_axis(last @ self.transition.T, keeps[:, left], axis=1)
        return last @ self.start

    def tabled_turn(self, supply: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """How ``win-optimal`` plays: its kept multisets ``(rows, rolls, F)`` and token per last throw ``(rows, F)``."""
        zero = np.zeros(len(supply), dtype=np.int64)
        take = self.successor_values(self.table, supply, d, zero)
        stay = 1.0 - self.table[0, supply, self.offset - d]
        keeps = self.optimise_turn(self.best_fit(take), stay)[2]
        return keeps, pick_token(take[:, None, :], self.fits[None])

    # --- backward induction --------------------------------------------------------------------------------

    def positions(self, supplies: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every reachable undecided (supply, d, rule) of these supplies.

        Reachable: ``|d|`` at most the boots taken plus the head start, with their parity; undecided: ``|d|`` at
        most the boots left.
        """
        taken = self.total - self.supply_boots[supplies] + self.params.head_start
        reach = np.minimum(taken, self.supply_boots[supplies])
        d_axis = np.arange(-self.total, self.total + 1)
        ok = (np.abs(d_axis)[None] <= reach[:, None]) & ((d_axis[None] - taken[:, None]) % 2 == 0)
        s_idx, d_idx = np.nonzero(ok)
        n_rules = len(self.rules)
        supply = np.repeat(supplies[s_idx], n_rules)
        d = np.repeat(d_axis[d_idx], n_rules)
        m = np.tile(np.arange(n_rules), len(s_idx))
        return supply, d, m

    def solve(self, root: int | None = None, progress: Progress | None = None) -> np.ndarray:
        """Values ``(rules, 2 ** tokens, 2 * total + 1)`` of every position below ``root`` (default: full).

        Entry ``[m, S, d + total]`` is the chance that the mover, playing ``rules[m]``, wins from supply ``S``
        with score difference ``d``; positions that cannot be reached are NaN.
        """
        values, work = self.skeleton(root)
        total_rows, done = sum(len(w[0]) for w in work), 0
        for supply, d, m in work:
            values[m, supply, d + self.offset] = self.solve_level(values, supply, d, m)
            done += len(supply)
            if progress is not None:
                progress(done, total_rows)
        return values

    def skeleton(self, root: int | None = None) -> tuple[np.ndarray, list[tuple[np.ndarray, ...]]]:
        """The values known before solving (decided positions; NaN elsewhere) and the positions to solve, by level."""
        root = (1 << self.n_tokens) - 1 if root is None else root
        values = np.full((len(self.rules), 1 << self.n_tokens, 2 * self.total + 1), np.nan)
        d_axis = np.arange(-self.total, self.total + 1)
        below = np.arange(root + 1, dtype=np.int64)
        below = below[(below & ~root) == 0]
        left = self.supply_boots[below]
        values[:, below] = np.where(d_axis > left[:, None], 1.0, np.where(d_axis < -left[:, None], 0.0, np.nan))
        values[:, 0, self.offset] = 0.5  # an empty supply with level scores: a shared win
        levels = np.bitwise_count(below)
        return values, [self.positions(below[levels == k]) for k in range(1, int(levels.max(initial=0)) + 1)]

    def check(self, values: np.ndarray) -> str | None:
        """None if ``values`` can be this solver's full solution, else what is wrong (a cache's check).

        The shape and type, the decided positions' exact values, a value in [0, 1] at every position to solve
        and NaN at every unreachable one, and the game's equations at the lowest and the top level (solved again
        from the table's own values below them: a few positions). So a table of zeros, of NaN or of another game
        is refused.
        """
        known, work = self.skeleton()
        if values.shape != known.shape or values.dtype != np.float64:
            return f"shape {values.shape} {values.dtype}, expected {known.shape} float64"
        decided = ~np.isnan(known)
        if not np.array_equal(values[decided], known[decided]):
            return "the decided positions' values are wrong"
        solved = np.zeros(known.shape, dtype=bool)
        for supply, d, m in work:
            solved[m, supply, d + self.offset] = True
        inside = values[solved]
        if not (np.isfinite(inside).all() and (inside >= 0).all() and (inside <= 1).all()):
            return "a position's value is not a chance in [0, 1]"
        if not np.isnan(values[~solved & ~decided]).all():
            return "an unreachable position has a value"
        for supply, d, m in {0: work[0], len(work) - 1: work[-1]}.values() if work else ():
            if not np.allclose(self.solve_level(values, supply, d, m), values[m, supply, d + self.offset], atol=1e-9):
                return "its values do not satisfy the game's equations"
        return None

    def solve_level(self, values: np.ndarray, supply: np.ndarray, d: np.ndarray, m: np.ndarray) -> np.ndarray:
        """Values of one level's positions: a fixed point of pairs ``(S, d, m)`` and ``(S, -d, other m)``."""
        n = len(supply)
        width = (2 * self.total + 1) * len(self.rules)
        key = supply * width + (d + self.offset) * len(self.rules) + m
        partner_key = supply * width + (self.offset - d) * len(self.rules) + self.other(m)
        order = np.argsort(key)
        partner = order[np.searchsorted(key, partner_key, sorter=order)]
        a, b = np.zeros(n), np.zeros(n)  # V = a + b * (1 - V[partner]) for the rows whose keeps are fixed
        fit = np.empty((n, len(self.tables.full)))
        for lo in range(0, n, CHUNK_ROWS):
            rows = np.arange(lo, min(lo + CHUNK_ROWS, n))
            tabled = rows[self.kind(m[rows], TABLED)]
            keeps, chosen = self.tabled_turn(supply[tabled], d[tabled]) if len(tabled) else (None, None)
            fit[rows] = self.fit_values(values, supply[rows], d[rows], m[rows], chosen)
            if len(tabled):
                nothing = np.isneginf(fit[tabled])
                a[tabled] = self.follow_turn(keeps, np.where(nothing, 0.0, fit[tabled]))
                b[tabled] = self.follow_turn(keeps, nothing.astype(np.float64))
        for name, rule in self.fixed.items():
            rows = np.flatnonzero(self.kind(m, name))
            weights = rule.distribution(supply[rows])
            nothing = np.isneginf(fit[rows])
            a[rows] = (weights * np.where(nothing, 0.0, fit[rows])).sum(axis=1)
            b[rows] = (weights * nothing).sum(axis=1)
        optimising = np.flatnonzero(self.kind(m, OPTIMISE))
        x, used = np.full(n, 0.5), np.full(n, np.nan)  # used: the stay value each row's keeps were chosen for
        for _ in range(MAX_ITERATIONS):
            stay = 1.0 - x[partner]
            stale = optimising[~(np.abs(used[optimising] - stay[optimising]) <= SETTLED)]  # see SETTLED
            for lo in range(0, len(stale), CHUNK_ROWS):
                rows = stale[lo : lo + CHUNK_ROWS]
                v, b[rows], _ = self.optimise_turn(fit[rows], stay[rows])
                a[rows] = v - b[rows] * stay[rows]
            used[stale] = stay[stale]
            ap, bp = a[partner], b[partner]
            new = (a + b * (1.0 - ap - bp)) / (1.0 - b * bp)
            moved = np.abs(new - x).max(initial=0.0)
            x = new
            if moved <= self.tolerance or not len(stale):
                return x
        raise RuntimeError(f"policy iteration did not settle after {MAX_ITERATIONS} rounds (moved {moved:.2e})")

    def fit_values(
        self, values: np.ndarray, supply: np.ndarray, d: np.ndarray, m: np.ndarray, tabled: np.ndarray | None = None
    ) -> np.ndarray:
        """``(rows, F)``: the mover's value of each last throw that fits a token (-inf when none fits).

        An optimising mover takes the best token; a fixed rule the best that fits (highest value, then lowest
        colour); ``win-optimal`` the token its own table prefers, given in ``tabled`` for its rows (in order).
        """
        take = self.successor_values(values, supply, d, self.other(m))
        out = self.best_fit(take)
        fixed = np.flatnonzero(np.isin(m, [i for i, r in enumerate(self.rules) if r in FIXED]))
        for rows, chosen in (
            (fixed, highest_bit(supply[fixed, None] & self.tables.fit_mask[None])),
            (np.flatnonzero(self.kind(m, TABLED)), tabled),
        ):
            if len(rows):
                picked = np.take_along_axis(take[rows], np.maximum(chosen, 0), axis=1)
                out[rows] = np.where(chosen >= 0, picked, -np.inf)
        return out


def pick_token(take: np.ndarray, fits: np.ndarray) -> np.ndarray:
    """The fitting token of best value in ``take``, or -1; values within 1e-12 tie and go to the highest id.

    Token ids are numbered by preference (highest value, then lowest colour), so ties go to the preferred one.
    """
    masked = np.where(fits, take, -np.inf)
    best = masked.max(axis=-1, keepdims=True)
    near = masked >= best - NEAR
    preferred = masked.shape[-1] - 1 - near[..., ::-1].argmax(axis=-1)
    return np.where(np.isneginf(best[..., 0]), -1, preferred)


class FixedRule:
    """A policy whose keeps depend on the supply only: the exact distribution of its last throw per supply."""

    def __init__(self, params: Params, name: str) -> None:
        """The policy ``name`` for ``params``."""
        self.impl = core.instantiate(HEURISTICS[name], params)
        self.tables = params.tables

    def distribution(self, supplies: np.ndarray) -> np.ndarray:
        """``(len(supplies), F)`` probabilities of the last throw."""
        unique, inverse = np.unique(supplies, return_inverse=True)
        weights = self.tables.final_distribution(self.impl.keeps_for_signatures(unique))
        return (weights / float(self.tables.unit**self.tables.rolls))[inverse]


# --- the cached solution ---------------------------------------------------------------------------------------


def cache_path(params: Params, rules: Sequence[str] = (OPTIMISE,), folder: Path | None = None) -> Path:
    """The cache file of ``rules``' values for these knobs (dice, tokens, head start, engine version and format)."""
    knobs = {
        k: v for k, v in params.as_dict().items() if k in ("dice", "colours", "joker_faces", "rolls", "head_start")
    }
    knobs |= {"token_values": list(params.token_values), "rules": list(rules), "format": FORMAT, "engine": INFO.version}
    name = "win-optimal" if tuple(rules) == (OPTIMISE,) else "-".join(rules)
    return (folder or cache_dir()) / f"pantolino-{name}-{key_digest(knobs)}.npy"


def cached_values(
    params: Params, rules: Sequence[str] = (OPTIMISE,), progress: Progress | None = None, folder: Path | None = None
) -> np.ndarray:
    """:meth:`Solver.solve` of the full game for ``rules``, read from the cache or solved (and cached) once.

    The default is the equilibrium that ``win-optimal`` plays. The file is kept by
    :func:`engines.cachedir.cached_array`: used only when its checksum matches and its values pass
    :meth:`Solver.check`, else solved (again, with a one-line warning for a damaged or wrong file); processes asking
    at once solve it once.
    """
    check_supported(params)
    solver = Solver(params, rules)
    path = cache_path(params, rules, folder)

    def solved() -> np.ndarray:
        if (values := shipped_values(path.name, solver.check)) is not None:
            return values
        with _ProgressHook(progress) as report:
            return solver.solve(progress=report)

    name = "win-optimal" if tuple(rules) == (OPTIMISE,) else " against ".join(rules)
    title = f"solving 2-player Pantolino exactly ({name}, head start {params.head_start}; once, then cached)"
    return cached_array(path, solved, solver.check, "solver cache", title)


def shipped_values(name: str, check: Callable[[np.ndarray], str | None]) -> np.ndarray | None:
    """The shipped table for cache file ``name`` (``tables/NAME.xz`` in this package), or None.

    The tables the shipped report reads ship compressed, so a first report need not solve them (minutes each);
    a shipped table that ``check`` refuses, or cannot be read, is ignored (then solved).
    """
    path = SHIPPED / f"{name}.xz"
    if not path.exists():
        return None
    try:
        values = np.load(io.BytesIO(lzma.decompress(path.read_bytes())), allow_pickle=False)
    except (OSError, ValueError, EOFError, lzma.LZMAError):
        return None
    return values if check(values) is None else None


def start_value(values: np.ndarray, params: Params) -> np.ndarray:
    """Each rule's chance of winning as the first mover from the start (values from :meth:`Solver.solve`).

    The first mover trails by the head start; a table solved for a head start holds every smaller one of the
    same parity too, so ``values`` may come from a larger head start than ``params``'.
    """
    offset = sum(params.token_values) * params.colours
    return values[:, (1 << params.n_tokens) - 1, offset - params.head_start]


class _ProgressHook:
    """The caller's progress callback; else a rich bar on stderr when it is a terminal; else nothing."""

    def __init__(self, progress: Progress | None) -> None:
        self.progress, self.bar = progress, None

    def __enter__(self) -> Progress | None:
        if self.progress is not None or not sys.stderr.isatty():
            return self.progress
        from rich.console import Console
        from rich.progress import Progress as Bar

        self.bar = Bar(console=Console(stderr=True), transient=True)
        self.bar.__enter__()
        task = self.bar.add_task("solving 2-player Pantolino (once; cached)", total=None)
        return lambda done, total: self.bar.update(task, completed=done, total=total)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)
