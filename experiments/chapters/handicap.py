"""The "What head start makes the second seat fair?" question a chapter adds with one line: ``handicap.question``.

A game declares its handicap (:class:`Handicap`): the knob that compensates a seat in the game's own terms and
its series (:class:`Series`: a policy both seats play, knobs held fixed and the values to try; the first series
plays the default rules). Each value is played at 2 players from the chapter's seed and chunks (common random
numbers: every value meets the same dice) and the page gives the first seat's edge (its share of the wins, a
shared win counting half, minus a half) with its 95% interval per value, the fair value of each series (the one
whose edge is closest to 0) and the ``simulate tune`` command that searches it. A learned player's model key
includes every knob set off its default, so a learned series lists only the values whose models ship.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import pandas as pd

from boardlab.analysis import plots
from boardlab.analysis.book import Page
from boardlab.analysis.wording import points
from boardlab.engines.record import HANDICAP_LABEL, HANDICAP_PLAYERS, Handicap, Series
from boardlab.experiments.chapters import crossplay
from boardlab.experiments.chapters import verdict as vd
from boardlab.experiments.chapters.common import Plan, Question
from boardlab.experiments.run import RunResult

LABEL = HANDICAP_LABEL
PLAYERS = HANDICAP_PLAYERS
TWIN_SHARE = 2  # a learned series' twin under the second player plays half its cross-play share: a line of values


def question(game: str, handicap: Handicap) -> Question:
    """The question: one arm per series and value (:func:`add_arms`) and the page (:func:`handicap_page`)."""
    return Question(LABEL, partial(add_arms, handicap=handicap), page_maker(game, handicap))


def add_arms(plan: Plan, n: int, seed: int, chunk: int, handicap: Handicap) -> None:
    """Every value of every series, ``n / share`` games each; a learned series again under the second strong player."""
    games = max(1, n // handicap.share)
    for series in handicap.series:
        for h in series.values:
            settings = ((handicap.knob, str(h)), *series.settings)
            seats = [series.policy] * PLAYERS
            plan.add(handicap.arm(series, h), seats, games, seed, min(chunk, games), None, settings)
            crossplay.add_arms(plan, seats, games // TWIN_SHARE, seed, chunk, settings=settings)


def crossed(handicap: Handicap, game: str) -> list[tuple[Series, Series]]:
    """Each learned series with its twin under the second strong player (the same values and knobs)."""
    other = crossplay.second(game)
    if other is None:
        return []
    return [
        (s, Series(f"{s.name}, checked by {other}", other, s.values, s.settings))
        for s in handicap.series
        if s.policy == crossplay.STRONG
    ]


def cross_edges(results: dict[str, RunResult], handicap: Handicap, game: str) -> pd.DataFrame:
    """The first seat's edge under the second strong player, per crossed series and value (as :func:`edges`)."""
    rows = []
    for series, twin in crossed(handicap, game):
        for h in series.values:
            arm = crossplay.label([twin.policy] * PLAYERS, ((handicap.knob, str(h)), *series.settings))
            edge = results[arm].game_metrics()["first_seat_advantage"]
            rows.append({"play": twin.name, "h": h, "edge": edge.value, "low": edge.low, "high": edge.high})
    return pd.DataFrame(rows, columns=["play", "h", "edge", "low", "high"])


def cross_answer(frame: pd.DataFrame, handicap: Handicap, series: Series, twin: Series) -> str:
    """Whether a learned series' answer holds under the second strong player.

    It holds where the two players' edges agree (intervals overlap) without a head start and at the learned
    series' fair value: then the learned series' answer and "holds under both"; else that the answer depends on who
    plays, with both edges (no fact stated).
    """

    def figure(s: Series, h: int) -> crossplay.Figure:
        row = frame[(frame["play"] == s.name) & (frame["h"] == h)].iloc[0]
        return crossplay.Figure(f"under {s.policy}", row["edge"], row["low"], row["high"])

    fair = int(fair_value(frame[frame["play"] == series.name])["h"])
    plain = [figure(series, 0), figure(twin, 0)]
    there = [figure(series, fair), figure(twin, fair)]
    if crossplay.holds(plain) and crossplay.holds(there):
        return f"{answer(frame, handicap, series)}; holds under both strong players ({twin.policy}: edge " + (
            f"{points(*plain[1].interval)} points without one)"
        )
    closest = int(fair_value(frame[frame["play"] == twin.name])["h"])
    return (
        f"{series.name}: the fair head start depends on who plays: without one the first seat's edge is "
        f"{crossplay.both(plain, lambda *v: f'{points(*v)} points')}; {series.policy} comes closest to fair at {fair} "
        f"({twin.policy} there: {points(*there[1].interval)}), {twin.policy} at {closest}"
    )


def page_maker(game: str, handicap: Handicap) -> Callable[[dict[str, RunResult]], tuple[Page, str]]:
    """The page maker for a chapter's ``play_pages`` (results by arm label, as :func:`add_arms` named them)."""
    return partial(handicap_page, handicap=handicap, game=game)


def edges(results: dict[str, RunResult], handicap: Handicap) -> pd.DataFrame:
    """The first seat's edge with its interval per series and value: ``play``, ``h``, ``edge``, ``low``, ``high``."""
    rows = []
    for series in handicap.series:
        for h in series.values:
            edge = results[handicap.arm(series, h)].game_metrics()["first_seat_advantage"]
            rows.append({"play": series.name, "h": h, "edge": edge.value, "low": edge.low, "high": edge.high})
    return pd.DataFrame(rows)


