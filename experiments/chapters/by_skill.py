"""The "Is the game fair for beginners and for experts?" question; a chapter adds it with ``by_skill.question(GAME)``.

Balance measured at every rung of the skill ladder (Duersch, Lambrecht and Oechssler 2020 measure skill and chance
across player pools; a game can be fair between beginners and lopsided between experts): every policy the ladder
plays (``random``, the heuristics, ``learned``, ``win-optimal`` where it plays, the expert at the report's budget)
against itself at the ladder's table size, with the first seat's edge, the share of games with one winner and the
length, each with its 95% interval; and, from the ladder's own games (the skill question's arms, played once), the
luck at each rung: how often the weaker of two neighbouring rungs (in rating order) wins. Rungs are ordered by the
ladder's ratings. A cooperative game has no seats to balance and no ladder: it asks how hard the game is for
beginners and for experts, each rung a whole table (the table's win rate and length, everyone playing the policy).
Searching rungs play 1/:data:`~experiments.chapters.skill.EXPERT_SHARE` of the games.
"""

from __future__ import annotations

import itertools
import math
from functools import partial
from typing import Any

import pandas as pd

from boardlab.analysis import game_metrics, plots
from boardlab.analysis.book import Page
from boardlab.analysis.wording import interval, pct, points
from boardlab.engines import get_game
from boardlab.engines.record import record_of
from boardlab.experiments import ladder as lad
from boardlab.experiments.chapters import crossplay, skill, verdict
from boardlab.experiments.chapters.common import Plan, Question
from boardlab.experiments.run import RunResult

LABEL = "by skill"
STRONG = "learned"  #: the strong play every game's row of ``simulate report all``'s comparison is measured under
SIGNIFICANT = 0.05  #: a change between the weakest and the strongest rung is reported below this p-value


def _label(policy: str) -> str:
    return f"{LABEL} {policy}"


def rungs(game: str) -> list[str]:
    """The ladder's policies at the ladder's table size (the report's expert budgets)."""
    module = get_game(game).module
    return lad.ladder_policies(module, skill.PLAYERS, record_of(module).report_budgets)[0]


def searches(game: str, policy: str) -> int | None:
    """The searching policy's chunk cap (``None``: a fast policy)."""
    return get_game(game).module.POLICIES[policy.split(":")[0]].chunk_games


