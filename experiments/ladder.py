"""The skill ladder: every policy of a game against every other, rated, chained, and the luck share measured.

``simulate ladder GAME`` plays a round robin of ``random``, every heuristic of the game (every policy except
``random``, the ``expert…`` names, ``win-optimal`` and cheating oracles: those whose description says they
cheat), the expert at rising search budgets (``expert:4``, ``expert:16``, …) where the game has an ``expert``, and
``win-optimal`` where the game has it for this player count. Ratings, the skill chain and the luck share are
computed by :mod:`analysis.ratings`.

**Seatings.** For a pair ``a``, ``b`` and ``K`` players, ``a`` sits alone among ``K - 1`` players of ``b`` in every
seat, and ``b`` alone among players of ``a`` in every seat (with 2 players: ``a, b`` and ``b, a``). Every seating
plays ``n`` games from the same chunk seeds (common random numbers, as in a tournament), so each pair plays
``2·K·n`` games (``2·n`` with 2 players).

**Pairwise results.** Each game is one result between the two policies: the policy whose player wins scores 1,
half each when players of both policies share first place. Equally strong policies score 1/2 against each
other in every player count (the lone player wins 1/K of its games, its opponents' side (K-1)/K, and both
policies sit alone equally often).

The arms are played through :func:`experiments.study.run_arms` with the runner it is given, so chunks are shared
between its executor's processes, deduplicated, and kept in its store.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from boardlab.analysis import game_metrics, ratings
from boardlab.analysis.wording import pct
from boardlab.engines import core, get_game
from boardlab.engines.record import record_of
from boardlab.experiments import validate
from boardlab.experiments.output import provenance
from boardlab.experiments.run import Runner, RunResult, RunSpec, local_runner
from boardlab.experiments.run.spec import Knobs
from boardlab.experiments.spec import Arm, arm_chunk

ProgressFactory = Callable[[int], Any]

DEFAULT_GAMES = 2_000
"""Games per seating (``-n``): 4,000 games per pair at 2 players, win rates within about ±1.5 points. Sized for
``simulate ladder pantolino``: with the expert at 4, 16 and 64 (and win-optimal) each expert rung plays 9 pairs,
36,000 games; if the expert at budget B costs B heuristic games (Pantolino's heuristics: ~0.2 ms a game on a
core), that is 84 × 36,000 × 0.2 ms ≈ 10 core-minutes, so about 5 minutes on 2 cores; the heuristics alone take
seconds."""
SEARCH_SHARE = 10
"""Pairs with the expert play ``1/SEARCH_SHARE`` of ``-n`` per seating (default 200: 400 games a pair at 2 players,
win rates within about ±5 points): a game with an expert seat costs thousands of playouts."""
DEFAULT_BUDGETS = (4, 16, 64, 256)
EXPERT, ANCHOR = "expert", "random"


def default_budgets(game: str) -> tuple[int, ...]:
    """The expert's default search budgets for ``game``: its record's (:mod:`engines.record`), else ours."""
    budgets = record_of(get_game(game).module).ladder_budgets
    return DEFAULT_BUDGETS if budgets is None else budgets


def parse_budgets(text: str) -> tuple[int, ...]:
    """``"4,16,64"`` as distinct positive whole numbers, rising; anything else raises ``ValueError``."""
    items = validate.items(text, "--budgets")
    if not items:
        raise ValueError(f"--budgets {text!r} names no budget; write e.g. 4,16,64")
    budgets = []
    for item in items:
        if not (item.isascii() and item.isdigit()) or int(item) < 1:
            raise ValueError(f"--budgets: {item!r} is not a positive whole number; write e.g. 4,16,64")
        budgets.append(int(item))
    if len(set(budgets)) != len(budgets):
        raise ValueError(f"--budgets {text!r} repeats a budget")
    return tuple(sorted(budgets))


def is_heuristic(name: str, policy: core.Policy, exact: Sequence[str] = ()) -> bool:
    """A named heuristic: not random, not the expert, not one of the game's ``exact`` players, not a cheat."""
    return (
        name != ANCHOR
        and not name.startswith(EXPERT)
        and name not in exact
        and "cheat" not in policy.description.lower()
    )


