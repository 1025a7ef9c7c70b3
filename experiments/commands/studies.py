"""`simulate experiment` (a declarative study) and `simulate report` (a game's chapter, every chapter, a study)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from boardlab.experiments.clikit import (
    FOLDER,
    Common,
    UserError,
    check_pool,
    emit_json,
    frame_records,
    parse_count,
    parse_precision,
    print_frame,
    progress_total,
    shared_options,
    user_errors,
)

REPORT_GAMES, REPORT_SEED = "20000", 2026  #: a chapter's games per arm and root seed unless given (ours)


@shared_options(FOLDER, out="PDF path (default: reports/<name>.pdf; the HTML twin beside it).")
def report_command(
    target: Annotated[
        str, typer.Argument(help="A game with a report chapter, 'all' (every chapter in one book), or a study file.")
    ],
    n: Annotated[
        str | None, typer.Option("-n", "--games", help="Games per arm (default 20000; a study file sets its own).")
    ] = None,
    precision: Annotated[str | None, typer.Option(help="Play each arm until win rates are this tight.")] = None,
    seed: Annotated[
        int | None, typer.Option(help="Root seed shared by every arm (default 2026; a study file sets its own).")
    ] = None,
    *,
    common: Common,
) -> None:
    """Write a multi-page PDF report answering a game's design questions (or one study's), and its HTML twin.

    "all" writes every chapter into one PDF and HTML behind a page comparing the games. Finished chunks are
    kept next to the PDF (in NAME.chunks/), so a stopped report resumes.
    """
    o = common
    with user_errors():
        n_games = parse_count(REPORT_GAMES if n is None else n)
        target_precision = parse_precision(precision)
        check_pool(o.backend, o.jobs, o.scheduler)
        from boardlab.analysis.book import build_date, html_path
        from boardlab.experiments.reporting import build_report, is_chapter, report_path
        from boardlab.experiments.run import open_runner

        if not is_chapter(target) and (n is not None or seed is not None):
            raise UserError(f"{target} is a study: its file sets the games and the seed (give --precision, or edit it)")

        if o.out is not None and (o.out.suffix.lower() != ".pdf" or o.out.is_dir()):
            raise UserError(f"--out {o.out} must name the PDF file (ending in .pdf); its HTML twin goes beside it")
        build_date()  # a bad SOURCE_DATE_EPOCH is refused now, not after every arm is played
        named = report_path(target)  # a study file is read (and its arms checked) before any folder is made
        pdf = o.out or named
        with open_runner(pdf.with_name(f"{pdf.stem}.chunks"), o.fresh, o.backend, o.jobs, o.scheduler) as runner:
            path, headlines, warnings = build_report(
                target,
                n_games,
                target_precision,
                REPORT_SEED if seed is None else seed,
                runner,
                pdf,
                lambda total: progress_total(total, not o.shown),
            )
    for line in warnings:
        typer.echo(f"warning: {line}", err=True)
    if o.as_json:
        emit_json(
            {"headlines": list(headlines), "report": str(path), "html": str(html_path(path)), "warnings": warnings}
        )
        return
    for line in headlines:
        typer.echo(f"- {line}")
    typer.echo(f"report: {path}")
    typer.echo(f"html: {html_path(path)}")


@shared_options(FOLDER, out="Folder for the study's tables.")
def experiment_command(
    file: Annotated[str, typer.Argument(help="A study file (TOML), or the name of a shipped study.")],
    precision: Annotated[str | None, typer.Option(help="Override the study's precision target.")] = None,
    *,
    common: Common,
) -> None:
    """Run a declarative study: its arms side by side, compared with the first arm on common random numbers."""
    o = common
    with user_errors():
        from boardlab.analysis.files import replacing_together
        from boardlab.experiments.run import folder_lock, open_runner
        from boardlab.experiments.spec import load_study, resolve_study
        from boardlab.experiments.study import run_study

        study = load_study(resolve_study(file))
        target = parse_precision(precision)
        check_pool(o.backend, o.jobs, o.scheduler)
        total = sum(a.spec.n_games for a in study.arms)
        folder = o.out or Path("runs") / f"study-{study.name}"
        with (
            folder_lock(folder),
            progress_total(total, not o.shown) as bar,
            open_runner(folder / "chunks", o.fresh, o.backend, o.jobs, o.scheduler) as runner,
        ):
            result = run_study(study, runner, target, bar.advance)
            table = result.table(study.metrics)
            comparisons = result.comparisons()
            with replacing_together(folder, last="study.json") as stage:
                (stage / "arms.csv").write_bytes(table.to_csv(index=False).encode())
                (stage / "comparisons.csv").write_bytes(comparisons.to_csv(index=False).encode())
                (stage / "study.json").write_bytes(json.dumps(result.record(target), indent=1).encode())
    for arm, unmet in result.shortfalls(target):
        typer.echo(f"warning: arm '{arm.label}': {unmet}", err=True)
    written = [str(folder / "arms.csv"), str(folder / "comparisons.csv"), str(folder / "study.json")]
    if o.as_json:
        emit_json(
            {
                "study": study.name,
                "arms": frame_records(table),
                "comparisons": frame_records(comparisons),
                "written": written,
            }
        )
        return
    shown = table[
        [
            "arm",
            "seat",
            "policy",
            "games",
            "win_rate",
            "win_lo",
            "win_hi",
            "shared_win_rate",
            "mean_score",
            "mean_turns",
            *(c for c in table.columns if c.split(":")[0] in study.metrics and not c.endswith(("_lo", "_hi"))),
        ]
    ]
    print_frame(shown, study.title)
    if len(comparisons):
        print_frame(comparisons.drop(columns="p_value"), f"against '{study.arms[0].label}' (unit: chunks when paired)")
    typer.echo(f"written: {', '.join(written)}")