def fair_value(frame: pd.DataFrame) -> pd.Series:
    """The row of one series whose edge is closest to 0 (the smaller value on a tie)."""
    return frame.loc[frame["edge"].abs().sort_values(kind="stable").index[0]]


def _distance(row: pd.Series) -> tuple[float, float]:
    """The interval of a row's distance from a fair edge (0)."""
    if row["low"] <= 0 <= row["high"]:
        return 0.0, max(-row["low"], row["high"])
    return min(abs(row["low"]), abs(row["high"])), max(abs(row["low"]), abs(row["high"]))


def answer(frame: pd.DataFrame, handicap: Handicap, series: Series) -> str:
    """The fair value of ``series`` in plain words, with the edge it leaves and the edge without it."""
    rows = frame[frame["play"] == series.name]
    fair, plain = fair_value(rows), rows[rows["h"] == 0].iloc[0]
    without = f"{points(plain['edge'], plain['low'], plain['high'])} points"
    if len(series.values) == 1:
        return f"{series.name}: the first seat's edge is {without} without one (no other value played)"
    if int(fair["h"]) == 0 and plain["low"] <= 0 <= plain["high"]:
        return f"{series.name}: none is needed (the first seat's edge is {without} without one)"
    if int(fair["h"]) == 0:
        one = rows[rows["h"] > 0].iloc[0]
        return (
            f"{series.name}: none is closest to fair (the first seat's edge is {without} without one; the smallest, "
            f"{int(one['h'])} {handicap.unit}, overshoots to {points(one['edge'], one['low'], one['high'])})"
        )
    within = 100 * max(abs(fair["low"]), abs(fair["high"]))
    verdict = f"is fair, ±{within:.1f} points" if fair["low"] <= 0 <= fair["high"] else "comes closest to fair"
    runner = rows.loc[rows["edge"].abs().sort_values(kind="stable").index[1]]
    if verdict == "comes closest to fair" and not vd.clears(_distance(fair), _distance(runner)):
        verdict += f", though not detectably closer than {int(runner['h'])}"
    return (
        f"{series.name}: a {int(fair['h'])}-{handicap.unit} head start ({handicap.knob}={int(fair['h'])}) {verdict} "
        f"(the first seat's edge {points(fair['edge'], fair['low'], fair['high'])} points instead of {without})"
    )


def handicap_page(results: dict[str, RunResult], handicap: Handicap, game: str) -> tuple[Page, str]:
    """What head start makes the seats fair? The first seat's edge against each value, per series."""
    frame = edges(results, handicap)
    twins = dict(crossed(handicap, game))
    frame = pd.concat([frame, cross_edges(results, handicap, game)], ignore_index=True) if twins else frame
    answers = [
        cross_answer(frame, handicap, series, twins[series]) if series in twins else answer(frame, handicap, series)
        for series in handicap.series
    ]
    title = f"{handicap.question} " + "; ".join(answers)
    counts = {series.name: results[handicap.arm(series, 0)].summary.n_games for series in handicap.series}
    for s, twin in twins.items():
        arm = crossplay.label([twin.policy] * PLAYERS, ((handicap.knob, "0"), *s.settings))
        counts[twin.name] = results[arm].summary.n_games
    sizes = (
        f"{next(iter(counts.values())):,} games a value"
        if len(set(counts.values())) == 1
        else ", ".join(f"{n:,} games a value for {name}" for name, n in counts.items())
    )

    def draw(fig: Any) -> None:
        ax = fig.subplots()
        plots.interval_lines(frame, "h", "edge", "low", "high", "play", "first seat's edge", "", ax=ax)
        ax.axhline(0.0, color="#555555", linestyle="--", linewidth=0.8)
        ax.set_xlabel(f"{handicap.knob} ({handicap.unit})")

    table = pd.DataFrame(
        {
            "play": frame["play"],
            handicap.knob: frame["h"],
            "first seat's edge, points (95%)": [
                points(*r) for r in frame[["edge", "low", "high"]].itertuples(index=False)
            ],
        }
    )
    notes = [
        f"{PLAYERS} players, both seats playing the policy each line names, the same dice for every value; "
        f"{sizes}. {handicap.knob} (ours, 0 = the rulebook): {handicap.gives}. Edge: the first seat's share of "
        "the wins (a shared win counts half) minus a half. Dashed line: a fair game.",
        "A wider or finer search with the same objective: "
        + "; ".join(handicap.command(game, series) for series in handicap.series)
        + ".",
        *handicap.notes,
        *(
            [
                f"Cross-play: each {crossplay.STRONG} line is played again by {crossplay.second(game)} at the same "
                "values (fewer games); a fair value is stated as a fact only where both strong players give it and "
                "their edges there agree within the intervals."
            ]
            if twins
            else []
        ),
    ]
    page = Page(
        title,
        draw,
        table,
        notes,
        short="A fair head start",
        meaning="The compensation a designer can write into the rules so that the seats are even: "
        + "; ".join(answers)
        + ".",
        depends_on={handicap.knob: answers[0]},
    )
    return page, title
