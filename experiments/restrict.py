"""What each choice is worth (restricted play), and whether a simple policy plays as well as the strong one.

``simulate restrict GAME`` answers the designer's "Shouldn't I always do X? Why would anyone pick this option?"
the way Jaffe et al. (2012, "Evaluating competitive game balance with restricted play") do: the game's strong
player (default ``learned``) plays under each restriction the game declares (its record's ``restrictions``, see
:mod:`engines.restrict`), alone against unrestricted strong players, sitting in every seat in turn. Every seating
plays ``n`` games from the same chunk seeds (common random numbers, as in a ladder or tournament).

**Cost.** A policy's *share* is its player's share of the wins (a win shared by ``k`` counts ``1/k``), averaged over
the seats it sat in; its *cost* is the fair share ``1/K`` less that share, in points of win share, with a 95%
normal interval from the games' shares. Among ``K`` unrestricted strong players the seat-averaged share is exactly
``1/K`` in every game (the seats' shares sum to one), so the fair share carries no noise and no pairing could
narrow the interval. A restriction whose interval contains 0 is reported as a choice strong players never need;
one whose interval lies below 0 as one the strong player is better off without (it misuses it).

**Cooperative games** (the table wins or loses together) have no share of the wins to give up: there a restriction
holds for the whole table. Every seat plays the restricted strong player (a heuristic: every seat plays it), and
the table's win rate is set against that of the unrestricted strong table, played on the same games: the *cost* is
the unrestricted table's win rate less the restricted one's, with Newcombe's interval for the difference of two
proportions (valid, and conservative under common random numbers, which only narrow the true spread).

**Dominant strategy** (the issue's item 2). The named heuristics (every policy of the game that is not the
expert, ``win-optimal``, a cheat, or a policy that takes restrictions) play in the same run, each alone against the
strong players. The *simplest* policy within :data:`WITHIN` of strong play (cost at most 2 points, estimate) is
reported, or that none is, with the closest and its gap. Simplest (ours): ``random`` first, then the heuristics in
the order the game lists them, then the restricted strong players in the order the game declares its restrictions
(its judgement of how much of the game each removes, most first): a heuristic is a fixed rule, a restricted strong
player still needs the strong player's judgement for everything the restriction leaves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardlab.analysis import stats
from boardlab.analysis.game_metrics import POINTS, PREFIX
from boardlab.analysis.names import display as worded
from boardlab.analysis.wording import pct, points
from boardlab.engines import core, get_game
from boardlab.engines.record import record_of
from boardlab.engines.restrict import MARK, default_strong, name_of
from boardlab.experiments import validate
from boardlab.experiments.ladder import ANCHOR, is_heuristic
from boardlab.experiments.run import Runner, RunResult, RunSpec, local_runner
from boardlab.experiments.run.result import package_versions
from boardlab.experiments.run.spec import Knobs
from boardlab.experiments.spec import Arm, arm_chunk

ProgressFactory = Callable[[int], Any]

DEFAULT_GAMES = 10_000
"""Games per seating (``-n``, ours): 20,000 games per policy at 2 players, a cost within about ±0.7 points. With
Pantolino's four restrictions and five named policies that is 180,000 games of ``learned``: minutes on 2 cores."""
WITHIN = 0.02
"""A policy within this much win share of strong play (2 points, the issue's margin) plays as well as it."""
STRONG = "learned"
LABEL = "restrict"


@dataclass(frozen=True)
class Shape:
    """Which arms a restricted play has, and how they are named and cut.

    ``with_heuristics``: the named heuristics beside the restrictions; ``label``: the arms' label prefix;
    ``chunk``: the games per chunk of every arm (default: :func:`~experiments.spec.arm_chunk`'s).
    """

    with_heuristics: bool = True
    label: str = LABEL
    chunk: int | None = None


