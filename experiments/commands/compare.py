"""`simulate tournament` (every policy against every other) and `simulate sweep` (knobs over a grid)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from boardlab.engines import get_game
from boardlab.experiments import validate
from boardlab.experiments.clikit import (
    AsJson,
    Backend,
    Fresh,
    Jobs,
    Quiet,
    Scheduler,
    VariantsFile,
    check_pool,
    emit_json,
    folder_option,
    frame_records,
    parse_count,
    parse_settings,
    print_frame,
    progress_total,
    seats_from,
    use_variants_file,
    user_errors,
)


def tournament_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    policies: Annotated[str, typer.Option(help="Comma-separated policies, at least two.")],
    players: Annotated[
        int | None, typer.Option(help="Seats per game (default: the game's minimum, at least 2).")
    ] = None,
    n: Annotated[str, typer.Option("-n", "--games", help="Games per seating.")] = "20000",
    seed: Annotated[int, typer.Option(help="Root seed shared by every seating.")] = 0,
    settings: Annotated[list[str] | None, typer.Option("--set", help="knob=value (repeatable).")] = None,
    variant: Annotated[str | None, typer.Option(help="A named variant.")] = None,
    jobs: Jobs = None,
    out: Annotated[
        Path | None, typer.Option(parser=folder_option, help="Folder for the matrix CSV and heatmap PNG.")
    ] = None,
    quiet: Quiet = False,
    fresh: Fresh = False,
    variants_file: VariantsFile = None,
    backend: Backend = "loky",
    scheduler: Scheduler = None,
    as_json: AsJson = False,
) -> None:
    """Every policy against every other, seats rotated: a win-rate matrix with 95% intervals and a heatmap."""
    use_variants_file(variants_file)
    with user_errors():
        from boardlab.experiments.compare import plan_tournament, play_tournament
        from boardlab.experiments.run import folder_lock, open_runner

        names = validate.items(policies, "--policies")
        n_games = parse_count(n)
        check_pool(backend, jobs, scheduler)
        plan = plan_tournament(game, names, players, n_games, seed, parse_settings(settings or []), variant)
        folder = out or Path("runs") / f"{game}-tournament"
        with folder_lock(folder), open_runner(folder / "chunks", fresh, backend, jobs, scheduler) as runner:
            result = play_tournament(plan, runner, lambda total: progress_total(total, quiet or as_json))
            paths = result.save(folder)
    if as_json:
        emit_json({"game": game, "pairs": frame_records(result.long()), "written": [str(p) for p in paths]})
        return
    print_frame(result.display(), f"{game}: win rate of row policy against column policy (95% interval)")
    typer.echo(f"written: {', '.join(str(p) for p in paths)}")


def sweep_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    settings: Annotated[list[str], typer.Option("--set", help="knob=v1,v2,v3 to sweep; further knob=value fixed.")],
    policy: Annotated[
        str | None, typer.Option("--policy", "-p", help="Policy for every seat (default: the game's default player).")
    ] = None,
    seats: Annotated[str | None, typer.Option(help="Comma-separated policy per seat.")] = None,
    players: Annotated[int | None, typer.Option(help="Number of seats (with --policy).")] = None,
    n: Annotated[str, typer.Option("-n", "--games", help="Games per value.")] = "20000",
    seed: Annotated[int, typer.Option(help="Root seed shared by every value.")] = 0,
    variant: Annotated[str | None, typer.Option(help="A named variant, played at every value.")] = None,
    jobs: Jobs = None,
    out: Annotated[
        Path | None, typer.Option(parser=folder_option, help="Folder for the table CSV and line plot PNG.")
    ] = None,
    quiet: Quiet = False,
    fresh: Fresh = False,
    variants_file: VariantsFile = None,
    backend: Backend = "loky",
    scheduler: Scheduler = None,
    as_json: AsJson = False,
) -> None:
    """Run one knob over several values: per value, seat win rates and mean scores with 95% intervals."""
    use_variants_file(variants_file)
    with user_errors():
        from boardlab.experiments.compare import plan_sweep, play_sweep
        from boardlab.experiments.run import folder_lock, open_runner

        module = get_game(game).module
        chosen = seats_from(module, policy, seats, players)
        n_games = parse_count(n)
        check_pool(backend, jobs, scheduler)
        plan = plan_sweep(game, chosen, parse_settings(settings), n_games, seed, variant)
        folder = out or Path("runs") / f"{game}-sweep-{plan.knob}"
        with folder_lock(folder), open_runner(folder / "chunks", fresh, backend, jobs, scheduler) as runner:
            result = play_sweep(plan, runner, lambda total: progress_total(total, quiet or as_json))
            paths = result.save(folder)
    if as_json:
        emit_json(
            {"game": game, "knob": result.knob, "rows": frame_records(result.frame), "written": [str(p) for p in paths]}
        )
        return
    print_frame(result.display(), f"{game}: sweep of {result.knob}")
    typer.echo(f"written: {', '.join(str(p) for p in paths)}")