def plays(module: Any, name: str, players: int, params: core.Params | None = None) -> str | None:
    """None if policy ``name`` plays ``players``-seat games of ``module`` at ``params``, else why not.

    One game is tried, at the game's defaults unless ``params`` is given.
    """
    seats = [name] + [ANCHOR] * (players - 1)
    try:
        module.play(module.Params() if params is None else params, seats, 1, np.random.default_rng(0))
    except Exception as err:  # a policy for other player counts refuses; say why, in one line
        return f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}".rstrip(": ")
    return None


def ladder_policies(
    module: Any, players: int, budgets: Sequence[int], probe: Callable[[Any, str, int], str | None] = plays
) -> tuple[list[str], list[str]]:
    """The policies of the ladder (``random`` first, then heuristics, win-optimal, expert by budget) and notes.

    The notes are one line each about what was left out (no expert, win-optimal not for this player count,
    cheating policies).
    """
    policies: Mapping[str, core.Policy] = module.POLICIES
    if ANCHOR not in policies:
        raise ValueError(f"{module.INFO.id} has no '{ANCHOR}' policy to anchor a ladder")
    exact = record_of(module).exact
    chosen = [ANCHOR] + [n for n, p in policies.items() if is_heuristic(n, p, exact)]
    notes = []
    cheats = [n for n, p in policies.items() if n not in chosen and "cheat" in p.description.lower()]
    if cheats:
        notes.append(f"left out (cheat): {', '.join(cheats)}")
    for name in [n for n in exact if n in policies]:
        reason = probe(module, name, players)
        if reason is None:
            chosen.append(name)
        else:
            notes.append(f"{name} left out: it does not play these {players}-player games ({reason})")
    if EXPERT in policies and budgets:
        chosen += [f"{EXPERT}:{b}" for b in budgets]
    elif EXPERT in policies:
        notes.append(f"no budgets given: no expert rungs (simulate ladder {module.INFO.id} --budgets 4,16 adds them)")
    else:
        notes.append(f"{module.INFO.id} has no '{EXPERT}' policy yet: no expert rungs")
    return chosen, notes


def seatings(a: str, b: str, players: int) -> list[tuple[str, ...]]:
    """Every seating of ``a`` alone among ``b`` and ``b`` alone among ``a`` (distinct tuples, in order)."""
    out: list[tuple[str, ...]] = []
    for lone, other in ((a, b), (b, a)):
        for seat in range(players):
            seats = [other] * players
            seats[seat] = lone
            if tuple(seats) not in out:
                out.append(tuple(seats))
    return out


def pair_points(seats: Sequence[str], a: str, result: RunResult) -> float:
    """Points of policy ``a`` in one seating: a game won by its player(s) is 1, a win shared with the other 1/2.

    The lone seat decides: its policy scores its sole wins and half its shared wins, the other policy the rest
    (every game of a competitive game has a winner).
    """
    s = result.summary
    lone = next(i for i, p in enumerate(seats) if seats.count(p) == 1)
    lone_points = float(s.wins[lone]) + 0.5 * float(s.shared_wins[lone])
    return lone_points if seats[lone] == a else s.n_games - lone_points


def searches(a: str, b: str) -> bool:
    """Whether either policy of a pair searches (the expert): such pairs play fewer games."""
    return a.startswith(EXPERT) or b.startswith(EXPERT)