@dataclass(frozen=True)
class Entry:
    """A policy played against the strong players: a restricted strong player or a named heuristic."""

    policy: str  # the seat's policy name (``learned!never-steal``, ``greedy``)
    kind: str  # "restriction" or "heuristic"
    restriction: str  # the restriction's name ("" for a heuristic)
    does: str  # what its player does, completing "a player who …" (a heuristic: "plays <name>")


@dataclass(frozen=True)
class RestrictPlan:
    """A restricted-play run's arms, checked before anything is played."""

    game: str
    players: int
    strong: str
    entries: tuple[Entry, ...]
    arms: tuple[tuple[str, Arm], ...]  # (entry policy, arm): the entry alone in each seat (cooperative: its table)
    skipped: tuple[str, ...]  # restrictions that remove nothing under these knobs, with why
    settings: dict[str, Any] = field(default_factory=dict)
    cooperative: bool = False  # whole tables, against the unrestricted strong table (its arm comes first)


def arm_label(policy: str, seats: Sequence[str], label: str = LABEL) -> str:
    """The label of the arm in which ``policy`` sits among ``seats``."""
    return f"{label} {policy}: {','.join(seats)}"


def check_game(game: str, players: int | None) -> tuple[Any, int]:
    """The game module and the player count, or ``ValueError`` (unknown game, none declared, too few players).

    A competitive game needs 2 players (a share of the wins to give up); a cooperative one plays any table.
    """
    module = get_game(validate.text(game, "game")).module
    if not record_of(module).restrictions:
        raise ValueError(f"{game} declares no restrictions (its record's restrictions are empty)")
    players = players if players is not None else max(module.INFO.min_players, 2)
    core.check_players(module.INFO, players)
    if players < 2 and not module.INFO.cooperative:
        raise ValueError(f"restricted play needs at least 2 players (got {players})")
    return module, players


def chosen_restrictions(module: Any, names: Sequence[str] | None) -> list[str]:
    """The restrictions asked for (None or ``["all"]``: every one declared), in the game's order."""
    declared = record_of(module).restrictions
    if names is None:
        return list(declared)
    names = validate.names(names, "restrictions")
    if names == ("all",):
        return list(declared)
    for name in names:
        if name not in declared:
            raise ValueError(
                f"unknown restriction '{name}' for {module.INFO.id}{core.did_you_mean(name, list(declared))}"
            )
    if len(set(names)) != len(names):
        raise ValueError(f"--restrictions names a restriction twice ({', '.join(names)})")
    return [n for n in declared if n in names]


def heuristics(module: Any) -> list[str]:
    """``random`` (if the game has it), then the named heuristics in the order the game lists them."""
    policies = module.POLICIES
    exact = record_of(module).exact
    named = [n for n, p in policies.items() if is_heuristic(n, p, exact) and p.restrict is None]
    return ([ANCHOR] if ANCHOR in policies else []) + named


def seatings(policy: str, strong: str, players: int, cooperative: bool = False) -> list[tuple[str, ...]]:
    """``policy`` alone among strong players, in every seat; cooperative: the whole table plays ``policy``."""
    if cooperative:
        return [(policy,) * players]
    return [tuple(policy if s == seat else strong for s in range(players)) for seat in range(players)]


NO_KNOBS = Knobs()  #: the rules as they stand
PLAIN = Shape()  #: restrictions and heuristics, the command's labels and chunks


