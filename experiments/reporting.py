"""`simulate report`: play a game's chapter (or a study, or every chapter) and write the PDF and its HTML twin.

A chapter gives its heading, front lines, pages and headlines; here they become a :class:`analysis.book.Report`
with the game's knobs (each default with its declared source) so the front page can show them and the
Assumptions box. ``simulate report all`` plays every chapter and writes one book behind a page comparing the
games on whatever comparison metrics their pages carry.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from boardlab.analysis import stats
from boardlab.analysis.book import Book, Knob, Page, Report, build_date, knob_value
from boardlab.analysis.report import write_book
from boardlab.analysis.style import drawing_for
from boardlab.engines import available_games, core, get_game
from boardlab.experiments.chapters import Chapter, chapter_games, chapter_module, flow, skill
from boardlab.experiments.chapters.common import Plan, Play, play_pages
from boardlab.experiments.run import Runner, RunSpec, run_tasks
from boardlab.experiments.spec import arm_chunk, load_study, resolve_study
from boardlab.experiments.study import StudyResult, run_arms, run_study

ALL = "all"
"""The report target that builds every chapter into one book."""


def is_chapter(target: str) -> bool:
    """Whether ``target`` is a game's chapter or ``all`` (else a study, which sets its own games and seed)."""
    return target in (*available_games(), ALL)


def report_path(target: str) -> Path:
    """Where the report of ``target`` (a game or a study) is written unless told: ``reports/<name>.pdf``."""
    name = target if is_chapter(target) else load_study(resolve_study(target)).name
    return Path("reports") / f"{name}.pdf"


def build_report(
    target: str,
    n_games: int,
    precision: float | None,
    seed: int,
    runner: Runner,
    out: Path | None,
    progress: Callable[[int], Any],
) -> tuple[Path, list[str], list[str]]:
    """Write the report of a game (its chapter), of every chapter (``all``) or of a study file.

    Every arm is played through ``runner``, and the pages are drawn on its executor. Returns the PDF path (the
    HTML twin is beside it), the headlines, and a warning for each arm that stopped at its cap of games short of
    the precision asked for.
    """
    if target == ALL:
        return build_all(n_games, precision, seed, runner, out, progress)
    if target in available_games():
        planned = flow.prepare(target, chapter_module(target), n_games, seed, runner.executor)
        played, look_up = play_all([planned.plan], runner, precision, progress)
        chapter = flow.finish(planned, precision, look_up)
        book = Book([chapter_report(target, chapter)])
        path = write_book(out or report_path(target), book, run=lambda tasks: run_tasks(runner.executor, tasks))
        return path, list(chapter.headlines), short_arms(played, precision)
    study = load_study(resolve_study(target))
    with progress(sum(a.spec.n_games for a in study.arms)) as bar:
        result = run_study(study, runner, precision, bar.advance)
    return study_report(study, result, out), [study.title], short_arms(result, precision)


def short_arms(result: StudyResult, precision: float | None) -> list[str]:
    """A line for each arm of ``result`` that stopped at its cap short of the precision, naming its game and label."""
    return [f"{arm.spec.game} arm '{arm.label}': {line}" for arm, line in result.shortfalls(precision)]


def study_report(study: Any, result: Any, out: Path | None) -> Path:
    """A short report of one study: what was run, then its arms' seat win rates."""
    from boardlab.analysis import plots

    table = result.table(study.metrics)
    table["label"] = [f"{a} / seat {s}" for a, s in zip(table["arm"], table["seat"], strict=True)]
    if get_game(study.game).module.INFO.cooperative:  # the table wins together: plot the shared win rate
        table = table[table["seat"] == 0].copy()
        table["label"] = table["arm"]
        table["win_rate"] = table["shared_win_rate"]
        table["win_lo"], table["win_hi"] = stats.wilson(table["shared_win_rate"] * table["games"], table["games"])

    def draw(fig: Any) -> None:
        with drawing_for(study.game):
            plots.interval_bars(
                table, "label", "win_rate", "win_lo", "win_hi", None, "win rate (fraction)", "arm / seat", fig=fig
            )
        fig.axes[0].tick_params(axis="x", rotation=30, labelsize=7)

    shown = table[["arm", "seat", "policy", "games", "win_rate", "win_lo", "win_hi", "mean_score", "mean_turns"]]
    page = Page(study.title, draw, shown.round(4))
    front = [
        ("study", study.name),
        ("game", study.game),
        ("arms", "; ".join(a.label for a in study.arms)),
        ("games", f"{sum(r.summary.n_games for r in result.results):,}"),
        ("seed", str(study.seed)),
        ("date", build_date()),
    ]
    knobs = [Knob(k.name, knob_value(k.default), k.source, k.doc) for k in get_game(study.game).module.Params.knobs()]
    report = Report(study.title, front, [page], knobs=knobs, name=study.name)
    return write_book(out or Path("reports") / f"{study.name}.pdf", Book([report]))