def pair_games(a: str, b: str, n: int, share: int = SEARCH_SHARE) -> int:
    """Games per seating of a pair: ``n``, or ``n // share`` (at least 1) when one of them searches."""
    return max(1, n // share) if searches(a, b) else n


@dataclass(frozen=True)
class Shape:
    """How a ladder's arms are named and sized.

    ``label``: their label prefix; ``share``: a pair with a searching policy plays ``n // share`` games a seating.
    """

    label: str = "ladder"
    share: int = SEARCH_SHARE


PLAIN = Shape()  #: the ladder command's arms
NO_KNOBS = Knobs()  #: the rules as they stand


def ladder_arms(
    game: str,
    policies: Sequence[str],
    players: int,
    n: int,
    seed: int,
    chunk: int,
    shape: Shape = PLAIN,
    knobs: Knobs = NO_KNOBS,
) -> list[tuple[str, str, tuple[str, ...], Arm]]:
    """``(a, b, seats, arm)`` for every pair ``a`` before ``b`` in ``policies`` and each of its seatings.

    A pair with a searching policy plays ``n // shape.share`` games per seating, in chunks of at most the searching
    policy's own chunk size. Every arm plays ``knobs`` (a variant, if any, and the knobs set over it).
    """
    label, share, settings, variant = shape.label, shape.share, knobs.settings, knobs.variant
    module = get_game(game).module
    out = []
    for i, a in enumerate(policies):
        for b in policies[i + 1 :]:
            games = pair_games(a, b, n, share)
            for seats in seatings(a, b, players):
                size = min(chunk, games, core.default_chunk(module.INFO, module.POLICIES, seats))
                spec = RunSpec(game, seats, games, seed, settings, variant, size)
                out.append((a, b, seats, Arm(f"{label} {a} vs {b}: {','.join(seats)}", spec)))
    return out


def pairs_table(arms: Sequence[tuple[str, str, tuple[str, ...], Arm]], results: Mapping[str, RunResult]) -> Any:
    """One row per pair: ``policy``, ``opponent``, ``games``, ``points`` of ``policy`` (from results by arm label)."""
    import pandas as pd

    totals: dict[tuple[str, str], list[float]] = {}
    for a, b, seats, arm in arms:
        result = results[arm.label]
        entry = totals.setdefault((a, b), [0, 0.0])
        entry[0] += result.summary.n_games
        entry[1] += pair_points(seats, a, result)
    rows = [{"policy": a, "opponent": b, "games": g, "points": p} for (a, b), (g, p) in totals.items()]
    return pd.DataFrame(rows, columns=["policy", "opponent", "games", "points"])


@dataclass
class Ladder:
    """A played ladder: pairwise results, ratings, the skill chain and the luck share."""

    game: str
    players: int
    policies: list[str]
    pairs: Any  # policy, opponent, games, points, win_rate (+interval), weaker, weaker_win_rate (+interval)
    ratings: Any  # policy, rating, rating_lo, rating_hi (Elo vs random), theta, games, score
    chain: list[ratings.Link]
    luck: tuple[float, float, float]
    notes: list[str] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)  # n, seed, budgets, chunk: for ladder.json

    def chain_frame(self) -> Any:
        """The chain's links as a table, from the anchor up."""
        import pandas as pd

        return pd.DataFrame(
            [
                {"step": k + 1, "from": c.weaker, "to": c.stronger, "win_rate": c.rate, "win_lo": c.low,
                 "win_hi": c.high, "games": c.games}
                for k, c in enumerate(self.chain)
            ],
            columns=["step", "from", "to", "win_rate", "win_lo", "win_hi", "games"],
        )  # fmt: skip

    def chain_text(self) -> str:
        """``random → greedy (71.2% (69.8–72.6)) → …``."""
        if not self.chain:
            return f"{ratings_anchor(self.policies)} (no policy beats it by the margin)"
        steps = [self.chain[0].weaker]
        for c in self.chain:
            steps.append(f"{c.stronger} ({pct(c.rate, c.low, c.high)})")
        return " → ".join(steps)

    def luck_text(self) -> str:
        """The luck share with its interval, in words."""
        share, low, high = self.luck
        return f"the weaker policy of a pair wins {pct(share, low, high)} of games"

    def game_metrics(self) -> dict[str, Any]:
        """``skill_depth`` and ``luck_share`` under the game metrics' names (:mod:`analysis.game_metrics`)."""
        return game_metrics.from_ladder(self)

    def strongest(self) -> tuple[str, str | None]:
        """The top rung by measured rating, and the runner-up its interval does not clear (None: it clears it).

        The top is whichever policy rates highest, whatever its kind or search budget.
        """
        rated = self.ratings.sort_values("rating", ascending=False)
        top = rated.iloc[0]
        if len(rated) < 2:
            return str(top["policy"]), None
        second = rated.iloc[1]
        return str(top["policy"]), None if top["rating_lo"] > second["rating_hi"] else str(second["policy"])

    def strongest_text(self) -> str:
        """``strongest: learned (its rating's interval clears expert:512's)``, or that none is detectably so."""
        top, tied = self.strongest()
        if tied is None:
            return f"strongest: {top} (rated highest, its interval clear of every other)"
        return f"strongest: none detectably; {top} rates highest, its interval overlapping {tied}'s"

    def lines(self) -> list[str]:
        """The summary a reader needs: the strongest, chain length and links, luck share, notes."""
        return [
            self.strongest_text(),
            f"skill chain: {len(self.chain)} link(s) (win rate ≥ {ratings.CHAIN_MIN_RATE:.2f} with the 95% lower "
            f"bound above {ratings.CHAIN_LOWER_ABOVE:.2f}): {self.chain_text()}",
            f"luck share: {self.luck_text()}",
            *self.notes,
        ]

    def save(self, folder: Path) -> list[Path]:
        """Write ratings, pairs and chain (CSV and Parquet), ``ladder.json`` and ``ladder.png`` into ``folder``.

        The new files replace the old set together, ``ladder.json`` last.
        """
        import json

        import matplotlib.pyplot as plt

        from boardlab.analysis import plots
        from boardlab.analysis.files import replacing_together
        from boardlab.analysis.tables import json_ready

        names = []
        with replacing_together(folder, last="ladder.json") as stage:
            for name, frame in (("ratings", self.ratings), ("pairs", self.pairs), ("chain", self.chain_frame())):
                (stage / f"{name}.csv").write_bytes(frame.to_csv(index=False).encode())
                frame.to_parquet(stage / f"{name}.parquet", index=False)
                names += [f"{name}.csv", f"{name}.parquet"]
            record = {
                "game": self.game,
                "players": self.players,
                "policies": self.policies,
                **self.settings,
                "chain": [asdict(c) for c in self.chain],
                "luck_share": dict(zip(("share", "low", "high"), self.luck, strict=True)),
                "chain_margin": {"min_rate": ratings.CHAIN_MIN_RATE, "lower_bound_above": ratings.CHAIN_LOWER_ABOVE},
                "notes": self.notes,
                "game_metrics": game_metrics.as_json(self.game_metrics()),
            }
            fig = plots.rating_intervals(
                self.ratings, "policy", self.chain_members(), xlabel="rating (Elo points; filled: on the skill chain)"
            )
            fig.axes[0].set_title(f"{self.game}, {self.players} players: ratings vs random (95% bootstrap intervals)")
            fig.savefig(stage / "ladder.png", dpi=110)
            plt.close(fig)
            (stage / "ladder.json").write_bytes(json.dumps(json_ready(record), indent=1).encode())
        return [*(folder / name for name in names), folder / "ladder.json", folder / "ladder.png"]

    def chain_members(self) -> list[str]:
        """The policies on the skill chain, from the anchor up."""
        return [self.chain[0].weaker, *(c.stronger for c in self.chain)] if self.chain else []