def plan_restrict(
    game: str,
    restrictions: Sequence[str] | None = None,
    players: int | None = None,
    n_games: int = DEFAULT_GAMES,
    seed: int = 0,
    strong: str | None = None,
    knobs: Knobs = NO_KNOBS,
    shape: Shape = PLAIN,
) -> RestrictPlan:
    """Every restriction's (and, with ``shape.with_heuristics``, every named heuristic's) arms against ``strong``.

    ``knobs``: the variant and knobs every arm plays; ``shape``: the arms' label prefix and games per chunk
    (default: :func:`~experiments.spec.arm_chunk`'s). Refused before any arm is built (``ValueError``, one
    line): an unknown game, restriction or policy, a strong policy that takes no restriction, a restriction named
    twice, nothing left to play, too many arms or games.
    """
    module, players = check_game(game, players)
    settings, variant, label, chunk = knobs.settings, knobs.variant, shape.label, shape.chunk
    names = chosen_restrictions(module, restrictions)
    strong = default_strong(module.POLICIES) if strong is None else validate.text(strong, "strong")
    if MARK in strong:
        raise ValueError(f"--strong {strong!r} must be an unrestricted policy (restrictions are what is measured)")
    (policy,) = core.resolve_policies(module.POLICIES, [strong])
    if policy.restrict is None:
        raise ValueError(f"policy '{strong}' takes no restriction; --strong must be one that does (e.g. {STRONG})")
    validate.whole(n_games, "n_games", 1)
    probe = RunSpec(game, (strong,) * players, 1, seed, settings, variant)  # checks knobs, variant, the strong seat
    params = probe.params
    declared = record_of(module).restrictions
    kept = [n for n in names if declared[n].applies(params)]
    skipped = tuple(
        f"{n}: removes nothing under these rules{f' (it needs {declared[n].needs})' if declared[n].needs else ''}"
        for n in names
        if n not in kept
    )
    if not kept:
        raise ValueError(f"nothing to play: {'; '.join(skipped)}")
    entries = [Entry(name_of(strong, (n,)), "restriction", n, declared[n].does) for n in kept]
    if shape.with_heuristics:
        entries += [Entry(h, "heuristic", "", f"plays {h}") for h in heuristics(module)]
    cooperative = module.INFO.cooperative
    played = [(strong, (strong,) * players)] if cooperative else []  # the unrestricted table: the yardstick
    played += [(e.policy, seats) for e in entries for seats in seatings(e.policy, strong, players, cooperative)]
    validate.check_arms(len(played), "the restricted play")
    caps = [core.default_chunk(module.INFO, module.POLICIES, seats) for _, seats in played]
    chunk = min([arm_chunk(module.INFO, n_games) if chunk is None else min(chunk, n_games), *caps])
    arms = tuple(
        (policy, Arm(arm_label(policy, seats, label), RunSpec(game, seats, n_games, seed, settings, variant, chunk)))
        for policy, seats in played
    )
    validate.check_sizes(((a.spec.n_games, len(a.spec.chunks())) for _, a in arms), "the restricted play")
    record = {
        "games_per_seating": n_games,
        "seed": seed,
        "strong": strong,
        "players": players,
        "chunk_size": chunk,
        "settings": dict(settings),
        "variant": variant,
        "restrictions": names,
    }
    return RestrictPlan(game, players, strong, tuple(entries), arms, skipped, record, cooperative)


def table_wins(results: Sequence[RunResult]) -> tuple[int, int]:
    """A cooperative table's wins and games over ``results`` (seat 0 wins and loses with the table)."""
    wins = sum(int(r.summary.wins[0] + r.summary.shared_wins[0]) for r in results)
    return wins, sum(r.summary.n_games for r in results)


def share_of(policy: str, results: Sequence[RunResult], arms: Sequence[Arm]) -> tuple[float, float, float, int]:
    """``policy``'s seat-averaged share of the wins over its arms (one seat each): ``(share, low, high, games)``."""
    total = total_sq = 0.0
    games = 0
    for arm, result in zip(arms, results, strict=True):
        seat = arm.spec.seats.index(policy)
        total += float(result.summary.sums[PREFIX + "points"][seat])
        total_sq += float(result.summary.squares[PREFIX + "points"][seat])
        games += result.summary.n_games
    mean, low, high = stats.mean_interval(total / POINTS, total_sq / POINTS**2, games)
    return float(mean), float(low), float(high), games


