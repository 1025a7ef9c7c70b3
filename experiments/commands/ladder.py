"""`simulate ladder GAME`: every policy against every other, rated; the skill chain and the luck share."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from boardlab.experiments.clikit import (
    Common,
    check_pool,
    emit_json,
    frame_records,
    parse_count,
    print_frame,
    progress_total,
    shared_options,
    user_errors,
)


@shared_options(
    n_default="2000",
    n="Games per seating (default 2000).",
    out="Folder for the tables and the PNG (default: runs/GAME-ladder).",
)
def ladder_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    budgets: Annotated[
        str | None, typer.Option(help="The expert's search budgets, e.g. 4,16,64 (default: the game's).")
    ] = None,
    *,
    common: Common,
) -> None:
    """Rate every policy of a game against every other: ratings with 95% intervals, skill chain, luck share."""
    o = common
    with user_errors():
        from boardlab.experiments import ladder as lad
        from boardlab.experiments.run import folder_lock, open_runner

        n_games = parse_count(o.n)
        chosen = None if budgets is None else lad.parse_budgets(budgets)
        check_pool(o.backend, o.jobs, o.scheduler)
        plan = lad.plan_ladder(game, o.players, n_games, chosen, o.seed, None, o.knobs, o.variant)
        count = plan.players
        folder = o.out or Path("runs") / f"{game}-ladder"
        with folder_lock(folder), open_runner(folder / "chunks", o.fresh, o.backend, o.jobs, o.scheduler) as runner:
            result = lad.play_ladder(plan, runner, lambda total: progress_total(total, not o.shown))
            paths = result.save(folder)
    if o.as_json:
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
