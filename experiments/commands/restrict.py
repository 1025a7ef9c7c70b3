"""`simulate restrict GAME`: what each choice is worth (restricted play), and whether a simple policy is as good."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from boardlab.experiments import validate
from boardlab.experiments.clikit import (
    Common,
    UserError,
    check_pool,
    emit_json,
    parse_count,
    print_frame,
    progress_total,
    shared_options,
    user_errors,
)


@shared_options(
    n_default="10000",
    n="Games per seating (default 10000).",
    out="Folder for the table and run.json (default: runs/GAME-restrict).",
)
def restrict_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    restrictions: Annotated[
        str, typer.Option(help="Comma-separated restrictions, or all (`simulate list GAME` names them).")
    ] = "all",
    strong: Annotated[
        str | None,
        typer.Option(
            help="The strong player restricted and played against (default: learned if the game has one, else expert)."
        ),
    ] = None,
    *,
    common: Common,
) -> None:
    """Each restriction's cost in wins (95% interval), ranked; the simplest policy within 2 points of strong play."""
    o = common
    with user_errors():
        from boardlab.experiments import restrict as rp
        from boardlab.experiments.run import folder_lock, open_runner
        from boardlab.experiments.run.spec import Knobs

        names = validate.items(restrictions, "--restrictions")
        if not names:
            raise UserError("--restrictions names no restriction; give a comma-separated list or all")
        n_games = parse_count(o.n)
        check_pool(o.backend, o.jobs, o.scheduler)
        plan = rp.plan_restrict(game, names, o.players, n_games, o.seed, strong, Knobs(o.knobs, o.variant))
        folder = o.out or Path("runs") / f"{game}-restrict"
        with folder_lock(folder), open_runner(folder / "chunks", o.fresh, o.backend, o.jobs, o.scheduler) as runner:
            result = rp.play_restrict(plan, runner, lambda total: progress_total(total, not o.shown))
            paths = result.save(folder)
    if o.as_json:
        emit_json({**result.as_json(), "written": [str(p) for p in paths]})
        return
    print_frame(result.display(), result.title())
    for line in result.lines():
        typer.echo(line)
    typer.echo(f"written: {', '.join(str(p) for p in paths)}")