def ratings_anchor(policies: Sequence[str]) -> str:
    """The policy ratings are measured from: ``random`` if present, else the first."""
    return ANCHOR if ANCHOR in policies else policies[0]


def analyse(
    game: str,
    players: int,
    policies: Sequence[str],
    pairs: Any,
    notes: Sequence[str] = (),
    settings: Mapping[str, Any] | None = None,
) -> Ladder:
    """Ratings, skill chain and luck share of a table of pairwise results."""
    anchor = ratings_anchor(policies)
    rated = ratings.fit_ratings(pairs, policies, anchor)
    strength = dict(zip(rated["policy"], rated["rating"], strict=True))
    chain = ratings.skill_chain(pairs, anchor, strength)
    per_pair, luck = ratings.luck_share(pairs, strength)
    return Ladder(game, players, list(policies), per_pair, rated, chain, luck, list(notes), dict(settings or {}))


def check_game(game: str, players: int | None) -> tuple[Any, int]:
    """The game module and the player count, or ``ValueError`` (unknown game, cooperative, count out of range)."""
    module = get_game(validate.text(game, "game")).module
    if module.INFO.cooperative:
        raise ValueError(f"{game} is cooperative: the table wins together, so there is no ladder of policies")
    players = players if players is not None else max(module.INFO.min_players, 2)
    core.check_players(module.INFO, players)
    if players < 2:
        raise ValueError(f"a ladder needs at least 2 players (got {players})")
    return module, players