@dataclass
class Choices:
    """A played restricted-play run: each policy's share and cost, ranked, and the dominant-strategy answer."""

    game: str
    players: int
    strong: str
    table: Any  # policy, kind, restriction, does, games, share(+lo/hi), cost(+lo/hi), verdict; ranked
    skipped: list[str]
    settings: dict[str, Any]
    baseline: tuple[float, float, float] | None = None  # cooperative: the strong table's win rate and interval

    @property
    def fair(self) -> float:
        """What the cost is measured from: the fair share of one seat; cooperative: the strong table's win rate."""
        return self.baseline[0] if self.baseline is not None else 1 / self.players

    @property
    def unit(self) -> str:
        """What a cost is counted in."""
        return "win share" if self.baseline is None else "table win rate"

    @property
    def yardstick(self) -> str:
        """What the costs are measured from, in words: the fair share, or the unrestricted table's win rate."""
        if self.baseline is None:
            return f"fair share {100 * self.fair:.1f}%"
        return f"the unrestricted {self.strong} table wins {100 * self.fair:.1f}%"

    @property
    def who(self) -> str:
        """Who plays a row's policy, completed by its ``does``: one player, or (cooperative) the whole table."""
        return "a player who" if self.baseline is None else "a table where every player"

    def restrictions(self) -> Any:
        """The restrictions' rows, costliest first."""
        return self.table[self.table["kind"] == "restriction"]

    def findings(self) -> list[str]:
        """One sentence per restriction, costliest first, in plain words."""
        return [finding(row, self.unit, self.who) for row in self.restrictions().to_dict(orient="records")]

    def dominant(self) -> dict[str, Any]:
        """The simplest policy within :data:`WITHIN` of strong play, or None with the closest and its gap."""
        rows = self.table.sort_values("simplicity").to_dict(orient="records")
        within = [r for r in rows if r["cost"] <= WITHIN]
        closest = min(rows, key=lambda r: r["cost"])
        chosen = within[0] if within else None
        return {"policy": chosen["policy"] if chosen else None, "row": chosen, "closest": closest, "within": WITHIN}

    def dominant_text(self) -> str:
        """The dominant-strategy answer in a sentence."""
        found = self.dominant()
        row, closest = found["row"], found["closest"]
        margin = f"{100 * WITHIN:.0f} points"
        if row is not None:
            return (
                f"Yes: the simplest policy within {margin} of {self.strong} is {row['policy']} ({self.who} "
                f"{row['does']}), {gap_words(row, self.unit)}{unsure(row)}."
            )
        return (
            f"No: no named policy or restricted {self.strong} comes within {margin} of {self.strong}; the closest is "
            f"{closest['policy']} ({self.who} {closest['does']}), {gap_words(closest, self.unit)}."
        )

    def reading(self) -> list[str]:
        """How to read a cooperative run's costs (nothing for a competitive one)."""
        if self.baseline is None:
            return []
        return [
            f"Cooperative: each row is a whole table playing that policy; its cost is the unrestricted {self.strong} "
            f"table's win rate ({pct(*self.baseline)}) less that table's, on the same games."
        ]

    def lines(self) -> list[str]:
        """What a reader needs below the table: the findings, the dominant-strategy answer, what was skipped."""
        return [
            *self.reading(),
            *self.findings(),
            self.dominant_text(),
            *(f"not played: {s}" for s in self.skipped),
        ]

    def as_json(self) -> dict[str, Any]:
        """The run as one JSON-friendly object."""
        return {
            "game": self.game,
            "players": self.players,
            "strong": self.strong,
            "fair_share": self.fair,
            "cooperative": self.baseline is not None,
            "strong_table_win_rate": None if self.baseline is None else list(self.baseline),
            "policies": self.table.to_dict(orient="records"),
            "findings": self.findings(),
            "dominant": {k: v for k, v in self.dominant().items() if k != "row"},
            "dominant_text": self.dominant_text(),
            "skipped": self.skipped,
            **self.settings,
        }

    def display(self) -> Any:
        """The table as a reader sees it: worded headers, each value with its interval written ``value (low–high)``."""
        import pandas as pd

        rows = self.table.to_dict(orient="records")
        return pd.DataFrame(
            {
                "policy": [worded(r["policy"]) for r in rows],
                "its player": [r["does"] for r in rows],
                "games": [f"{r['games']:,}" for r in rows],
                f"{self.unit} (95% interval)": [describe_share(r) for r in rows],
                "cost in points (95% interval)": [points(r["cost"], r["cost_lo"], r["cost_hi"]) for r in rows],
                "verdict": [r["verdict"] for r in rows],
            }
        )

    def title(self) -> str:
        """The displayed table's title: what the costs are of, measured from what, in which order."""
        return (
            f"{get_game(self.game).module.INFO.name}, {self.players} players: what each restriction of {self.strong} "
            f"costs in points of {self.unit} ({self.yardstick}), costliest first, then the named policies"
        )

    def save(self, folder: Path) -> list[Path]:
        """Write ``choices.csv``, ``choices.parquet`` and ``run.json`` into ``folder``; the set is replaced whole."""
        import json
        import sys

        from boardlab.analysis.files import replacing_together
        from boardlab.analysis.tables import json_ready

        with replacing_together(folder, last="run.json") as stage:
            (stage / "choices.csv").write_bytes(self.table.to_csv(index=False).encode())
            self.table.to_parquet(stage / "choices.parquet", index=False)
            record = {"command": " ".join(sys.argv), **self.as_json()}
            record |= {"game_version": get_game(self.game).module.INFO.version, "versions": package_versions()}
            (stage / "run.json").write_bytes(json.dumps(json_ready(record), indent=1).encode())
        return [folder / "choices.csv", folder / "choices.parquet", folder / "run.json"]


