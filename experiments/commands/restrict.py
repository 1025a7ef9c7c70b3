"""`simulate restrict GAME`: what each choice is worth (restricted play), and whether a simple policy is as good."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from boardlab.experiments import validate
from boardlab.experiments.clikit import (
    AsJson,
    Backend,
    Fresh,
    Jobs,
    Quiet,
    Scheduler,
    UserError,
    VariantsFile,
    check_pool,
    check_seed,
    emit_json,
    folder_option,
    parse_count,
    parse_settings,
    print_frame,
    progress_total,
    use_variants_file,
    user_errors,
)


def restrict_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    restrictions: Annotated[
        str, typer.Option(help="Comma-separated restrictions, or all (`simulate list GAME` names them).")
    ] = "all",
    players: Annotated[
        int | None, typer.Option(help="Seats per game (default: the game's minimum, at least 2).")
    ] = None,
    n: Annotated[str, typer.Option("-n", "--games", help="Games per seating (default 10000).")] = "10000",
    seed: Annotated[int, typer.Option(help="Root seed shared by every seating.")] = 0,
    strong: Annotated[
        str | None,
        typer.Option(
            help="The strong player restricted and played against (default: learned if the game has one, else expert)."
        ),
    ] = None,
    settings: Annotated[list[str] | None, typer.Option("--set", help="knob=value (repeatable).")] = None,
    variant: Annotated[str | None, typer.Option(help="A named variant.")] = None,
    jobs: Jobs = None,
    out: Annotated[
        Path | None,
        typer.Option(parser=folder_option, help="Folder for the table and run.json (default: runs/GAME-restrict)."),
    ] = None,
    quiet: Quiet = False,
    fresh: Fresh = False,
    variants_file: VariantsFile = None,
    backend: Backend = "loky",
    scheduler: Scheduler = None,
    as_json: AsJson = False,
) -> None:
    """Each restriction's cost in wins (95% interval), ranked; the simplest policy within 2 points of strong play."""
    use_variants_file(variants_file)
    with user_errors():
        from boardlab.experiments import restrict as rp
        from boardlab.experiments.run import folder_lock, open_runner

        names = validate.items(restrictions, "--restrictions")
        if not names:
            raise UserError("--restrictions names no restriction; give a comma-separated list or all")
        n_games = parse_count(n)
        check_pool(backend, jobs, scheduler)
        check_seed(seed)
        plan = rp.plan_restrict(game, names, players, n_games, seed, strong, parse_settings(settings or []), variant)
        folder = out or Path("runs") / f"{game}-restrict"
        with folder_lock(folder), open_runner(folder / "chunks", fresh, backend, jobs, scheduler) as runner:
            result = rp.play_restrict(plan, runner, lambda total: progress_total(total, quiet or as_json))
            paths = result.save(folder)
    if as_json:
        emit_json({**result.as_json(), "written": [str(p) for p in paths]})
        return
    print_frame(result.display(), result.title())
    for line in result.lines():
        typer.echo(line)
    typer.echo(f"written: {', '.join(str(p) for p in paths)}")
