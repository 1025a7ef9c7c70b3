"""The "How much does skill matter?" question a chapter adds with one line: ``skill.question(GAME)``.

The page is the game's skill ladder at 2 players (:mod:`experiments.ladder`): every policy the ladder discovers
(``random``, the heuristics, ``win-optimal`` where it plays 2 players, the expert at the budgets its record gives
the report (``engines.record.Record.report_budgets``: one rung at most, to keep a report's run time near its
heuristics')) against every other in both seatings, from the chapter's seed and chunks (so the chapter's own
head-to-head arms are the same games and are played once). Arms with the expert play 1/:data:`EXPERT_SHARE` of
the chapter's games per arm: a game with an expert seat costs thousands of playouts.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial, reduce
from typing import Any

import pandas as pd

from boardlab.analysis import plots, ratings
from boardlab.analysis.book import Page
from boardlab.analysis.wording import interval, pct
from boardlab.engines import get_game
from boardlab.engines.record import record_of
from boardlab.experiments import ladder as lad
from boardlab.experiments.chapters import verdict
from boardlab.experiments.chapters.common import Plan, Question, proportion
from boardlab.experiments.run import RunResult

EXPERT_SHARE = 100  # 200 games per seating in a default (20,000-game) report: minutes, not hours
PLAYERS = 2
LABEL = "skill"


def ladder_arms(game: str, n: int, seed: int, chunk: int) -> tuple[list[str], list[str], list[Any]]:
    """The ladder's policies, its notes and its arms ``(a, b, seats, arm)`` (labels depend on policies and seatings)."""
    module = get_game(game).module
    policies, notes = lad.ladder_policies(module, PLAYERS, record_of(module).report_budgets)
    return policies, notes, lad.ladder_arms(game, policies, PLAYERS, n, seed, chunk, lad.Shape(LABEL, EXPERT_SHARE))