@dataclass(frozen=True)
class LadderPlan:
    """A ladder's arms, checked before anything is played."""

    game: str
    players: int
    policies: tuple[str, ...]
    arms: tuple[tuple[str, str, tuple[str, ...], Arm], ...]  # as :func:`ladder_arms` gives them
    notes: tuple[str, ...]
    settings: dict[str, Any]


def plan_ladder(
    game: str,
    players: int | None = None,
    n_games: int = DEFAULT_GAMES,
    budgets: Sequence[int] | None = None,
    seed: int = 0,
    policies: Sequence[str] | None = None,
    settings: tuple[tuple[str, str], ...] = (),
    variant: str | None = None,
) -> LadderPlan:
    """The ladder of ``game``: ``n_games`` per seating; ``policies`` overrides the discovery.

    Every game plays ``variant`` (if any) with the knobs of ``settings``. Refused before any arm is built: fewer
    than two policies, one named twice, more arms than a command may play, a knob or variant the game refuses.
    """
    module, players = check_game(game, players)
    params = RunSpec(game, (ANCHOR,) * players, 1, 0, settings, variant, 1).params  # the knobs, checked
    budgets = default_budgets(game) if budgets is None else tuple(budgets)
    notes: list[str] = []
    if policies is None:
        policies, notes = ladder_policies(module, players, budgets, lambda m, name, k: plays(m, name, k, params))
    policies = list(validate.names(policies, "policies"))
    if len(set(policies)) < 2 or len(set(policies)) != len(policies):
        raise ValueError(f"a ladder needs at least two distinct policies (got {', '.join(policies)})")
    validate.check_arms(len(policies) * (len(policies) - 1) * players, "the ladder")
    core.resolve_policies(module.POLICIES, policies)
    chunk = arm_chunk(module.INFO, n_games)
    arms = ladder_arms(game, policies, players, n_games, seed, chunk, knobs=Knobs(settings, variant))
    validate.check_sizes(((a.spec.n_games, len(a.spec.chunks())) for *_, a in arms), "the ladder")
    record = {**provenance(arms[0][3].spec), "games_per_seating": n_games, "budgets": list(budgets)}
    record |= {"chunk_size": chunk, "variant": variant, "knobs": dict(settings)}  # a searching pair's: may be less
    return LadderPlan(game, players, tuple(policies), tuple(arms), tuple(notes), record)


def play_ladder(plan: LadderPlan, runner: Runner | None = None, progress: ProgressFactory | None = None) -> Ladder:
    """Play a planned ladder and rate it."""
    from boardlab.experiments.study import run_arms

    to_play = [arm for *_, arm in plan.arms]
    if progress is None:
        played = run_arms(to_play, runner or local_runner())
    else:
        with progress(sum(a.spec.n_games for a in to_play)) as bar:
            played = run_arms(to_play, runner or local_runner(), progress=bar.advance)
    results = {arm.label: r for (*_, arm), r in zip(plan.arms, played.results, strict=True)}
    pairs = pairs_table(plan.arms, results)
    return analyse(plan.game, plan.players, plan.policies, pairs, plan.notes, plan.settings)