def verdict(cost: float, low: float, high: float) -> str:
    """``costs``, ``never needed`` (interval contains 0) or ``better without`` (the whole interval below 0)."""
    if low > 0:
        return "costs"
    return "better without" if high < 0 else "never needed"


def gap_words(row: dict[str, Any], unit: str = "win share") -> str:
    """``"behind strong play by +1.2 points of win share (95% interval +0.5 to +1.9)"``."""
    cost, low, high = (100 * row[k] for k in ("cost", "cost_lo", "cost_hi"))
    return f"behind strong play by {cost:+.1f} points of {unit} (95% interval {low:+.1f} to {high:+.1f})"


def unsure(row: dict[str, Any]) -> str:
    """Nothing when a row's whole 95% interval of cost is within :data:`WITHIN`; else a clause saying so."""
    if row["cost_hi"] <= WITHIN:
        return ""
    return (
        f"; only its estimate is within {100 * WITHIN:.0f} points (its interval reaches {100 * row['cost_hi']:+.1f}), "
        "so more games could change this answer"
    )


def finding(row: dict[str, Any], unit: str = "win share", who: str = "a player who") -> str:
    """A restriction's cost in plain words (``unit``: what it is counted in; ``who``: who gives the choice up)."""
    cost, low, high = (100 * row[k] for k in ("cost", "cost_lo", "cost_hi"))
    span = f"95% interval {low:+.1f} to {high:+.1f} points"
    subject = f"{who[0].upper()}{who[1:]} {row['does']}"
    if row["verdict"] == "costs":
        return f"{subject} loses {cost:.1f} points of {unit} ({span})."
    if row["verdict"] == "better without":
        return (
            f"{subject} gains {-cost:.1f} points of {unit} ({span}): the strong player is better "
            "off without this choice."
        )
    return f"{subject} loses nothing measurable ({span}): the choice it gives up is one strong players never need."


Groups = dict[str, tuple[list[Arm], list[RunResult]]]
"""A played plan's arms and results by the policy they measure."""


