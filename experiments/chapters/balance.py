"""The "Is it balanced?" question a chapter adds with one line: ``balance.question(GAME, share)``.

The page holds the game metrics (:mod:`analysis.game_metrics`) of the default rules and of every named variant,
everyone playing the game's strong policy (its record's ``balance``, :mod:`engines.record`), and, where the game
has a tuning question, the answer of an exhaustive search over a small grid of knob settings, ranked by
the objective of :mod:`experiments.tune` (``simulate tune`` searches larger spaces with the same objective).
Where the record names a ``strong`` policy (a learned player), the default rules and every setting are played
again with everyone playing it, and the headline says whether strong play picks the same setting. Every arm is
played from the chapter's seed and chunks (common random numbers), so settings are compared on the same dice.
"""

from __future__ import annotations

import itertools
import typing
from collections.abc import Callable
from functools import partial
from typing import Any

import pandas as pd

from boardlab.analysis import game_metrics, plots
from boardlab.analysis.book import Page
from boardlab.analysis.names import display
from boardlab.engines import get_game
from boardlab.engines.record import Balance, Tuning, record_of
from boardlab.experiments import tune as tn
from boardlab.experiments.chapters import crossplay, verdict
from boardlab.experiments.chapters.common import Plan, Question
from boardlab.experiments.run import RunResult

LABEL = "balance"
CROSS_FEWER = 4
"""The tuning grid under the second strong player plays 1/(crossplay.share * CROSS_FEWER) of a setting's games
(62 a setting in a default Pantolino report: nine settings, about a minute of the expert on one core): enough to
say whether it names the same setting clearly, or how many games would tell."""
GRID_CROSS_MOST = 400
"""The most games of the second strong player's seats the grid's check may cost (ours: its seats search every
choice; a Pantolino report's nine settings would take 1,116, about four minutes on two cores, so its grid says it
was not checked)."""


def setup(game: str) -> Balance:
    """The game's balance setup, from its record; a game without one plays its first policy at 2 (or its minimum)."""
    module = get_game(game).module
    if (declared := record_of(module).balance) is not None:
        return declared
    return Balance(next(iter(module.POLICIES)), max(module.INFO.min_players, min(2, module.INFO.max_players)))


def _points(question: Tuning) -> list[dict[str, str]]:
    names = list(question.grid)
    return [dict(zip(names, values, strict=True)) for values in itertools.product(*question.grid.values())]


def _label(game: str, what: str) -> str:
    return f"{LABEL} {game} {what}"


