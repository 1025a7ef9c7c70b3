"""`simulate report`: play a game's chapter (or a study) and write the PDF under ``reports/``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from analysis import stats
from analysis.report import Page, build_date, write_report
from engines import get_game
from experiments.chapters import chapter_module
from experiments.spec import load_study, resolve_study
from experiments.study import run_study


def report_path(target: str) -> Path:
    """Where the report of ``target`` (a game or a study) is written unless told: ``reports/<name>.pdf``."""
    from engines import available_games

    name = target if target in available_games() else load_study(resolve_study(target)).name
    return Path("reports") / f"{name}.pdf"


def build_report(
    target: str,
    n_games: int,
    precision: float | None,
    seed: int,
    jobs: int | None,
    out: Path | None,
    progress: Callable[[int], Any],
) -> tuple[Path, list[str]]:
    """Write the report of a game (its chapter) or of a study file; returns the PDF path and the headlines."""
    from engines import available_games

    if target in available_games():
        module = chapter_module(target)
        total = sum(a.spec.n_games for a in module.plan(n_games, seed).arms)
        with progress(total) as bar:
            chapter = module.build(n_games, precision, seed, jobs, bar.advance)
        path = write_report(out or report_path(target), chapter.heading, chapter.front, chapter.pages)
        return path, list(chapter.headlines)
    study = load_study(resolve_study(target))
    with progress(sum(a.spec.n_games for a in study.arms)) as bar:
        result = run_study(study, jobs, precision, bar.advance)
    return study_report(study, result, out), [study.title]


def study_report(study: Any, result: Any, out: Path | None) -> Path:
    """A short report of one study: what was run, then its arms' seat win rates."""
    from analysis import plots

    table = result.table(study.metrics)
    table["label"] = [f"{a} / seat {s}" for a, s in zip(table["arm"], table["seat"], strict=True)]
    if get_game(study.game).module.INFO.cooperative:  # the table wins together: plot the shared win rate
        table = table[table["seat"] == 0].copy()
        table["label"] = table["arm"]
        table["win_rate"] = table["shared_win_rate"]
        table["win_lo"], table["win_hi"] = stats.wilson(table["shared_win_rate"] * table["games"], table["games"])

    def draw(fig: Any) -> None:
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
    return write_report(out or Path("reports") / f"{study.name}.pdf", study.title, front, [page])