def grouped(plan: RestrictPlan, results: Sequence[RunResult]) -> Groups:
    """The arms and results of each policy of ``plan`` (results in the order of its arms)."""
    groups: Groups = {}
    for (policy, arm), result in zip(plan.arms, results, strict=True):
        arms, played = groups.setdefault(policy, ([], []))
        arms.append(arm)
        played.append(result)
    return groups


def table_rate(results: Sequence[RunResult]) -> tuple[float, float, float, int]:
    """A cooperative table's win rate over ``results``: ``(rate, low, high, games)``, Wilson's 95% interval."""
    wins, games = table_wins(results)
    low, high = stats.wilson(wins, games)
    return wins / games, float(low), float(high), games


def measured(plan: RestrictPlan, entry: Entry, groups: Groups) -> dict[str, Any]:
    """An entry's share (cooperative: its table's win rate) and cost, each with its 95% interval."""
    arms, played = groups[entry.policy]
    if not plan.cooperative:
        share, low, high, games = share_of(entry.policy, played, arms)
        fair = 1 / plan.players
        cost, cost_lo, cost_hi = fair - share, fair - high, fair - low
    else:
        share, low, high, games = table_rate(played)
        diff = stats.proportion_difference(*table_wins(groups[plan.strong][1]), *table_wins(played))
        cost, cost_lo, cost_hi = (float(diff[k]) for k in ("difference", "low", "high"))
    return {
        "games": games,
        "share": share,
        "share_lo": low,
        "share_hi": high,
        "cost": cost,
        "cost_lo": cost_lo,
        "cost_hi": cost_hi,
    }


def tabulate(plan: RestrictPlan, results: Sequence[RunResult]) -> Any:
    """One row per entry: share and cost with intervals, a verdict, and its simplicity rank; ranked by cost."""
    import pandas as pd

    groups = grouped(plan, results)
    heuristic_rows = [e for e in plan.entries if e.kind == "heuristic"]
    simplicity = {
        e.policy: k for k, e in enumerate([*heuristic_rows, *(e for e in plan.entries if e.kind != "heuristic")])
    }
    rows = []
    for entry in plan.entries:
        values = measured(plan, entry, groups)
        rows.append(
            {
                "policy": entry.policy,
                "kind": entry.kind,
                "restriction": entry.restriction,
                "does": entry.does,
                **values,
                "verdict": verdict(values["cost"], values["cost_lo"], values["cost_hi"]),
                "simplicity": simplicity[entry.policy],
            }
        )
    frame = pd.DataFrame(rows)
    order = frame.assign(restricted=frame["kind"] != "restriction").sort_values(
        ["restricted", "cost", "policy"], ascending=[True, False, True], kind="stable"
    )
    return order.drop(columns="restricted").reset_index(drop=True)


def analyse(plan: RestrictPlan, results: Sequence[RunResult]) -> Choices:
    """The ranked table and answers of a played plan (results in the order of its arms)."""
    baseline = table_rate(grouped(plan, results)[plan.strong][1])[:3] if plan.cooperative else None
    table = tabulate(plan, results)
    return Choices(plan.game, plan.players, plan.strong, table, list(plan.skipped), plan.settings, baseline)


def play_restrict(plan: RestrictPlan, runner: Runner | None = None, progress: ProgressFactory | None = None) -> Choices:
    """Play a planned run through the run loop (``runner``: store and executor) and rank what it measured."""
    from boardlab.experiments.study import run_arms

    arms = [arm for _, arm in plan.arms]
    if progress is None:
        played = run_arms(arms, runner or local_runner())
    else:
        with progress(sum(a.spec.n_games for a in arms)) as bar:
            played = run_arms(arms, runner or local_runner(), progress=bar.advance)
    return analyse(plan, played.results)


def describe_share(row: dict[str, Any]) -> str:
    """A row's share of the wins with its interval, as a page writes it."""
    return pct(row["share"], row["share_lo"], row["share_hi"])