def add_arms(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """Everyone playing each rung; a competitive game's ladder too (its luck at each rung)."""
    game = plan.game
    for policy in rungs(game):
        cap = searches(game, policy)
        games = n if cap is None else max(2, n // skill.EXPERT_SHARE)
        plan.add(_label(policy), [policy] * skill.PLAYERS, games, seed, min(chunk, cap or chunk, games))
    if not get_game(game).module.INFO.cooperative:
        skill.add_arms(plan, n, seed, chunk)
        if STRONG in rungs(game) and crossplay.second(game) not in rungs(game):  # a rung already plays it
            crossplay.add_arms(plan, [STRONG] * skill.PLAYERS, n, seed, chunk)


def question(game: str, share: int = 1) -> Question:
    """The question: its arms (:func:`add_arms`, ``1/share`` of the chapter's games each) and its page."""

    def arms(plan: Plan, n: int, seed: int, chunk: int) -> None:
        add_arms(plan, max(1, n // share), seed, chunk)

    return Question(LABEL, arms, partial(by_skill_page, game=game))


def _order(game: str, results: dict[str, RunResult]) -> tuple[list[str], Any]:
    """The rungs weakest first (by the ladder's ratings) and the ladder (``None`` for a cooperative game)."""
    policies = rungs(game)
    if get_game(game).module.INFO.cooperative:
        won = {p: results[_label(p)].game_metrics()["table_win_rate"].value for p in policies}
        return sorted(policies, key=lambda p: won[p]), None
    _, notes, arms = skill.ladder_arms(game, 1, 0, 1)  # labels depend on the policies and seatings only
    ladder = lad.analyse(game, skill.PLAYERS, policies, lad.pairs_table(arms, results), notes)
    rating = dict(zip(ladder.ratings["policy"], ladder.ratings["rating"], strict=True))
    return sorted(policies, key=lambda p: rating[p]), ladder


def _top(order: list[str], ladder: Any, measured: dict[str, dict[str, Any]]) -> str:
    """How the title names the top rung: "the strongest" only where it clears the next (rating, or table win rate)."""
    if ladder is not None:
        rated = ladder.ratings.sort_values("rating", ascending=False)
        clear = skill.best_rated(rated) == order[-1]
    elif len(order) > 1:  # larger is better: compare the negated intervals (smaller is better)
        below, top = (measured[p]["table_win_rate"] for p in order[-2:])
        clear = verdict.clears((-top.high, -top.low), (-below.high, -below.low))
    else:
        clear = True
    return "the strongest" if clear else f"the highest rated (not detectably above {order[-2]})"


def _neighbour_luck(ladder: Any, order: list[str]) -> dict[str, tuple[float, float, float]]:
    """Per rung above the first: how often the weaker of it and the rung below wins their games, with interval."""
    pairs = ladder.pairs
    out = {}
    for lower, upper in itertools.pairwise(order):
        between = {lower, upper}
        row = pairs[[{a, b} == between for a, b in zip(pairs["policy"], pairs["opponent"], strict=True)]].iloc[0]
        out[upper] = (float(row["weaker_win_rate"]), float(row["weaker_lo"]), float(row["weaker_hi"]))
    return out


def _p_change(a: game_metrics.Value, b: game_metrics.Value) -> float:
    """Two-sided p-value that two independent estimates (95% intervals) are equal (normal approximation)."""
    se = math.hypot((a.high - a.low) / 3.92, (b.high - b.low) / 3.92)
    return 1.0 if se == 0 else math.erfc(abs(a.value - b.value) / se / math.sqrt(2))


def by_skill_page(results: dict[str, RunResult], game: str) -> tuple[Page, str]:
    """The balance metrics at every rung; the title says whether they change from the weakest to the strongest."""
    order, ladder = _order(game, results)
    cooperative = ladder is None
    shown = ("table_win_rate", "duration") if cooperative else ("first_seat_advantage", "decisiveness", "duration")
    luck = {} if cooperative else _neighbour_luck(ladder, order)
    measured = {p: results[_label(p)].game_metrics() for p in order}
    frame = pd.DataFrame(
        [
            {"rung": p, "metric": name, "value": v.value, "low": v.low, "high": v.high}
            for p in order
            for name in shown
            if isinstance(v := measured[p][name], game_metrics.Value)
        ]
    )
    table = pd.DataFrame(
        [
            {
                "everyone plays": p,
                "games": f"{results[_label(p)].summary.n_games:,}",
                **{_column(name): game_metrics.format_value(name, measured[p][name]) for name in shown},
                **({} if cooperative else {"weaker of it and the rung below wins": _share(luck.get(p))}),
            }
            for p in order
        ]
    )
    key = shown[0]
    weakest, strongest = measured[order[0]][key], measured[order[-1]][key]
    change = strongest.value - weakest.value
    moves = _p_change(weakest, strongest) < SIGNIFICANT
    words = game_metrics.DEFINITIONS[key].words
    title = (
        f"{words[0].upper() + words[1:]} is {game_metrics.format_value(key, weakest)} when everyone plays "
        f"{order[0]} and {game_metrics.format_value(key, strongest)} when everyone plays {order[-1]}, "
        f"{_top(order, ladder, measured)}: "
        + (
            f"it {'grows' if change > 0 else 'shrinks'} with skill by {100 * abs(change):.1f} points (the change: "
            f"{points(change, *_change_interval(weakest, strongest))})"
            if moves
            else "the same for beginners and experts within the intervals"
        )
    )

    figures = [] if cooperative else cross_figures(game, results, key)
    if len(figures) > 1:
        title += "; under strong play " + crossplay.claim(words, figures, _edge_fact, points)
        if (other := crossplay.second(game)) not in order:  # the second player's own row, beside learned's
            played = results[crossplay.label([other] * skill.PLAYERS)]
            metrics = played.game_metrics()
            row = {_column(name): game_metrics.format_value(name, metrics[name]) for name in shown}
            extra = {"everyone plays": f"{other} (cross-play)", "games": f"{played.summary.n_games:,}", **row}
            table = pd.concat([table, pd.DataFrame([extra])], ignore_index=True).fillna("—")

    def draw(fig: Any) -> None:
        axes = fig.subplots(1, len(shown))
        for ax, name in zip(axes, shown, strict=True):
            part = frame[frame["metric"] == name]
            label, reference = game_metrics.DEFINITIONS[name].label, 0.0 if name.endswith("advantage") else None
            plots.interval_bars(
                part, "rung", "value", "low", "high", None, label, "everyone plays", ax=ax, reference=reference
            )
            ax.tick_params(axis="x", labelsize=7, rotation=30)

    notes = [
        f"{skill.PLAYERS} players, everyone playing the rung's policy; rungs weakest first"
        + (" by the table's win rate." if cooperative else " by the skill ladder's ratings (the skill page).")
        + " 95% intervals; searching rungs play fewer games (the games column). The title compares the weakest "
        "and the strongest rung (two-sided normal test of the two estimates).",
    ]
    if len(figures) > 1:
        notes.append(crossplay.note(figures, _edge_fact))
    if not cooperative:
        notes.append(
            "Luck at each rung: in the ladder's games between the rung and the one below it (both seatings), how "
            "often the weaker of the two wins: near 50% the step up buys little, near 0% skill decides."
        )
    meaning = (
        "The page shows how hard the game is for beginners and for experts: how often a whole table of each wins, "
        "and how long it plays."
        if cooperative
        else "If the rows differ, the rules are not as fair, decisive or long between beginners as between experts."
    )
    short = "Difficulty by skill" if cooperative else "Balance by skill"
    metrics = strong_metrics(measured, key, figures)
    page = Page(title, draw, table, notes, short=short, meaning=meaning, metrics=metrics)
    return page, title


def cross_figures(game: str, results: dict[str, RunResult], key: str) -> list[crossplay.Figure]:
    """``key`` with everyone :data:`STRONG`, then with everyone the second strong player (where both played)."""
    other = crossplay.second(game)
    labels = [(STRONG, _label(STRONG))]
    if other is not None:
        played = _label(other) if other in rungs(game) else crossplay.label([other] * skill.PLAYERS)
        labels.append((other, played))
    figures = []
    for who, label in labels:
        if label in results:
            v = results[label].game_metrics()[key]
            figures.append(crossplay.Figure(f"everyone {who}", v.value, v.low, v.high, results[label].summary.n_games))
    return figures


def _edge_fact(f: crossplay.Figure) -> str:
    """What an edge supports: the first seat is favoured, is behind, or is even within the interval."""
    if f.low <= 0 <= f.high:
        return "the first seat has no detectable edge"
    return f"the first seat is {'favoured' if f.value > 0 else 'behind'}"


def strong_metrics(
    measured: dict[str, dict[str, Any]], key: str, figures: list[crossplay.Figure] | None = None
) -> dict[str, str]:
    """The comparison columns under the same strong play in every game: everyone :data:`STRONG` (none without it).

    ``key`` is the page's balance metric (the first seat's edge, or the table's win rate in a cooperative game).
    With ``figures`` (the edge under :data:`STRONG`, then under the second strong player: cross-play) the second
    player's edge follows, and whether the two agree.
    """
    if STRONG not in measured:
        return {}
    under, mine = f"everyone {STRONG}", measured[STRONG]
    balance = mine[key]
    length = mine["duration"]
    columns = {
        (f"{under}: table wins" if key == "table_win_rate" else f"{under}: first seat's edge, points"): (
            pct(balance.value, balance.low, balance.high)
            if key == "table_win_rate"
            else points(balance.value, balance.low, balance.high)
        ),
        f"{under}: rounds per game": interval(length.value, length.low, length.high),
    }
    if key != "table_win_rate":
        second = figures[1] if figures and len(figures) > 1 else None
        columns["second strong player: first seat's edge, points"] = (
            "— (none affordable)" if second is None else f"{points(*second.interval)} ({second.who})"
        )
        columns["the edge under strong play"] = (
            "not checked"
            if second is None
            else ("holds under both" if crossplay.agreed(figures or [], _edge_fact) else "depends on who plays")
        )
    return columns


def _column(metric: str) -> str:
    """A table column's heading: the metric's plain words without the article."""
    return game_metrics.DEFINITIONS[metric].words.removeprefix("the ")


def _share(value: tuple[float, float, float] | None) -> str:
    return "—" if value is None else pct(*value)


def _change_interval(a: game_metrics.Value, b: game_metrics.Value) -> tuple[float, float]:
    """The 95% interval of ``b - a`` (independent estimates, normal approximation)."""
    half = 1.96 * math.hypot((a.high - a.low) / 3.92, (b.high - b.low) / 3.92)
    return b.value - a.value - half, b.value - a.value + half
