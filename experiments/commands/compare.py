"""`simulate tournament` (every policy against every other) and `simulate sweep` (knobs over a grid)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from boardlab.engines import get_game
from boardlab.experiments import validate
from boardlab.experiments.clikit import (
    PLAYING,
    Common,
    check_pool,
    emit_json,
    frame_records,
    parse_count,
    parse_settings,
    print_frame,
    progress_total,
    seats_from,
    shared_options,
    user_errors,
)


@shared_options(out="Folder for the matrix CSV and heatmap PNG.")
def tournament_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    policies: Annotated[str, typer.Option(help="Comma-separated policies, at least two.")],
    *,
    common: Common,
) -> None:
    """Every policy against every other, seats rotated: a win-rate matrix with 95% intervals and a heatmap."""
    o = common
    with user_errors():
        from boardlab.experiments.compare import plan_tournament, play_tournament
        from boardlab.experiments.run import folder_lock, open_runner

        names = validate.items(policies, "--policies")
        n_games = parse_count(o.n)
        check_pool(o.backend, o.jobs, o.scheduler)
        plan = plan_tournament(game, names, o.players, n_games, o.seed, o.knobs, o.variant)
        folder = o.out or Path("runs") / f"{game}-tournament"
        with folder_lock(folder), open_runner(folder / "chunks", o.fresh, o.backend, o.jobs, o.scheduler) as runner:
            result = play_tournament(plan, runner, lambda total: progress_total(total, not o.shown))
            paths = result.save(folder)
    if o.as_json:
        emit_json({"game": game, "pairs": frame_records(result.long()), "written": [str(p) for p in paths]})
        return
    print_frame(result.display(), f"{game}: win rate of row policy against column policy (95% interval)")
    typer.echo(f"written: {', '.join(str(p) for p in paths)}")


@shared_options(
    tuple(name for name in PLAYING if name != "settings"),
    players="Number of seats (with --policy).",
    n="Games per value.",
    seed="Root seed shared by every value.",
    variant="A named variant, played at every value.",
    out="Folder for the table CSV and line plot PNG.",
)
def sweep_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    settings: Annotated[list[str], typer.Option("--set", help="knob=v1,v2,v3 to sweep; further knob=value fixed.")],
    policy: Annotated[
        str | None, typer.Option("--policy", "-p", help="Policy for every seat (default: the game's default player).")
    ] = None,
    seats: Annotated[str | None, typer.Option(help="Comma-separated policy per seat.")] = None,
    *,
    common: Common,
) -> None:
    """Run one knob over several values: per value, seat win rates and mean scores with 95% intervals."""
    o = common
    with user_errors():
        from boardlab.experiments.compare import plan_sweep, play_sweep
        from boardlab.experiments.run import folder_lock, open_runner

        module = get_game(game).module
        chosen = seats_from(module, policy, seats, o.players)
        n_games = parse_count(o.n)
        check_pool(o.backend, o.jobs, o.scheduler)
        plan = plan_sweep(game, chosen, parse_settings(settings), n_games, o.seed, o.variant)
        folder = o.out or Path("runs") / f"{game}-sweep-{plan.knob}"
        with folder_lock(folder), open_runner(folder / "chunks", o.fresh, o.backend, o.jobs, o.scheduler) as runner:
            result = play_sweep(plan, runner, lambda total: progress_total(total, not o.shown))
            paths = result.save(folder)
    if o.as_json:
        emit_json(
            {"game": game, "knob": result.knob, "rows": frame_records(result.frame), "written": [str(p) for p in paths]}
        )
        return
    print_frame(result.display(), f"{game}: sweep of {result.knob}")
    typer.echo(f"written: {', '.join(str(p) for p in paths)}")