def add_arms(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """Add the page's arms to a chapter's plan: default rules, each named variant, each point of the question."""
    game, chosen = plan.game, setup(plan.game)
    module = get_game(game).module
    seats = (chosen.policy,) * chosen.players
    plan.add(_label(game, "default rules"), seats, n, seed, chunk)
    for variant in module.VARIANTS:
        plan.add(_label(game, f"variant {variant}"), seats, n, seed, chunk, variant)
    if chosen.question is not None:  # fewer games a setting, in chunks of their own (the same for every setting)
        games = max(1, n // chosen.question.share)
        points = _points(chosen.question)
        cross_games = max(2, games // (crossplay.share(game) * CROSS_FEWER))
        check_grid = len(points) * cross_games * chosen.players <= GRID_CROSS_MOST
        for point in points:
            label = _label(game, f"tune {chosen.question.describe(point)}")
            plan.add(label, seats, games, seed, min(chunk, games), settings=tuple(point.items()))
            if chosen.strong is not None:
                label = _label(game, f"strong tune {chosen.question.describe(point)}")
                plan.add(label, strong_seats(chosen), games, seed, min(chunk, games), settings=tuple(point.items()))
                if check_grid:
                    crossplay.add_arms(  # the grid again under the second strong player, on fewer games
                        plan,
                        strong_seats(chosen),
                        games,
                        seed,
                        min(chunk, games),
                        settings=tuple(point.items()),
                        check=crossplay.Check(fewer=CROSS_FEWER),
                    )
    if chosen.strong is not None:
        plan.add(_label(game, "strong default rules"), strong_seats(chosen), n, seed, chunk)
        crossplay.add_arms(plan, strong_seats(chosen), n, seed, chunk)  # the default rules under a second player


def question(game: str, share: int = 1) -> Question:
    """The question: its arms (:func:`add_arms`, ``1/share`` of the chapter's games each) and its page."""

    def arms(plan: Plan, n: int, seed: int, chunk: int) -> None:
        games = max(1, n // share)
        add_arms(plan, games, seed, min(chunk, games))

    return Question(LABEL, arms, page_maker(game))


def strong_seats(chosen: Balance) -> tuple[str, ...]:
    """Everyone plays the setup's strong policy."""
    return (str(chosen.strong),) * chosen.players


def page_maker(game: str) -> Callable[[dict[str, RunResult]], tuple[Page, str]]:
    """The page maker for a chapter's ``play_pages`` (results by arm label, as :func:`add_arms` named them)."""
    return partial(balance_page, game=game)


def _cell(name: str, metrics: dict[str, Any]) -> str:
    value = metrics.get(name)
    return game_metrics.format_value(name, value) if isinstance(value, game_metrics.Value) else "—"


SHOWN = ("first_seat_advantage", "decisiveness", "duration", "drama", "lead_changes")
SHOWN_COOPERATIVE = ("table_win_rate", "duration")  # a cooperative game defines no seat metrics: no empty columns


def shown(game: str) -> tuple[str, ...]:
    """The metric columns of the game's page."""
    return SHOWN_COOPERATIVE if get_game(game).module.INFO.cooperative else SHOWN


def _worded(grid: Any, short: str) -> str:
    """A setting's short form ("7 | 3,4") with its knobs' names: "colours 7; token values 3,4"."""
    return "; ".join(f"{display(knob)} {value}" for knob, value in zip(grid, short.split(" | "), strict=True))


def balance_page(results: dict[str, RunResult], game: str) -> tuple[Page, str]:
    """Metrics of the default rules and the variants; the question's best settings; a figure of the search."""
    chosen, module, columns = setup(game), get_game(game).module, shown(game)
    rows = {"default rules": results[_label(game, "default rules")]}
    rows |= {f"variant {v}": results[_label(game, f"variant {v}")] for v in module.VARIANTS}
    table = pd.DataFrame(
        [{"rules": label, **{m: _cell(m, r.game_metrics()) for m in columns}} for label, r in rows.items()]
    )
    base = rows["default rules"].game_metrics()
    who = f"{chosen.players} players, everyone {chosen.policy}"
    notes = [
        f"{who}; {rows['default rules'].summary.n_games:,} games per rule set, 95% intervals. Definitions and "
        "references: analysis/game_metrics.py (Browne's and Ludii's game metrics). '—': not defined for this game.",
        *chosen.notes,
    ]
    if chosen.question is None:
        headline = _default_headline(game, base, who, columns)
        page = Page(
            headline,
            lambda fig: _draw_metrics(fig, rows),
            table,
            notes,
            short="Balance: the game's metrics",
            meaning="This page shows how fair, decisive, long and dramatic the rules are, and how each named variant "
            "moves them.",
        )
        return page, headline
    question = chosen.question
    defined = tn.defined_metrics(game, (chosen.policy,) * chosen.players, (), None)
    target = tn.parse_target(game, question.target, defined)
    ranked = _ranked(results, game, question, target, "tune")
    best = ranked[0]
    close = [r for r in ranked if r[0].value <= best[0].high]  # as good as the best within its interval
    knobs = " | ".join(question.grid)
    tuned = pd.DataFrame(
        [
            {"rules": f"tuned #{k + 1}: {short}", **{m: _cell(m, r.game_metrics()) for m in columns}}
            for k, (_, _, _, r, short) in enumerate(ranked[:3])
        ]
    )
    table = pd.concat([table, tuned], ignore_index=True)
    goal = question.target.split("=")[1]
    named = closest(ranked)
    headline = (
        f"Balance ({who}): {_words(target.metric)} is {_cell(target.metric, base)} under the default rules; of "
        f"{len(ranked)} settings, "
        + (
            f"{best[1]} comes closest to {goal} ({game_metrics.format_value(target.metric, best[2])})"
            if named
            else f"none comes detectably closer to {goal} than the rest ({undecided(ranked)})"
        )
    )
    strong_ranked: list[tuple] = []
    if chosen.strong is not None:
        strong_ranked = _ranked(results, game, question, target, "strong tune")
        top = strong_ranked[0]
        strong_base = results[_label(game, "strong default rules")]
        headline += (
            f"; when everyone plays {chosen.strong} it is {_cell(target.metric, strong_base.game_metrics())} and "
        )
        if not closest(strong_ranked):
            headline += f"no setting comes detectably closer than the rest ({undecided(strong_ranked)})"
        else:
            same = "the same setting" if named and top[1] == best[1] else top[1]
            instead = " instead" if named and top[1] != best[1] else ""
            headline += f"{same} comes closest{instead} ({game_metrics.format_value(target.metric, top[2])})"
        headline += _second_grid(results, game, question, target, chosen, top[1] if closest(strong_ranked) else None)
        figures = cross_figures(results, game, chosen, target.metric)
        if len(figures) > 1:
            headline += "; at the default rules " + crossplay.claim(
                _words(target.metric), figures, _aimed(target), lambda *v: _worded_value(target.metric, *v)
            )
            notes.append(crossplay.note(figures, _aimed(target)))
        strong_rows = [
            {"rules": f"default rules, everyone {chosen.strong}", **_cells(columns, strong_base)},
            *(
                {"rules": f"tuned #{k + 1} under {chosen.strong}: {short}", **_cells(columns, r)}
                for k, (_, _, _, r, short) in enumerate(strong_ranked[:3])
            ),
        ]
        table = pd.concat([table, pd.DataFrame(strong_rows)], ignore_index=True)
    tuples = {k for k, tp in typing.get_type_hints(module.Params).items() if typing.get_origin(tp) is tuple}
    command = (
        f"simulate tune {game} --policy {chosen.policy} --players {chosen.players} "
        + " ".join(f"--vary '{k}={(';' if k in tuples else ',').join(v)}'" for k, v in question.grid.items())
        + f" --target {question.target}"
    )
    notes += [
        f"Tuning ({question.ask}): every one of the {len(ranked)} settings of {knobs} (tuned #k: the k-th "
        f"closest) was played "
        f"({best[3].summary.n_games:,} games each, same dice for all); objective: distance of {target.metric} from "
        f"{question.target.split('=')[1]}. {len(close)} setting(s) lie within the best one's interval. "
        f"A wider search: {command}.",
    ]
    if chosen.strong is not None:
        notes.append(
            f"Strong play: the default rules and every setting again with everyone playing {chosen.strong} (the same "
            f"games a setting and the same dice); its tuned #k rank the settings by its own distance from "
            f"{question.target.split('=')[1]}, and the figure shows its values beside {chosen.policy}'s."
        )

    def draw(fig: Any) -> None:
        series = [(chosen.policy, ranked)]
        if strong_ranked:  # the strong policy's values in the heuristic's order of settings
            order = {short: k for k, (*_, short) in enumerate(ranked)}
            series.append((str(chosen.strong), sorted(strong_ranked, key=lambda r: order[r[-1]])))
        frame = pd.DataFrame(
            {
                "setting": [_worded(question.grid, short) for _, rows in series for *_, short in rows],
                "policy": [policy for policy, rows in series for _ in rows],
                "value": [m.value for _, rows in series for _, _, m, _, _ in rows],
                "low": [m.low for _, rows in series for _, _, m, _, _ in rows],
                "high": [m.high for _, rows in series for _, _, m, _, _ in rows],
            }
        )
        hue = "policy" if strong_ranked else None
        plots.interval_bars(
            frame, "setting", "value", "low", "high", hue, target.metric, "setting (closest first)", fig=fig
        )
        axes = fig.axes[0]
        axes.axhline(target.low, color="#000000", linestyle="--", linewidth=0.8)
        for label in axes.get_xticklabels():
            label.set_rotation(40)
            label.set_horizontalalignment("right")
            label.set_fontsize(7)

    page = Page(
        headline,
        draw,
        table,
        notes,
        short="Balance: metrics and a tuning",
        meaning=f"The settings are tuned for a designer asking {question.ask} The rules' metrics are beside them.",
    )
    return page, headline


def cross_figures(results: dict[str, RunResult], game: str, chosen: Balance, metric: str) -> list[crossplay.Figure]:
    """``metric`` at the default rules with everyone strong, then with everyone the second strong player."""
    figures = []
    other = crossplay.second(game)
    labels = [(str(chosen.strong), _label(game, "strong default rules"))]
    if other is not None:
        labels.append((other, crossplay.label(crossplay.seats_of(strong_seats(chosen), other))))
    for who, label in labels:
        if label in results:
            v = results[label].game_metrics()[metric]
            figures.append(crossplay.Figure(f"everyone {who}", v.value, v.low, v.high, results[label].summary.n_games))
    return figures


def _worded_value(metric: str, value: float, low: float, high: float) -> str:
    return game_metrics.format_value(metric, game_metrics.Value(value, low, high))


def _aimed(target: Any) -> Callable[[crossplay.Figure], str]:
    """The fact a figure supports about the target: within reach of it, above it or below it."""

    def fact(f: crossplay.Figure) -> str:
        words = _words(target.metric)
        if f.low <= target.high and target.low <= f.high:
            return f"{words} is on target within its interval"
        return f"{words} is {'above' if f.low > target.high else 'below'} the target"

    return fact


def _second_grid(
    results: dict[str, RunResult], game: str, question: Tuning, target: Any, chosen: Balance, named: str | None
) -> str:
    """The headline's clause on the grid under the second strong player: the setting it puts closest, if any."""
    other = crossplay.second(game)

    def find(point: dict[str, str], _text: str) -> RunResult | None:
        settings = tuple(point.items())
        return crossplay.result_of(results, game, strong_seats(chosen), settings)

    if other is None or any(find(point, "") is None for point in _points(question)):
        return " (the grid not checked under a second strong player)"
    ranked = _rank(question, target, find)
    if not closest(ranked):
        either = " either" if named is None else ""
        return f"; under {other} no setting comes detectably closer{either} ({undecided(ranked)})"
    agrees = "the same setting" if ranked[0][1] == named else ranked[0][1]
    return f"; under {other} {agrees} comes closest ({game_metrics.format_value(target.metric, ranked[0][2])})"


def _ranked(results: dict[str, RunResult], game: str, question: Tuning, target: Any, tag: str) -> list[tuple]:
    """The question's settings, closest to the target first: (objective, text, value, result, short) each."""
    return _rank(question, target, lambda _point, text: results[_label(game, f"{tag} {text}")])


def _rank(question: Tuning, target: Any, find: Callable[[dict[str, str], str], Any]) -> list[tuple]:
    """The settings ranked from their results (``find(point, text)``), closest to the target first."""
    ranked = []
    for point in _points(question):
        text = question.describe(point)
        result = find(point, text)
        metrics = tn.measure(result, [target])
        ranked.append((tn.objective(metrics, [target]), text, metrics[target.metric], result, question.short(point)))
    ranked.sort(key=lambda r: r[0].value)
    return ranked


def closest(ranked: list[tuple]) -> bool:
    """Whether the first of ``ranked`` settings is detectably closest: its objective's interval clears the next's."""
    if len(ranked) < 2:
        return True
    (best, *_), (runner_up, *_) = ranked[0], ranked[1]
    return verdict.clears((best.low, best.high), (runner_up.low, runner_up.high))


def undecided(ranked: list[tuple]) -> str:
    """Games per setting, and roughly how many would tell the two closest settings apart."""
    (best, _, first, result, _), (runner_up, _, second, _, _) = ranked[0], ranked[1]
    games = result.summary.n_games
    spread = (first.high - first.low + second.high - second.low) / 2
    needed = verdict.games_to_tell(games, runner_up.value - best.value, spread)
    return f"{games:,} games each; {verdict.about(needed)}"


def _cells(columns: tuple[str, ...], result: RunResult) -> dict[str, str]:
    metrics = result.game_metrics()
    return {m: _cell(m, metrics) for m in columns}


def _words(metric: str) -> str:
    """What a title calls ``metric``, in plain words."""
    return game_metrics.DEFINITIONS[metric].words


def _default_headline(game: str, metrics: dict[str, Any], who: str, columns: tuple[str, ...]) -> str:
    parts = [f"{_words(name)} {_cell(name, metrics)}" for name in columns if name in metrics]
    return f"Balance of {game} ({who}): " + "; ".join(parts)


def _draw_metrics(fig: Any, rows: dict[str, RunResult]) -> None:
    """Game length by rule set, with intervals (defined for every game)."""
    frame = pd.DataFrame(
        [
            {"rules": label, "value": d.value, "low": d.low, "high": d.high}
            for label, r in rows.items()
            if isinstance(d := r.game_metrics()["duration"], game_metrics.Value)
        ]
    )
    plots.interval_bars(frame, "rules", "value", "low", "high", None, "rounds per game", "rules", fig=fig)
