"""The "Which choices matter?" and "Is there a dominant strategy?" questions (``choices.questions``).

They share their arms (:func:`add_arms`). The pages are the game's restricted play (:mod:`experiments.restrict`) at 2
players: the strong player (``learned``) under each restriction the game declares, and each named heuristic, alone
against unrestricted strong players in both seats, 1/:data:`SHARE` of the chapter's games per seating, from the
chapter's seed and chunks (a heuristic's arms are then the chapter's own head-to-head games where it has them).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pandas as pd

from boardlab.analysis import plots
from boardlab.analysis.book import Page
from boardlab.engines import get_game
from boardlab.engines.record import record_of
from boardlab.experiments import restrict as rp
from boardlab.experiments.chapters import crossplay
from boardlab.experiments.chapters.common import Plan, Question
from boardlab.experiments.run import RunResult

SHARE = 2  # 10,000 games per seating in a default (20,000-game) report: a cost within about ±0.7 points
PLAYERS = 2
LABEL = "choices"
CROSS = "cross choices"
CROSS_SHARE = 2  # the second strong player's restrictions: 250 games per seating in a default report (±4 points)


def restrict_plan(
    game: str, n: int, seed: int, chunk: int, share: int = SHARE, strong: str | None = None
) -> rp.RestrictPlan:
    """The restricted play the pages read (labels depend only on the game's restrictions and policies).

    ``strong``: the strong player as the chapter spells it (default: the game's, ``learned`` else the expert).
    """
    games = max(1, n // share)
    return rp.plan_restrict(
        game, None, PLAYERS, games, seed, strong, shape=rp.Shape(label=LABEL, chunk=min(chunk, games))
    )


def cross_plan(game: str, n: int, seed: int, chunk: int, share: int = SHARE) -> rp.RestrictPlan | None:
    """The restrictions again under the second strong player (cross-play), on fewer games; None without one.

    Each seating plays ``n // share // (crossplay.share(game) * CROSS_SHARE)`` games (at least 2); a game whose
    expert is slow even at its report budget (Panots) is not checked (its page says so).
    """
    other = crossplay.second(game)
    module = get_game(game).module
    slow = crossplay.share(game) != crossplay.SHARE  # a game whose expert is slow at any budget: not checked
    if other is None or slow or module.INFO.cooperative or not record_of(module).restrictions:
        return None
    games = max(2, n // share // (crossplay.share(game) * CROSS_SHARE))
    cap = module.POLICIES[other.split(":")[0]].chunk_games or chunk
    return rp.plan_restrict(game, None, PLAYERS, games, seed, other, shape=rp.Shape(False, CROSS, min(chunk, cap)))


def add_arms(
    plan: Plan, n: int, seed: int, chunk: int, planned: rp.RestrictPlan, cross: rp.RestrictPlan | None = None
) -> None:
    """Add the restricted play's arms (``planned``, sized when the questions were made) to a chapter's plan."""
    for _, arm in [*planned.arms, *(cross.arms if cross else ())]:
        plan.add(arm.label, arm.spec.seats, arm.spec.n_games, seed, arm.spec.chunk_size)


def questions(
    game: str, n: int, seed: int, chunk: int, share: int = SHARE, strong: str | None = None
) -> list[Question]:
    """The two questions of restricted play sized by a chapter's ``n``, ``seed`` and ``chunk``; one set of arms.

    Each seating plays ``n // share`` games (a slow game's chapter may play fewer); ``strong`` as in
    :func:`restrict_plan`.
    """
    planned = restrict_plan(game, n, seed, chunk, share, strong)
    cross = cross_plan(game, n, seed, chunk, share)
    arms = partial(add_arms, planned=planned, cross=cross)
    return [
        Question(LABEL, arms, partial(choices_page, plan=planned, cross=cross)),
        Question(f"{LABEL}: dominant strategy", arms, partial(dominant_page, plan=planned, cross=cross)),
    ]


def played(results: dict[str, RunResult], plan: rp.RestrictPlan) -> rp.Choices:
    """The restricted play's analysis from the chapter's results."""
    return rp.analyse(plan, [results[arm.label] for _, arm in plan.arms])


def second_costs(results: dict[str, RunResult], cross: rp.RestrictPlan | None) -> dict[str, crossplay.Figure]:
    """Each restriction's cost under the second strong player (cross-play), by restriction name; {} without one."""
    if cross is None:
        return {}
    analysed = rp.analyse(cross, [results[arm.label] for _, arm in cross.arms])
    return {
        r["restriction"]: crossplay.Figure(f"under {cross.strong}", r["cost"], r["cost_lo"], r["cost_hi"], r["games"])
        for r in analysed.table.to_dict(orient="records")
    }


def _points(*v: float) -> str:
    return f"{100 * v[0]:+.1f} ({100 * v[1]:+.1f} to {100 * v[2]:+.1f}) points"


def checked_finding(row: dict[str, Any], second: crossplay.Figure | None, result: rp.Choices) -> str:
    """A restriction's finding, checked under the second strong player.

    The first player's verdict stands where the second gives the same verdict and the costs agree; a restriction
    both find costly but by different amounts says so; otherwise the finding depends on who plays (no fact).
    """
    base = rp.finding(row, result.unit, result.who)
    if second is None:
        return f"{base[:-1]}; not checked under a second strong player."
    first = crossplay.Figure(f"under {result.strong}", row["cost"], row["cost_lo"], row["cost_hi"])
    shown = crossplay.both([first, second], _points)
    other = rp.verdict(second.value, second.low, second.high)
    if other == row["verdict"] and crossplay.agree(first, second):
        return f"{base[:-1]}; holds under both strong players (cost {shown})."
    if other == row["verdict"] == "costs":
        return f"{base[:-1]}; it costs under both strong players, by different amounts ({shown})."
    subject = f"{result.who[0].upper()}{result.who[1:]} {row['does']}"
    return f"What {subject[0].lower()}{subject[1:]} gives up depends on who plays: cost {shown}."


def follows(row: dict[str, Any], result: rp.Choices) -> str:
    """A policy a person can follow, in words: a named rule of thumb, or a restriction stated as a rule."""
    if row["kind"] == "heuristic":
        return f"the rule of thumb '{row['policy']}'"
    return f"playing as {result.who} {row['does']} (strong play for every other choice)"


def dominant_text(result: rp.Choices, seconds: dict[str, crossplay.Figure]) -> str:
    """The dominant-strategy answer: only strategies a person can follow, and how the answer was checked."""
    found = result.dominant()
    row, closest = found["row"], found["closest"]
    margin = f"{100 * rp.WITHIN:.0f} points"
    strong = result.strong
    other = next(iter(seconds.values())).who.removeprefix("under ") if seconds else None
    how = f"checked against {strong}" + (
        f"; each rule also against {other}, a rule of thumb against {strong} only" if other else ""
    )
    if row is None:
        return (
            f"No: no rule of thumb, and no single rule added to strong play, comes within {margin} of {strong}; "
            f"the closest is {follows(closest, result)}, {rp.gap_words(closest, result.unit)} ({how})."
        )
    answer = f"the simplest way to play within {margin} of {strong} is {follows(row, result)}"
    gap = rp.gap_words(row, result.unit) + rp.unsure(row)
    second = seconds.get(row["restriction"]) if row["kind"] == "restriction" else None
    if second is None:
        return f"Yes against {strong}: {answer}, {gap} ({how}; this one against {strong} only)."
    if second.value <= rp.WITHIN:
        return f"Yes: {answer}, {gap}; holds under both strong players ({other}: {_points(*second.interval)}; {how})."
    return (
        f"It depends on who plays: against {strong} {answer}, {gap}; against {other} that rule costs "
        f"{_points(*second.interval)} ({how})."
    )


def cost_text(row: dict[str, Any]) -> str:
    """``"39.6 (37.7 to 41.5)"`` points."""
    return f"{100 * row['cost']:+.1f} ({100 * row['cost_lo']:+.1f} to {100 * row['cost_hi']:+.1f})"


def points_frame(frame: pd.DataFrame, label: str) -> pd.DataFrame:
    """Costs in points, labelled for a figure's axis."""
    return pd.DataFrame(
        {
            "label": frame[label],
            "cost": 100 * frame["cost"],
            "cost_lo": 100 * frame["cost_lo"],
            "cost_hi": 100 * frame["cost_hi"],
        }
    )


def share_column(result: rp.Choices) -> str:
    """The column of what each row's player (or table) won."""
    return "win share" if result.baseline is None else "table wins"


def each_policy(result: rp.Choices, plan: rp.RestrictPlan) -> str:
    """How each row was played: one player among strong ones, or (cooperative) a whole table."""
    if result.baseline is None:
        return f"Each policy alone against {plan.strong} in each seat"
    return f"Each policy played by the whole table of {plan.players}"


def how_played(result: rp.Choices, plan: rp.RestrictPlan) -> str:
    """The note that says how the costs were measured."""
    games = f"{plan.settings['games_per_seating']:,}"
    if result.baseline is not None:
        return (
            f"{plan.players} players: every seat plays {plan.strong} under one restriction ({games} games, the same "
            f"games as the unrestricted table, common random numbers). {' '.join(result.reading())} Interval: "
            "Newcombe's for a difference of two proportions (95%)."
        )
    return (
        f"{PLAYERS} players: {plan.strong} under one restriction, alone against {plan.strong} in each seat "
        f"({games} games per seating, common random numbers). Cost: the fair share "
        f"({100 * result.fair:.0f}%) less the restricted player's share of the wins, a shared win split; among "
        f"unrestricted {plan.strong} players the seats' average share is exactly fair, so the interval is the "
        "restricted player's own (normal, 95%)."
    )


def choices_page(
    results: dict[str, RunResult], plan: rp.RestrictPlan, cross: rp.RestrictPlan | None = None
) -> tuple[Page, str]:
    """Which choices matter: each restriction's cost, ranked, with its interval; findings checked by cross-play."""
    result = played(results, plan)
    seconds = second_costs(results, cross)
    ranked = result.restrictions()
    rows = ranked.to_dict(orient="records")
    findings = [checked_finding(r, seconds.get(r["restriction"]), result) for r in rows]
    free = [r for r in rows if r["verdict"] != "costs"]
    top = rows[0]
    title = (
        f"Which choices matter? {result.who.capitalize()} {top['does']} loses {100 * top['cost']:.1f} points of "
        f"{result.unit}; {len(free)} of {len(rows)} restrictions cost nothing measurable"
    )
    table = pd.DataFrame(
        {
            "restriction": [r["restriction"] for r in rows],
            f"{result.who} …": [r["does"] for r in rows],
            share_column(result): [rp.describe_share(r) for r in rows],
            "cost, points (95% interval)": [cost_text(r) for r in rows],
            "verdict": [r["verdict"] for r in rows],
            **(
                {f"cost under {cross.strong}": [cost_text(_cost_keys(seconds[r["restriction"]])) for r in rows]}
                if cross is not None
                else {}
            ),
        }
    )
    notes = [
        how_played(result, plan),
        "A restriction removes candidates at each decision; where it would leave no legal move, the rules' own stay "
        "(a forced move).",
        *(
            [
                f"Cross-play: every restriction is played again by {cross.strong} alone against {cross.strong} in "
                f"each seat ({cross.settings['games_per_seating']:,} games per seating); a verdict stands only where "
                "both strong players give it."
            ]
            if cross is not None
            else []
        ),
        *findings,
        *(f"Not played: {s}." for s in result.skipped),
    ]

    def draw(fig: Any) -> None:
        ax = fig.subplots()
        plots.interval_bars(
            points_frame(ranked, "restriction"),
            "label",
            "cost",
            "cost_lo",
            "cost_hi",
            None,
            f"cost (points of {result.unit})",
            "restriction (costliest first)",
            fig=fig,
            ax=ax,
            reference=0.0,
        )

    meaning = (
        "A restriction that costs nothing is a choice strong players never need: a rule or option the designer "
        "could drop or simplify. A costly one is where the game's skill lives."
    )
    return Page(title, draw, table, notes, finding=findings[0], short="Which choices matter", meaning=meaning), title


def _shown(frame: pd.DataFrame) -> list[str]:
    """A figure's label per row: a heuristic's name, a restriction's own name (the rule, not the restricted player)."""
    rows = zip(frame["policy"], frame["kind"], frame["restriction"], strict=True)
    return [policy if kind == "heuristic" else rule for policy, kind, rule in rows]


def _cost_keys(figure: crossplay.Figure) -> dict[str, float]:
    return {"cost": figure.value, "cost_lo": figure.low, "cost_hi": figure.high}


def dominant_page(
    results: dict[str, RunResult], plan: rp.RestrictPlan, cross: rp.RestrictPlan | None = None
) -> tuple[Page, str]:
    """Is there a dominant strategy: the simplest policy within 2 points of strong play, or the closest."""
    result = played(results, plan)
    answer = dominant_text(result, second_costs(results, cross))
    title = f"Is there a dominant strategy? {answer}"
    ordered = result.table.sort_values("simplicity")
    rows = ordered.to_dict(orient="records")
    table = pd.DataFrame(
        {
            "policy (simplest first)": [
                r["policy"] if r["kind"] == "heuristic" else f"a rule, with {plan.strong} for the rest" for r in rows
            ],
            f"{result.who} …": [r["does"] for r in rows],
            share_column(result): [rp.describe_share(r) for r in rows],
            "behind strong play, points (95% interval)": [cost_text(r) for r in rows],
            f"within {100 * rp.WITHIN:.0f} points": ["yes" if r["cost"] <= rp.WITHIN else "no" for r in rows],
        }
    )
    notes = [
        f"{each_policy(result, plan)}, {plan.settings['games_per_seating']:,} games per "
        f"seating. Within {100 * rp.WITHIN:.0f} points: its estimated cost is at most that (the interval is shown).",
        "Simplest (ours): random, then the named heuristics in the order the game lists them (a fixed rule each), "
        f"then {plan.strong} under each restriction in the order the game declares them (a restricted strong "
        "player still needs the strong player's judgement for the choices left).",
    ]

    def draw(fig: Any) -> None:
        ax = fig.subplots()
        plots.interval_bars(
            points_frame(ordered.assign(shown=_shown(ordered)), "shown"),
            "label",
            "cost",
            "cost_lo",
            "cost_hi",
            None,
            f"behind {plan.strong} (points of {result.unit})",
            "policy (simplest first)",
            fig=fig,
            ax=ax,
            reference=100 * rp.WITHIN,
        )
        ax.tick_params(axis="x", labelrotation=30)

    meaning = (
        "A simple policy as good as strong play is a dominant strategy: players who find it stop deciding. None "
        "within the margin means every simple rule leaves something on the table."
    )
    return Page(title, draw, table, notes, finding=answer, short="Is there a dominant strategy", meaning=meaning), title
