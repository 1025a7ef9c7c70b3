"""`simulate ladder GAME`: every policy against every other, rated; the skill chain and the luck share."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from boardlab.experiments.clikit import (
    AsJson,
    Backend,
    Fresh,
    Jobs,
    Quiet,
    Scheduler,
    VariantsFile,
    check_pool,
    check_seed,
    emit_json,
    folder_option,
    frame_records,
    parse_count,
    parse_settings,
    print_frame,
    progress_total,
    use_variants_file,
    user_errors,
)


def ladder_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    players: Annotated[
        int | None, typer.Option(help="Seats per game (default: the game's minimum, at least 2).")
    ] = None,
    n: Annotated[str, typer.Option("-n", "--games", help="Games per seating (default 2000).")] = "2000",
    budgets: Annotated[
        str | None, typer.Option(help="The expert's search budgets, e.g. 4,16,64 (default: the game's).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Root seed shared by every seating.")] = 0,
    settings: Annotated[list[str] | None, typer.Option("--set", help="knob=value (repeatable).")] = None,
    variant: Annotated[str | None, typer.Option(help="A named variant.")] = None,
    jobs: Jobs = None,
    out: Annotated[
        Path | None,
        typer.Option(parser=folder_option, help="Folder for the tables and the PNG (default: runs/GAME-ladder)."),
    ] = None,
    quiet: Quiet = False,
    fresh: Fresh = False,
    variants_file: VariantsFile = None,
    backend: Backend = "loky",
    scheduler: Scheduler = None,
    as_json: AsJson = False,
) -> None:
    """Rate every policy of a game against every other: ratings with 95% intervals, skill chain, luck share."""
    use_variants_file(variants_file)
    with user_errors():
        from boardlab.experiments import ladder as lad
        from boardlab.experiments.run import folder_lock, open_runner

        n_games = parse_count(n)
        chosen = None if budgets is None else lad.parse_budgets(budgets)
        check_pool(backend, jobs, scheduler)
        check_seed(seed)
        plan = lad.plan_ladder(game, players, n_games, chosen, seed, None, parse_settings(settings or []), variant)
        count = plan.players
        folder = out or Path("runs") / f"{game}-ladder"
        with folder_lock(folder), open_runner(folder / "chunks", fresh, backend, jobs, scheduler) as runner:
            result = lad.play_ladder(plan, runner, lambda total: progress_total(total, quiet or as_json))
            paths = result.save(folder)
    if as_json:
        emit_json(
            {
                "game": game,
                "players": count,
                "ratings": frame_records(result.ratings),
                "pairs": frame_records(result.pairs),
                "chain": frame_records(result.chain_frame()),
                "lines": result.lines(),
                "written": [str(p) for p in paths],
            }
        )
        return
    shown = result.ratings.sort_values("rating", ascending=False)[
        ["policy", "rating", "rating_lo", "rating_hi", "score", "games"]
    ]
    print_frame(shown, f"{game}, {count} players: Bradley–Terry ratings in Elo points vs random (95% interval)")
    pairs = result.pairs[["policy", "opponent", "games", "win_rate", "win_lo", "win_hi", "weaker", "weaker_win_rate"]]
    print_frame(pairs, f"{game}: win rate of policy against opponent; how often the weaker one wins")
    for line in result.lines():
        typer.echo(line)
    typer.echo(f"written: {', '.join(str(p) for p in paths)}")