def add_arms(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """Add the ladder's arms to a chapter's plan."""
    for *_, seats, arm in ladder_arms(plan.game, n, seed, chunk)[2]:
        plan.add(arm.label, seats, arm.spec.n_games, seed, arm.spec.chunk_size)


def question(game: str) -> Question:
    """The question: the ladder's arms (:func:`add_arms`) and its page (:func:`skill_page`)."""
    return Question(LABEL, add_arms, page_maker(game))


def page_maker(game: str) -> Callable[[dict[str, RunResult]], tuple[Page, str]]:
    """The page maker for a chapter's ``play_pages`` (results by arm label, as :func:`add_arms` named them)."""
    return partial(skill_page, game=game)


def skill_page(results: dict[str, RunResult], game: str) -> tuple[Page, str]:
    """Ladder ratings with intervals, the skill chain and the luck share; the title names the policies."""
    policies, notes, arms = ladder_arms(game, 1, 0, 1)  # labels depend on the policies and seatings only
    result = lad.analyse(game, PLAYERS, policies, lad.pairs_table(arms, results), notes)
    members = result.chain_members()
    share, low, high = result.luck
    title = (
        f"Skill matters: a chain of {len(result.chain)} clear step{'s' if len(result.chain) != 1 else ''} "
        f"leads from random to {members[-1] if members else 'nothing'}, and the weaker of two policies still wins "
        f"{pct(share, low, high)} of games (policies: {', '.join(policies)})"
    )
    links = {c.stronger: c for c in result.chain}
    rated = result.ratings.sort_values("rating", ascending=False)
    table = pd.DataFrame(
        {
            "policy": rated["policy"],
            "rating (Elo vs random)": [
                f"{r:+.0f} ({lo:+.0f} to {hi:+.0f})"
                for r, lo, hi in rated[["rating", "rating_lo", "rating_hi"]].itertuples(index=False)
            ],
            "points per game": [f"{s:.3f}" for s in rated["score"]],
            "skill chain": [
                f"beats {links[p].weaker}: {pct(links[p].rate, links[p].low, links[p].high)}"
                if p in links
                else ("start" if members and p == members[0] else "—")
                for p in rated["policy"]
            ],
        }
    )
    luckiest = result.pairs.sort_values("weaker_win_rate").iloc[-1]
    page_notes = [
        f"{PLAYERS} players, every pair in both seat orders on common random numbers; a shared win counts half. "
        "Ratings: Bradley–Terry (choix), in Elo points relative to random (400 points: 10 to 1 odds), 95% intervals "
        f"from a parametric bootstrap over the pairwise counts. {best_rated_text(rated)}",
        f"Skill chain (Lantz et al. 2017): the longest sequence from random in which each policy wins at least "
        f"{ratings.CHAIN_MIN_RATE:.0%} of its games against the previous one, the 95% lower bound above "
        f"{ratings.CHAIN_LOWER_ABOVE:.0%}: {result.chain_text()}.",
        f"Luck share: {result.luck_text()} (all pairs pooled); the closest pair is {luckiest['policy']} against "
        f"{luckiest['opponent']}, where {luckiest['weaker']} wins "
        f"{pct(luckiest['weaker_win_rate'], luckiest['weaker_lo'], luckiest['weaker_hi'])}.",
        *notes,
    ]

    def draw(fig: Any) -> None:
        plots.rating_intervals(
            result.ratings, "policy", members, fig=fig, xlabel="rating (Elo points vs random; filled: on the chain)"
        )

    rounds = get_game(game).module.INFO.turns_are_rounds
    metrics = comparison_metrics(result, [results[arm.label].summary for *_, arm in arms], rounds)
    meaning = (
        f"The longer the chain, the more a player can improve by learning; a weaker policy winning {pct(*result.luck)}"
        " of its games is the share of luck a designer trades against it."
    )
    page = Page(title, draw, table, page_notes, short="How much skill matters", meaning=meaning, metrics=metrics)
    return page, title


def best_rated(rated: pd.DataFrame) -> str | None:
    """The top of ``rated`` (highest rating first) if its interval clears the runner-up's, else None."""
    if len(rated) < 2:
        return str(rated["policy"].iloc[0]) if len(rated) else None
    top, runner_up = rated.iloc[0], rated.iloc[1]
    # ratings: larger is better, so compare the negated intervals (smaller is better)
    clear = verdict.clears((-top["rating_hi"], -top["rating_lo"]), (-runner_up["rating_hi"], -runner_up["rating_lo"]))
    return str(top["policy"]) if clear else None


def best_rated_text(rated: pd.DataFrame) -> str:
    """The ratings note's last sentence: the best rated policy, or that none is detectably best."""
    if (name := best_rated(rated)) is not None:
        return f"The best rated is {name}."
    first, second = rated["policy"].iloc[0], rated["policy"].iloc[1]
    return f"No policy is rated detectably best: the intervals of {first} and {second} overlap."


def comparison_metrics(result: Any, summaries: list[Any], turns_are_rounds: bool = False) -> dict[str, str]:
    """What the page measured that compares across games (``simulate report all``), worded with intervals.

    Balance and length pool every ladder game (each pair in both seatings, so policies cancel between seats);
    length is in rounds, whatever the game counts as a turn (``turns_are_rounds``: the game's own flag); skill
    depth is the chain and the best rating; luck is how often the weaker of two policies wins.
    """
    pooled = reduce(lambda a, b: a.merge(b), summaries)
    first = proportion(round(float(pooled.wins[0] + pooled.shared_wins[0] / 2)), pooled.n_games)
    rounds = pooled.mean_rounds(turns_are_rounds)
    rated = result.ratings.sort_values("rating", ascending=False)
    best = rated.iloc[0]
    named = best_rated(rated) is not None
    return {
        "balance: seat 0 wins": pct(*first),
        "length: rounds per game": interval(*rounds),
        "skill depth: chain steps": str(len(result.chain)),
        "best policy, Elo vs random": ("" if named else "none detectably; highest: ")
        + f"{best['policy']} {best['rating']:+.0f} ({best['rating_lo']:+.0f} to {best['rating_hi']:+.0f})",
        "luck: weaker policy wins": pct(*result.luck),
    }
