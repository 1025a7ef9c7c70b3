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
from boardlab.experiments import restrict as rp
from boardlab.experiments.chapters.common import Plan, Question
from boardlab.experiments.run import RunResult

SHARE = 2  # 10,000 games per seating in a default (20,000-game) report: a cost within about ±0.7 points
PLAYERS = 2
LABEL = "choices"


def restrict_plan(game: str, n: int, seed: int, chunk: int, share: int = SHARE) -> rp.RestrictPlan:
    """The restricted play the pages read (labels depend only on the game's restrictions and policies)."""
    games = max(1, n // share)
    return rp.plan_restrict(game, None, PLAYERS, games, seed, label=LABEL, chunk=min(chunk, games))


def add_arms(plan: Plan, n: int, seed: int, chunk: int, planned: rp.RestrictPlan) -> None:
    """Add the restricted play's arms (``planned``, sized when the questions were made) to a chapter's plan."""
    for _, arm in planned.arms:
        plan.add(arm.label, arm.spec.seats, arm.spec.n_games, seed, arm.spec.chunk_size)


def questions(game: str, n: int, seed: int, chunk: int, share: int = SHARE) -> list[Question]:
    """The two questions of restricted play sized by a chapter's ``n``, ``seed`` and ``chunk``; one set of arms.

    Each seating plays ``n // share`` games (a slow game's chapter may play fewer).
    """
    planned = restrict_plan(game, n, seed, chunk, share)
    return [
        Question(LABEL, partial(add_arms, planned=planned), partial(choices_page, plan=planned)),
        Question(
            f"{LABEL}: dominant strategy", partial(add_arms, planned=planned), partial(dominant_page, plan=planned)
        ),
    ]


def played(results: dict[str, RunResult], plan: rp.RestrictPlan) -> rp.Choices:
    """The restricted play's analysis from the chapter's results."""
    return rp.analyse(plan, [results[arm.label] for _, arm in plan.arms])


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


def choices_page(results: dict[str, RunResult], plan: rp.RestrictPlan) -> tuple[Page, str]:
    """Which choices matter: each restriction's cost, ranked, with its interval; findings in plain words."""
    result = played(results, plan)
    ranked = result.restrictions()
    rows = ranked.to_dict(orient="records")
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
        }
    )
    notes = [
        how_played(result, plan),
        "A restriction removes candidates at each decision; where it would leave no legal move, the rules' own stay "
        "(a forced move).",
        *result.findings(),
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
    finding = result.findings()[0]
    return Page(title, draw, table, notes, finding=finding, short="Which choices matter", meaning=meaning), title


def dominant_page(results: dict[str, RunResult], plan: rp.RestrictPlan) -> tuple[Page, str]:
    """Is there a dominant strategy: the simplest policy within 2 points of strong play, or the closest."""
    result = played(results, plan)
    answer = result.dominant_text()
    title = f"Is there a dominant strategy? {answer}"
    ordered = result.table.sort_values("simplicity")
    rows = ordered.to_dict(orient="records")
    table = pd.DataFrame(
        {
            "policy (simplest first)": [r["policy"] for r in rows],
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
            points_frame(ordered, "policy"),
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