def chapter_report(game: str, chapter: Chapter) -> Report:
    """A chapter as a report, with ``game``'s knobs: each default worded and its declared source."""
    module = get_game(game).module
    knobs = [Knob(k.name, knob_value(k.default), k.source, k.doc) for k in module.Params.knobs()]
    return Report(chapter.heading, chapter.front, chapter.pages, chapter.headlines, knobs, game)


def build_all(
    n_games: int,
    precision: float | None,
    seed: int,
    runner: Runner,
    out: Path | None,
    progress: Callable[[int], Any],
) -> tuple[Path, list[str], list[str]]:
    """Play every chapter's arms once (one progress bar over all of them), hand each its results, write one book.

    The book is a page comparing the games, then each game's report. Returns the PDF path, every headline
    prefixed by its game, and a warning for each arm that stopped short of the precision.
    """
    planned = {
        game: flow.prepare(game, chapter_module(game), n_games, seed, runner.executor) for game in chapter_games()
    }
    ladders = {game: ladder_plan(game, n_games, seed) for game, p in planned.items() if not has_ladder(p.plan)}
    everything, look_up = play_all(
        [*(p.plan for p in planned.values()), *ladders.values()], runner, precision, progress
    )
    reports, headlines = [], []
    for game, chapter_plan in planned.items():
        chapter = flow.finish(chapter_plan, precision, look_up)
        report = chapter_report(game, chapter)
        if game in ladders:
            report.extra_metrics = ladder_metrics(game, ladders[game], look_up)
        reports.append(report)
        headlines += [f"{game}: {h}" for h in chapter.headlines]
    book = Book(reports, f"{count_word(len(reports))} games compared (seed {seed})", comparison(reports))
    path = write_book(out or report_path(ALL), book, run=lambda tasks: run_tasks(runner.executor, tasks))
    return path, headlines, short_arms(everything, precision)


def play_all(
    plans: Sequence[Plan], runner: Runner, precision: float | None, progress: Callable[[int], Any]
) -> tuple[StudyResult, Play]:
    """Play every arm of ``plans`` once through ``runner`` (one progress bar); what was played and a lookup.

    Searching arms go first, so no core waits for one chapter's last chunks; the returned ``play`` looks arms up
    among those played.
    """
    arms = [a for plan in plans for a in plan.arms]
    ordered = sorted(arms, key=lambda arm: not searches(arm.spec))
    with progress(sum(a.spec.n_games for a in arms)) as bar:
        played = run_arms(ordered, runner, precision, bar.advance)
    return played, flow.results_by_spec(ordered, played.results)


def count_word(n: int) -> str:
    """``n`` as the book's title writes it: a word up to twelve, else digits."""
    words = ("No", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Eleven", "Twelve")
    return words[n] if n < len(words) else str(n)


def searches(spec: RunSpec) -> bool:
    """Whether a seat of ``spec`` plays a searching policy (one that caps its chunks: slow)."""
    return any(p.chunk_games is not None for p in core.resolve_policies(spec.module.POLICIES, spec.seats))


def has_ladder(plan: Plan) -> bool:
    """Whether a chapter plays the skill ladder (and so its skill page gives the comparison metrics)."""
    return any(a.label.startswith(skill.LABEL) for a in plan.arms)


def ladder_plan(game: str, n_games: int, seed: int) -> Plan:
    """The skill ladder's arms for a chapter without a skill page, sized like the chapters' own arms."""
    plan = Plan(game)
    skill.add_arms(plan, n_games, seed, arm_chunk(get_game(game).module.INFO, n_games))
    return plan


def ladder_metrics(game: str, plan: Plan, play: Play) -> dict[str, str]:
    """The results of ``plan`` (a game's ladder) for the comparison page; a cooperative game keeps only its length."""
    metrics = dict(play_pages(plan, [skill.page_maker(game)], play).pages[0].metrics)
    if get_game(game).module.INFO.cooperative:  # seats win together: no seat balance, skill chain or luck share
        metrics = {k: (v if k.startswith("length") else "— (cooperative)") for k, v in metrics.items()}
    return metrics


def comparison(reports: list[Report]) -> Any:
    """One row per game, one column per comparison metric any chapter gives ("—" where a chapter has none)."""
    import pandas as pd

    rows = [{"game": get_game(r.name).module.INFO.name, **r.metrics(), "pages": r.sheets} for r in reports]
    columns = [k for k in dict.fromkeys(k for row in rows for k in row) if k != "pages"] + ["pages"]
    return pd.DataFrame(rows, columns=columns).fillna("—")
